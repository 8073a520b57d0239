import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { oldNode } from "../support/old-node.js";
import { repoRoot } from "./support.js";

/**
 * scripts/run-from-sources.mjs, which `npm run gen` starts: a TypeScript entry of this repository run by
 * plain node from a bundle cached in node_modules/.cache, rebuilt when a source changes.
 */
const dir = path.join(repoRoot, "tmp", "run-from-sources-test");
const entry = path.join(dir, "entry.ts");
const launcher = path.join(repoRoot, "scripts", "run-from-sources.mjs");
const cache = path.join(repoRoot, "node_modules", ".cache", "sigloop");

/** The cached bundle files (relative to the cache folder) whose code holds `word`. */
function bundlesHolding(word: string): string[] {
  return readdirSync(cache, { recursive: true, encoding: "utf8" }).filter((name) => /\.m?js$/.test(name) && readFileSync(path.join(cache, name), "utf8").includes(word));
}

function launch(...args: string[]) {
  return launchWith([], args);
}

/** Runs the entry through the launcher, `options` being the launcher's own (before the entry). */
function launchWith(options: string[], args: string[]) {
  const result = spawnSync(process.execPath, [launcher, ...options, entry, ...args], { cwd: dir, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeSources(word: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "word.ts"), `export const word: string = ${JSON.stringify(word)};\n`);
  writeFileSync(
    entry,
    [
      'import { word } from "./word.js";',
      "const own: string = import.meta.url;",
      "declare const __SIGLOOP_BUNDLED__: boolean | undefined;",
      "const bundled = typeof __SIGLOOP_BUNDLED__ !== \"undefined\" && __SIGLOOP_BUNDLED__;",
      "process.stdout.write(JSON.stringify({ word, own, bundled, args: process.argv.slice(2) }) + \"\\n\");",
      "process.exitCode = 3;",
      "",
    ].join("\n"),
  );
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("run-from-sources", () => {
  it("on a Node older than package.json's engines, says which Node it needs and exits 2 before running anything", () => {
    writeSources("old");
    const old = oldNode();
    const result = spawnSync(old.path, [launcher, entry], { cwd: dir, encoding: "utf8" });
    expect({ code: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `sigloop: Node ${old.version} is not supported; this repository needs Node 22.19 or later (22 or 24). Install one (for example \`nvm install 22\`) and run the command again.\n`,
    });
  });

  it("runs the entry with its own arguments, its exit code, import.meta.url naming its source file, and __SIGLOOP_BUNDLED__ true", () => {
    writeSources("first");
    const result = launch("--tools", "x y");
    expect(result).toEqual({
      code: 3,
      stdout: `${JSON.stringify({ word: "first", own: pathToFileURL(entry).href, bundled: true, args: ["--tools", "x y"] })}\n`,
      stderr: "",
    });
  });

  it("rebuilds when an imported module changes, and not otherwise", () => {
    writeSources("second");
    expect(JSON.parse(launch().stdout).word).toBe("second");
    writeFileSync(path.join(dir, "word.ts"), 'export const word: string = "third, longer";\n');
    expect(JSON.parse(launch().stdout).word).toBe("third, longer");
    expect(JSON.parse(launch().stdout).word).toBe("third, longer");
  });

  it("with --in-memory-with --check and --check among the entry's arguments writes nothing: a stale bundle is made in memory, the cache is left as it was", () => {
    // Unique to this run, so the bundle that holds it cannot be left from an earlier one.
    const word = `fifth, stale ${process.pid} ${Date.now()}`;
    writeSources(word);
    expect(JSON.parse(launchWith(["--in-memory-with", "--check"], ["--check"]).stdout)).toMatchObject({ word, own: pathToFileURL(entry).href, args: ["--check"] });
    expect(bundlesHolding(word)).toEqual([]);
    expect(JSON.parse(launchWith(["--in-memory-with", "--check"], ["--out", "x"]).stdout)).toMatchObject({ word, args: ["--out", "x"] });
    expect(bundlesHolding(word)).toHaveLength(1);
  });

  it("without --in-memory-with, an entry's --check is an argument like any other: the bundle is cached", () => {
    const word = `seventh ${process.pid} ${Date.now()}`;
    writeSources(word);
    expect(JSON.parse(launch("--check").stdout)).toMatchObject({ word, args: ["--check"] });
    expect(bundlesHolding(word)).toHaveLength(1);
  });

  it("rebuilds a bundle that was deleted from the cache", () => {
    const word = `sixth ${process.pid} ${Date.now()}`;
    writeSources(word);
    expect(JSON.parse(launch().stdout).word).toBe(word);
    const holding = bundlesHolding(word);
    expect(holding).toHaveLength(1);
    rmSync(path.join(cache, holding[0]!));
    expect(launch()).toMatchObject({ code: 3, stderr: "" });
    expect(existsSync(path.join(cache, holding[0]!))).toBe(true);
  });

  it("loads the packages of a lazily imported module only when that import runs", () => {
    writeSources("eighth");
    writeFileSync(path.join(dir, "lazy.ts"), 'import { Ajv } from "ajv";\nexport const lazy: string = typeof Ajv;\n');
    writeFileSync(
      entry,
      [
        'import { createRequire } from "node:module";',
        "const require = createRequire(import.meta.url);",
        'const ajvLoaded = () => Object.keys(require.cache).some((file) => file.includes("/node_modules/ajv/"));',
        "const before = ajvLoaded();",
        'const lazy = process.argv.includes("--lazy") ? (await import("./lazy.js")).lazy : undefined;',
        "process.stdout.write(JSON.stringify({ before, lazy, after: ajvLoaded() }) + \"\\n\");",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(launch().stdout)).toEqual({ before: false, after: false });
    expect(JSON.parse(launch("--lazy").stdout)).toEqual({ before: false, lazy: "function", after: true });
  });

  it("leaves a source that does not parse to tsx, which exits 1 naming its file and line", () => {
    writeSources("fourth");
    writeFileSync(path.join(dir, "word.ts"), "export const word: string = ;\n");
    const result = launch();
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("word.ts:1:");
  });
});
