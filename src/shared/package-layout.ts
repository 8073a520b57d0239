/**
 * Where sigloop runs from: this repository's TypeScript sources (run by tsx or vitest), or the compiled
 * JavaScript of the installed package (`dist/`, built by `npm pack`). Decides how messages name commands
 * (`npm run gen` in the repository, `npx sigloop gen` where sigloop is a dependency) and where the package's
 * own files are.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

/** True when this is the compiled package: nothing in the process teaches Node TypeScript by itself. */
export const compiled = import.meta.url.endsWith(".js");

/** The package's root folder (its package.json and README.md): this file is src/shared/, or dist/src/shared/. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), compiled ? "../../.." : "../..");

/** A sigloop command as the user types it: `npm run gen -- --check` here, `npx sigloop gen --check` installed. */
export function commandLine(command: "gen" | "agent" | "demo" | "mcp", args = ""): string {
  if (compiled) return `npx sigloop ${command}${args === "" ? "" : ` ${args}`}`;
  return `npm run ${command}${args === "" ? "" : ` -- ${args}`}`;
}
