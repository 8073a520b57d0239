import path from "node:path";
import { helpRequested, unknownFlag, type FlagTable } from "../../shared/command-flags.js";
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

/** A flag `gen` cannot run with, and the exit code: 2 for a mistyped flag, else 1 as for every gen error. */
export interface FlagProblem extends Diagnostic {
  exitCode: number;
}

/** Every flag of `gen`: what an unknown flag is compared with to name the one meant. */
export const GEN_FLAGS: FlagTable = { "--tools": "value", "--out": "value", "--check": "switch", "--watch": "switch", "--help": "switch" };

export const GEN_USAGE = `usage: ${commandLine("gen", "[--tools <dir>] [--out <file>] [--check | --watch]")}
  --tools <dir>  folder of tool files (default: tools)
  --out <file>   schemas file to write (default: generated/schemas.json)
  --check        write nothing; exit 1 naming the tools whose schemas changed
  --watch        regenerate on every change to the tools or the files they import
  --help, -h     this text (wherever it stands; nothing else is done)`;

/**
 * Parses `gen` flags; paths given resolve against `cwd`, the defaults against the project `root`.
 * `"help"`: print the usage and do nothing else.
 */
export function parseGenArgs(argv: readonly string[], cwd: string, root = cwd): GenOptions | FlagProblem | "help" {
  if (helpRequested(argv)) return "help";
  const options: GenOptions = {
    toolsDir: path.resolve(root, "tools"),
    outFile: path.resolve(root, "generated/schemas.json"),
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
      const { meant } = unknownFlag(flag, GEN_FLAGS);
      return meant === undefined ? usageError(`unknown argument "${arg}"`) : usageError(`unknown argument "${arg}" (did you mean ${meant}?)`, 2);
    }
  }
  if (options.check && options.watch) return usageError("--check and --watch cannot be combined");
  return options;
}

function usageError(problem: string, exitCode = 1): FlagProblem {
  return { severity: "error", message: `${problem}\n${GEN_USAGE}`, exitCode };
}
