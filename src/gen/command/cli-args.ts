import path from "node:path";
import { commandLine } from "../../shared/package-layout.js";
import type { Diagnostic } from "../diagnostic.js";

export interface GenOptions {
  /** Absolute path of the tools folder. */
  toolsDir: string;
  /** Absolute path of the schemas file. */
  outFile: string;
  check: boolean;
  watch: boolean;
}

export const GEN_USAGE = `usage: ${commandLine("gen", "[--tools <dir>] [--out <file>] [--check | --watch]")}
  --tools <dir>  folder of tool files (default: tools)
  --out <file>   schemas file to write (default: generated/schemas.json)
  --check        write nothing; exit 1 naming the tools whose schemas changed
  --watch        regenerate on every change to the tools or the files they import`;

/** Parses `gen` flags; paths resolve against `cwd`. */
export function parseGenArgs(argv: readonly string[], cwd: string): GenOptions | Diagnostic {
  const options: GenOptions = {
    toolsDir: path.resolve(cwd, "tools"),
    outFile: path.resolve(cwd, "generated/schemas.json"),
    check: false,
    watch: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inlineValue] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--check" || flag === "--watch") {
      options[flag === "--check" ? "check" : "watch"] = true;
    } else if (flag === "--tools" || flag === "--out") {
      const value = inlineValue ?? argv[++i];
      if (value === undefined || value === "") return usageError(`${flag} needs a path`);
      options[flag === "--tools" ? "toolsDir" : "outFile"] = path.resolve(cwd, value);
    } else {
      return usageError(`unknown argument "${arg}"`);
    }
  }
  if (options.check && options.watch) return usageError("--check and --watch cannot be combined");
  return options;
}

function usageError(problem: string): Diagnostic {
  return { severity: "error", message: `${problem}\n${GEN_USAGE}` };
}
