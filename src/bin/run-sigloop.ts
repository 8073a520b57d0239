/**
 * What the `sigloop` bin does (`src/bin/sigloop.ts` loads it): `sigloop gen | agent | mcp | demo`, `--help`, `--version`. It runs
 * in the user's project: the working directory is where the command was run, `.env` is read from there, and
 * each subcommand takes the flags and gives the exit codes of this repository's `npm run` script of that name.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { flagMeant } from "../shared/command-flags.js";
import { packageRoot } from "../shared/package-layout.js";
import { COMMANDS } from "./commands.js";

const USAGE_EXIT = 2;

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return ["usage: sigloop <command> [flags]", "", ...lines, "", "  --help, -h  this text (sigloop <command> --help: that command's flags)", "  --version   the installed version"].join("\n");
}

function version(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}

const [name, ...argv] = process.argv.slice(2);
if (name === undefined) {
  // A missing command is a usage mistake: the text goes where errors go, so `sigloop | …` pipes nothing.
  process.stderr.write(`error: no command given\n${usage()}\n`);
  process.exitCode = USAGE_EXIT;
} else if (name === "--help" || name === "-h" || name === "help") {
  process.stdout.write(`${usage()}\n`);
} else if (name === "--version" || name === "-v") {
  process.stdout.write(`${version()}\n`);
} else {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    const meant = flagMeant(name, Object.fromEntries(Object.keys(COMMANDS).map((known) => [known, "switch" as const])));
    process.stderr.write(`error: unknown command "${name}"${meant === undefined ? "" : ` (did you mean ${meant}?)`}\n${usage()}\n`);
    process.exitCode = USAGE_EXIT;
  } else {
    const code = await command.run(argv);
    if (code !== undefined) process.exit(code);
  }
}
