/**
 * The gen benchmark's baseline, run as a plain `node` process: one typescript-json-schema pass over the
 * tools' parameters written as interfaces, what a user would run instead of `gen`. Given the leanest
 * program that checks them: strict, target and lib ES2022 (no DOM), no automatic `@types`, skipLibCheck,
 * which are the options gen compiles tools with.
 * Usage: node tjs-pass.mjs <dir with the interface files> <out file>
 */
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as tjs from "typescript-json-schema";

const [dir, out] = process.argv.slice(2);
const files = readdirSync(dir).filter((name) => name.endsWith(".ts")).map((name) => path.join(dir, name));
const program = tjs.getProgramFromFiles(files, {
  strict: true,
  target: "ES2022",
  lib: ["ES2022"],
  types: [],
  skipLibCheck: true,
}, process.cwd());
const generator = tjs.buildGenerator(program, { required: true, noExtraProps: true, ref: false });
if (generator === null) process.exit(1);
const names = generator.getUserSymbols().filter((name) => name.endsWith("_params"));
writeFileSync(out, JSON.stringify(generator.getSchemaForSymbols(names), null, 2));
