import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot, writeTree } from "./support.js";

/**
 * The code cache lives across processes (it is written when a process exits), so each step is a fresh
 * `node` loading a package through `requireWithCodeCache`, as `gen` loads the compiler.
 */
const codeCache = pathToFileURL(path.join(repoRoot, "src/gen/program/code-cache.ts")).href;

function loadInFreshProcess(file: string, readOnly = false): string {
  const script = `const { leaveCodeCacheUnwritten, requireWithCodeCache } = await import(${JSON.stringify(codeCache)}); ${readOnly ? "leaveCodeCacheUnwritten();" : ""} const m = requireWithCodeCache(${JSON.stringify(file)}); console.log(m.answer, m.double(21), m.sibling);`;
  return execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" }).trim();
}

describe("requireWithCodeCache", () => {
  const root = writeTree({
    "node_modules/pkg/index.js": 'exports.answer = 42;\nexports.double = (x) => x * 2;\nexports.sibling = require("./sibling.js");\n',
    "node_modules/pkg/sibling.js": 'module.exports = "found";\n',
  });
  const file = path.join(root, "node_modules/pkg/index.js");
  const cacheDir = path.join(root, "node_modules/.cache/sigloop");
  const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.startsWith("index.js-"));

  it("writes no cache in a process that must write nothing (gen --check)", () => {
    expect(loadInFreshProcess(file, true)).toBe("42 42 found");
    expect(existsSync(cacheDir) ? cacheFiles() : []).toEqual([]);
  });

  it("loads the module, writes its cache on exit, and loads it again from the cache", () => {
    expect(loadInFreshProcess(file)).toBe("42 42 found");
    expect(cacheFiles()).toHaveLength(1);
    const cache = path.join(cacheDir, cacheFiles()[0]!);
    const written = statSync(cache).mtimeMs;

    expect(loadInFreshProcess(file)).toBe("42 42 found");
    // An accepted cache is not written again.
    expect(statSync(cache).mtimeMs).toBe(written);
  });

  it("survives a corrupt cache: V8 refuses it, the module loads, and the cache is rewritten", () => {
    const cache = path.join(cacheDir, cacheFiles()[0]!);
    writeFileSync(cache, "not a code cache");
    expect(loadInFreshProcess(file)).toBe("42 42 found");
    expect(readFileSync(cache, "utf8")).not.toBe("not a code cache");
  });

  it("reads a module that is not plain ASCII as UTF-8, from source and from its cache", () => {
    writeFileSync(file, 'exports.answer = "café ✓";\nexports.double = (x) => x * 2;\nexports.sibling = "naïve";\n');
    expect(loadInFreshProcess(file)).toBe("café ✓ 42 naïve");
    expect(loadInFreshProcess(file)).toBe("café ✓ 42 naïve");
  });

  it("keeps one cache per file: an edited module gets a new cache and the old one is removed", () => {
    writeFileSync(file, 'exports.answer = 43;\nexports.double = (x) => x * 2;\nexports.sibling = "edited";\n');
    expect(loadInFreshProcess(file)).toBe("43 42 edited");
    expect(cacheFiles()).toHaveLength(1);
  });

  it("leaves another Node version's cache of the file alone", () => {
    const own = cacheFiles()[0]!;
    expect(own).toContain(`-${process.version}-`);
    const otherNode = own.replace(`-${process.version}-`, "-v0.0.0-");
    writeFileSync(path.join(cacheDir, otherNode), "another Node's code cache");
    writeFileSync(file, 'exports.answer = 44;\nexports.double = (x) => x * 2;\nexports.sibling = "edited again";\n');
    expect(loadInFreshProcess(file)).toBe("44 42 edited again");
    // This Node's cache of the old text is replaced; the other Node's stays as it was.
    expect(cacheFiles()).toHaveLength(2);
    expect(cacheFiles()).toContain(otherNode);
    expect(cacheFiles()).not.toContain(own);
    expect(readFileSync(path.join(cacheDir, otherNode), "utf8")).toBe("another Node's code cache");
  });

  it("gives the module its exact text: a function's source and the line an error names", () => {
    writeFileSync(file, 'exports.double = (x) => x * 2;\nexports.answer = String(exports.double);\nexports.sibling = new Error().stack.split("\\n")[1].replace(/^.*:(\\d+):\\d+\\)?$/, "line $1");\n');
    expect(loadInFreshProcess(file)).toBe("(x) => x * 2 42 line 3");
    expect(loadInFreshProcess(file)).toBe("(x) => x * 2 42 line 3");
  });
});
