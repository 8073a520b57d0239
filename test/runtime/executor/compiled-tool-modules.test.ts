/**
 * Tool files compiled to JavaScript for a process without a TypeScript loader: what a tool sees must be
 * what it sees under a loader (one instance of a module two tools share, its own file's location,
 * packages and local JavaScript from where they are), the cache is reused until a file changes, and
 * wherever compiling would change what a tool sees, nothing is compiled (the caller then registers tsx).
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileToolModules } from "../../../src/runtime/execution/compiled-tool-modules.js";

type Files = Record<string, string>;

function project(files: Files): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sigloop-compiled-tools-")));
  write(dir, { "package.json": JSON.stringify({ type: "module" }), "node_modules/.keep": "", ...files });
  return dir;
}

function write(dir: string, files: Files): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

async function compiled(dir: string, names: string[]): Promise<string[]> {
  const compilation = await compileToolModules(names.map((name) => path.join(dir, name)));
  if (compilation === undefined) throw new Error("not compiled");
  return names.map((name) => compilation.modules.get(path.join(dir, name))!);
}

const sharedCounter: Files = {
  "tools/counter.ts": "let count = 0;\nexport function next(): number {\n  return ++count;\n}\n",
  "tools/a.ts": 'import { next } from "./counter.js";\nexport function a(): number {\n  return next();\n}\n',
  "tools/b.ts": 'import { next } from "./counter.js";\nexport function b(): number {\n  return next();\n}\n',
};

describe("compileToolModules", () => {
  it("keeps a module two tool files import one instance, as a loader does", async () => {
    const dir = project(sharedCounter);
    const [a, b] = await compiled(dir, ["tools/a.ts", "tools/b.ts"]);
    const [moduleA, moduleB] = (await Promise.all([import(a!), import(b!)])) as [{ a: () => number }, { b: () => number }];
    expect([moduleA.a(), moduleB.b(), moduleA.a()]).toEqual([1, 2, 3]);
  });

  it("gives each module its own file's import.meta.url, dirname and filename, a JavaScript module's too", async () => {
    const dir = project({
      "tools/lib/where.ts": "export const where = [import.meta.url, import.meta.dirname, import.meta.filename];\n",
      "tools/lib/plain.js": "export const plain = import.meta.url;\n",
      "tools/here.ts": 'export { where } from "./lib/where.js";\nexport { plain } from "./lib/plain.js";\nexport const here = import.meta.url;\n',
    });
    const [url] = await compiled(dir, ["tools/here.ts"]);
    const module = (await import(url!)) as { here: string; where: string[]; plain: string };
    const where = path.join(dir, "tools/lib/where.ts");
    expect(module.here).toBe(`file://${path.join(dir, "tools/here.ts")}`);
    expect(module.where).toEqual([`file://${where}`, path.dirname(where), where]);
    expect(module.plain).toBe(`file://${path.join(dir, "tools/lib/plain.js")}`);
  });

  it("imports packages from the project's node_modules and local CommonJS files from where they are, with tsx's CommonJS hooks", async () => {
    const dir = project({
      "node_modules/greeting/package.json": JSON.stringify({ name: "greeting", type: "module", exports: { import: "./esm.js", require: "./cjs.cjs" } }),
      "node_modules/greeting/esm.js": 'export const greeting = "hello from esm";\n',
      "node_modules/greeting/cjs.cjs": 'exports.greeting = "hello from cjs";\n',
      "tools/legacy.cjs": "exports.folder = __dirname;\n",
      "tools/greet.ts": 'import { greeting } from "greeting";\nimport legacy from "./legacy.cjs";\nexport const seen = [greeting, legacy.folder];\n',
    });
    const [url] = await compiled(dir, ["tools/greet.ts"]);
    expect(((await import(url!)) as { seen: string[] }).seen).toEqual(["hello from esm", path.join(dir, "tools")]);
    // Such a file may require TypeScript, which tsx's CommonJS hooks load; tools without one need none.
    expect((await compileToolModules([path.join(dir, "tools/greet.ts")]))?.commonJsLoader).toBe(true);
    const plain = project(sharedCounter);
    expect((await compileToolModules([path.join(plain, "tools/a.ts")]))?.commonJsLoader).toBe(false);
  });

  it("reuses the compiled modules until a file they were made from changes", async () => {
    const dir = project(sharedCounter);
    const [first] = await compiled(dir, ["tools/a.ts", "tools/b.ts"]);
    const madeAt = statSync(fileURLToPath(first!)).mtimeMs;
    const [, again] = await compiled(dir, ["tools/b.ts", "tools/a.ts"]);
    expect(again).toBe(first);
    expect(statSync(fileURLToPath(again!)).mtimeMs).toBe(madeAt);

    write(dir, { "tools/counter.ts": "export function next(): number {\n  return 42;\n}\n" });
    const [edited] = await compiled(dir, ["tools/a.ts", "tools/b.ts"]);
    expect(edited).not.toBe(first);
    expect(((await import(edited!)) as { a: () => number }).a()).toBe(42);
  });

  it("imports a tool after an edit that leaves the compiled code as it was, and after the edit is undone", async () => {
    // Code no tool uses, added before the code a tool uses: esbuild leaves it out, so the compiled module
    // is the same text, but esbuild names the file anew.
    const greet = "export function greet(): string {\n  return 'hi';\n}\n";
    const unused = "function later(): void {\n  setImmediate(() => undefined);\n}\nexport function wait(): void {\n  later();\n}\n";
    const dir = project({ "tools/hello.ts": 'import { greet } from "./helper.js";\nexport function hello(): string {\n  return greet();\n}\n' });
    const names = new Set<string>();
    for (const helper of [greet, unused + greet, greet]) {
      write(dir, { "tools/helper.ts": helper });
      const [module] = await compiled(dir, ["tools/hello.ts"]);
      names.add(path.basename(module!));
      expect(((await import(module!)) as { hello: () => string }).hello()).toBe("hi");
    }
    expect(names.size).toBe(2);
  });

  it("compiles again when the tsconfig.json that maps an import changes", async () => {
    const paths = (target: string) => JSON.stringify({ compilerOptions: { paths: { "@answer": [target] } } });
    const dir = project({
      "tsconfig.json": paths("./lib/one.ts"),
      "lib/one.ts": "export const answer = 1;\n",
      "lib/two.ts": "export const answer = 2;\n",
      "tools/ask.ts": 'export { answer } from "@answer";\n',
    });
    const [first] = await compiled(dir, ["tools/ask.ts"]);
    expect(((await import(first!)) as { answer: number }).answer).toBe(1);
    write(dir, { "tsconfig.json": paths("./lib/two.ts") });
    const [second] = await compiled(dir, ["tools/ask.ts"]);
    expect(((await import(second!)) as { answer: number }).answer).toBe(2);
  });

  it("compiles nothing where a loader must import the tools", async () => {
    const commonJs = project({ "package.json": JSON.stringify({ type: "commonjs" }), "tools/old.ts": "export const folder = __dirname;\n" });
    const commonJsHelper = project({
      "tools/new.ts": 'import { folder } from "../lib/old.js";\nexport const seen = folder;\n',
      "lib/package.json": "{}",
      "lib/old.ts": "export const folder = __dirname;\n",
    });
    const nearerPackages = project({
      "tools/a.ts": 'export { x } from "../vendor/x.js";\n',
      "vendor/node_modules/.keep": "",
      "vendor/x.ts": "export const x = 1;\n",
    });
    const unparsable = project({ "tools/broken.ts": "export function broken( {\n" });
    const noNodeModules = realpathSync(mkdtempSync(path.join(tmpdir(), "sigloop-compiled-tools-")));
    write(noNodeModules, { "package.json": JSON.stringify({ type: "module" }), "tools/a.ts": "export const a = 1;\n" });
    const unwritableCache = project({ "node_modules/.cache": "a file where the cache folder would be", "tools/a.ts": "export const a = 1;\n" });
    // Paths worked out at run time would be resolved from the cache folder.
    const computedImport = project({
      "tools/plugins.ts": "export async function load(name: string): Promise<unknown> {\n  const file = `./plugins/${name}.js`;\n  return import(file);\n}\n",
    });
    const metaResolve = project({ "tools/where.ts": 'export const helper = import.meta.resolve("./helper.js");\n' });

    const results = await Promise.all([
      compileToolModules([path.join(commonJs, "tools/old.ts")]),
      compileToolModules([path.join(commonJsHelper, "tools/new.ts")]),
      compileToolModules([path.join(nearerPackages, "tools/a.ts")]),
      compileToolModules([path.join(unparsable, "tools/broken.ts")]),
      compileToolModules([path.join(noNodeModules, "tools/a.ts")]),
      compileToolModules([path.join(unwritableCache, "tools/a.ts")]),
      compileToolModules([path.join(computedImport, "tools/plugins.ts")]),
      compileToolModules([path.join(metaResolve, "tools/where.ts")]),
    ]);
    expect(results).toEqual(Array.from({ length: 8 }, () => undefined));
  });

  it("remembers that tools must go to the loader until one of their files changes, without building again", async () => {
    const dir = project({ "tools/load.ts": "export async function load(file: string): Promise<unknown> {\n  return import(file);\n}\n" });
    const tool = path.join(dir, "tools/load.ts");
    expect(await compileToolModules([tool])).toBeUndefined();
    const manifests = () => readdirSync(path.join(dir, "node_modules/.cache/sigloop")).filter((name) => name.endsWith(".json"));
    const [manifest] = manifests();
    const recordedAt = statSync(path.join(dir, "node_modules/.cache/sigloop", manifest!)).mtimeMs;
    expect(await compileToolModules([tool])).toBeUndefined();
    expect(statSync(path.join(dir, "node_modules/.cache/sigloop", manifest!)).mtimeMs).toBe(recordedAt);
    write(dir, { "tools/load.ts": "export const load = 1;\n" });
    expect((await compileToolModules([tool]))?.modules.has(tool)).toBe(true);
  });

  it("compiles .mts tool files whatever the package's type, and leaves .cts ones to the loader", async () => {
    const dir = project({ "package.json": "{}", "tools/a.mts": "export const a = 1;\n", "tools/b.cts": "export const b = 2;\n" });
    const compilation = await compileToolModules([path.join(dir, "tools/a.mts"), path.join(dir, "tools/b.cts")]);
    expect([...(compilation?.modules.keys() ?? [])]).toEqual([path.join(dir, "tools/a.mts")]);
    expect(((await import(compilation!.modules.get(path.join(dir, "tools/a.mts"))!)) as { a: number }).a).toBe(1);
    expect(readdirSync(path.join(dir, "node_modules/.cache/sigloop")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
  });
});
