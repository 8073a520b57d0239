/**
 * The executor over a schemas file written by the real generator (not the hand-written fixture), so the
 * two halves agree on bindings, conventions and the staleness hash.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runGen } from "../../../src/gen/command/run-gen.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import type { ToolExecutor } from "../../../src/runtime/loop/types.js";
import { fixtureDir } from "../../fixtures/executor/schemas.js";

let outDir: string;
let executor: ToolExecutor;
const context = { workspace: "/w", signal: new AbortController().signal };

beforeAll(() => {
  outDir = mkdtempSync(path.join(tmpdir(), "sigloop-gen-fixture-"));
  const schemasPath = path.join(outDir, "schemas.json");
  const code = runGen(["--tools", path.join(fixtureDir, "tools"), "--out", schemasPath], { cwd: process.cwd(), stdout: () => {}, stderr: () => {} });
  expect(code).toBe(0);
  const loaded = loadSchemas(schemasPath);
  if (!loaded.ok) throw new Error(loaded.error.message);
  executor = createToolExecutor({ schemas: loaded.schemas, schemasDir: outDir });
}, 60_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

async function call(name: string, args: string) {
  return executor.execute({ id: "c", type: "function", function: { name, arguments: args } }, context);
}

test("positional binding with a default, a conversion and an unknown key", async () => {
  expect(await call("add", '{"a": "5", "c": 1}')).toEqual({
    status: "ok",
    content: '[ignored unknown arguments: c]\n[converted arguments: a from string "5" to 5]\n15',
  });
});

test("the object convention, with a nested unknown key dropped", async () => {
  expect(await call("saveRecord", '{"title": "t", "options": {"size": 2, "shade": 1}}')).toEqual({
    status: "ok",
    content: '[ignored unknown arguments: options.shade]\n{"title":"t","tags":[],"options":{"size":2}}',
  });
});

test("a union the generator wrote is reported as one line", async () => {
  expect((await call("setMode", '{"mode": 5}')).content.split("\n")[1]).toBe('- mode: expected "fast" | { level: number }, got 5');
});

test("an integer written by the generator as multipleOf 1", async () => {
  expect((await call("repeat", '{"count": "2.5"}')).content.split("\n")[1]).toBe("- count: expected an integer, got 2.5");
});

test("a format tag written by the generator is checked", async () => {
  expect((await call("schedule", '{"at": "soon"}')).content.split("\n")[1]).toBe('- at: expected a string in date-time format, got string "soon"');
});

test("a discriminated union the generator wrote: the branch meant is repaired", async () => {
  expect(await call("area", '{"shape": {"kind": "circle", "r": "1", "fill": true}}')).toEqual({
    status: "ok",
    content: '[ignored unknown arguments: shape.fill]\n[converted arguments: shape.r from string "1" to 1]\n3',
  });
});

test("a positional parameter left out in the middle", async () => {
  expect(await call("describeCall", '{"label": "x", "flag": "true"}')).toEqual({
    status: "ok",
    content: '[converted arguments: flag from string "true" to true]\n{"label":"x","count":"left out","flag":true}',
  });
});
