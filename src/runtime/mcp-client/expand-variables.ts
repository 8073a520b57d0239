/**
 * `${VAR}` and `${VAR:-default}` in an MCP config value, expanded from the environment as Claude Code
 * does: a variable set to the empty string expands to it, `:-` also covers an empty value, and a variable
 * that is unset with no default is an error naming it. Nothing else is special (`$VAR` stays as written).
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Expanded = { ok: true; value: string } | { ok: false; variable: string };

export function expandVariables(text: string, env: NodeJS.ProcessEnv): Expanded {
  let missing: string | undefined;
  const value = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (fallback !== undefined) return set === undefined || set === "" ? fallback : set;
    if (set === undefined) missing ??= name;
    return set ?? "";
  });
  return missing === undefined ? { ok: true, value } : { ok: false, variable: missing };
}
