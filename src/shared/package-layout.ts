/**
 * Where sigloop runs from: this repository's TypeScript sources (run by tsx or vitest), or the compiled
 * JavaScript of the installed package (`dist/`, built by `npm pack`). Decides how messages name commands
 * (`npm run gen` in the repository, `npx sigloop gen` where sigloop is a dependency) and where the package's
 * own files are.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** True when this is the compiled package: nothing in the process teaches Node TypeScript by itself. */
export const compiled = import.meta.url.endsWith(".js");

/** `true` in a bundle made by scripts/run-from-sources.mjs (esbuild's `define`), undeclared elsewhere. */
declare const __SIGLOOP_BUNDLED__: boolean | undefined;

/**
 * True when importing a TypeScript file needs a loader registered first: the compiled package, or these
 * sources bundled into plain JavaScript by scripts/run-from-sources.mjs (`npm run agent`). Under tsx or
 * vitest the loader that runs these sources loads the tools too.
 */
export const typeScriptNeedsLoader = compiled || (typeof __SIGLOOP_BUNDLED__ !== "undefined" && __SIGLOOP_BUNDLED__);

/** The package's root folder (its package.json and README.md): this file is src/shared/, or dist/src/shared/. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), compiled ? "../../.." : "../..");

/** A sigloop command as the user types it: `npm run gen -- --check` here, `npx sigloop gen --check` installed. */
export function commandLine(command: "gen" | "agent" | "demo" | "mcp", args = ""): string {
  if (compiled) return `npx sigloop ${command}${args === "" ? "" : ` ${args}`}`;
  return `npm run ${command}${args === "" ? "" : ` -- ${args}`}`;
}

/** sigloop's own version (an MCP server's or client's, whichever project it runs in); 0.0.0 when unreadable. */
export function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
