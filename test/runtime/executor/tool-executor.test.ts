import { describe, expect, test } from "vitest";
import { createToolExecutor, type ToolExecutorOptions } from "../../../src/runtime/execution/tool-executor.js";
import type { ToolContext, ToolOutcome } from "../../../src/runtime/loop/types.js";
import type { JsonValue } from "../../../src/shared/schemas-file.js";
import { lastAbort } from "../../fixtures/executor/tools/behaviour.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";

const idle: ToolContext = { workspace: "/the/workspace", signal: new AbortController().signal };

function executor(options: Partial<ToolExecutorOptions> = {}) {
  return createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir, ...options });
}

const shared = executor();

function call(name: string, args: string, context: ToolContext = idle, run = shared): Promise<ToolOutcome> {
  return run.execute({ id: "call_1", type: "function", function: { name, arguments: args } }, context);
}

const ADD_PARAMETERS = "Parameters: a (number, required); b (number, optional)";

describe("arguments text", () => {
  test.each(["", "   \n\t", "null"])("%j means no arguments", async (args) => {
    expect(await call("nothing", args)).toEqual({ status: "ok", content: "(no output)" });
  });

  test("no arguments for a tool with a required parameter names it as missing", async () => {
    expect(await call("add", "")).toEqual({
      status: "invalid_arguments",
      content: [
        "The arguments for add do not match its parameters, so it was not run:",
        "- a: missing (required, number)",
        ADD_PARAMETERS,
        "Fix these and call add again.",
      ].join("\n"),
    });
  });

  test("invalid JSON: the parser's message, the start of what came, and a request for one object", async () => {
    expect(await call("add", '{"a": 1,}')).toEqual({
      status: "invalid_arguments",
      content: [
        "The arguments for add were not valid JSON: Expected double-quoted property name in JSON at position 8",
        'Received (9 characters): {"a": 1,}',
        ADD_PARAMETERS,
        "Send the arguments again as one JSON object with the parameters as keys.",
      ].join("\n"),
    });
  });

  test("a long invalid text is shown only by its start", async () => {
    const outcome = await call("add", `{"a": ${"9".repeat(5000)}`);
    expect(outcome.content.split("\n")[1]).toBe(`Received (5006 characters): {"a": ${"9".repeat(194)}…`);
  });

  test.each([
    ["[]", "an array of 0 items"],
    ["5", "5"],
    ['"x"', 'string "x"'],
    ["true", "true"],
  ])("valid JSON that is not an object (%s) is refused", async (args, shown) => {
    expect(await call("add", args)).toEqual({
      status: "invalid_arguments",
      content: [
        `The arguments for add must be a JSON object with the parameters as keys, but came as ${shown}.`,
        ADD_PARAMETERS,
        "Send the arguments again as one JSON object.",
      ].join("\n"),
    });
  });

  test("a JSON string holding an object is decoded once and the call proceeds", async () => {
    expect(await call("add", JSON.stringify(JSON.stringify({ a: 2 })))).toEqual({
      status: "ok",
      content: "[decoded arguments that were sent as a JSON string; send a JSON object]\n12",
    });
  });

  test("a string holding a string holding an object is not decoded twice", async () => {
    const twice = JSON.stringify(JSON.stringify(JSON.stringify({ a: 2 })));
    expect((await call("add", twice)).status).toBe("invalid_arguments");
  });
});

describe("tool names", () => {
  const available =
    "add, area, circular, configure, countNodes, countWords, describeCall, explode, missingExport, missingFile, nothing, parseDate, rejectByName, rejectLater, rejectWithCopy, repeat, saveRecord, schedule, setMode, structured, throwLookalike, throwString, totalArea, waitForever, workspaceSeen";

  test("an unknown tool is named and the available tools are listed", async () => {
    expect(await call("delete_everything", "{}")).toEqual({
      status: "unknown_tool",
      content: `There is no tool named "delete_everything". Available tools: ${available}.`,
    });
  });

  test("a near miss gets a suggestion but is not run", async () => {
    expect(await call("functions.ADD", '{"a": 1}')).toEqual({
      status: "unknown_tool",
      content: `There is no tool named "functions.ADD". Did you mean add? Available tools: ${available}.`,
    });
  });

  test.each(["__proto__", "constructor", "toString", "hasOwnProperty"])("%s is an unknown tool, not an Object member", async (name) => {
    expect((await call(name, "{}")).status).toBe("unknown_tool");
  });
});

describe("binding", () => {
  test("positional parameters are passed in order; one left out gets the function's default", async () => {
    expect(await call("add", '{"b": 2, "a": 1}')).toEqual({ status: "ok", content: "3" });
    expect(await call("add", '{"a": 1}')).toEqual({ status: "ok", content: "11" });
  });

  test("a parameter left out in the middle is passed as undefined, keeping later ones in place", async () => {
    expect(await call("describeCall", '{"label": "x", "flag": true}')).toEqual({
      status: "ok",
      content: '{"label":"x","count":"left out","flag":true}',
    });
  });

  test("the object convention passes the arguments object, whose left-out members take their defaults", async () => {
    expect(await call("saveRecord", '{"title": "notes"}')).toEqual({
      status: "ok",
      content: '{"title":"notes","tags":[],"options":{}}',
    });
  });

  test("the tool runs inside the call's context", async () => {
    expect(await call("workspaceSeen", "")).toEqual({ status: "ok", content: "/the/workspace" });
  });
});

describe("schema failures", () => {
  test("every problem gets a line with its path, what was expected and what came; the tool is not run", async () => {
    let imported = 0;
    const counting = executor({ importModule: (url) => (imported++, import(url)) });
    const outcome = await call("saveRecord", '{"title": 5, "options": {"color": "blue", "size": true}, "tags": ["a", 3]}', idle, counting);
    expect(outcome).toEqual({
      status: "invalid_arguments",
      content: [
        "The arguments for saveRecord do not match its parameters, so it was not run:",
        "- title: expected string, got 5",
        "- tags[1]: expected string, got 3",
        '- options.color: expected one of "red", "green", got string "blue"',
        "- options.size: expected number, got true",
        'Parameters: title (string, required); tags (string[], optional); options ({ color?: "red" | "green"; size?: number }, optional)',
        "Fix these and call saveRecord again.",
      ].join("\n"),
    });
    expect(imported).toBe(0);
  });

  test("a failed union is one line naming its branches when the value fits no branch's type, else the branch meant", async () => {
    expect((await call("setMode", '{"mode": 5}')).content.split("\n")[1]).toBe('- mode: expected "fast" | { level: integer }, got 5');
    expect((await call("setMode", '{"mode": {"level": "high"}}')).content.split("\n")[1]).toBe('- mode (as { level: integer }): level: expected integer, got string "high"');
  });

  test("unknown keys are listed with the problems when the call cannot proceed", async () => {
    expect((await call("describeCall", '{"label": 1, "verbose": true}')).content).toBe(
      [
        "The arguments for describeCall do not match its parameters, so it was not run:",
        "- verbose: not a parameter of this tool",
        "- label: expected string, got 1",
        "Parameters: label (string, required); count (integer, optional); flag (boolean, optional)",
        "Fix these and call describeCall again.",
      ].join("\n"),
    );
  });

  test("formats are checked (ajv-formats)", async () => {
    expect((await call("schedule", '{"at": "tomorrow"}')).content.split("\n")[1]).toBe(
      '- at: expected a string in date-time format, got string "tomorrow"',
    );
    expect(await call("schedule", '{"at": "2026-11-30T04:00:00Z"}')).toEqual({ status: "ok", content: "scheduled at 2026-11-30T04:00:00Z" });
  });

  test("a converted value is still checked against the rest of its schema", async () => {
    expect((await call("describeCall", '{"label": "x", "count": "-3"}')).content.split("\n")[1]).toBe(
      "- count: expected a number >= 0, got -3",
    );
  });

  test("unknown keys count toward the twenty lines", async () => {
    const args = { label: 1, ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, i])) };
    const lines = (await call("describeCall", JSON.stringify(args))).content.split("\n");
    expect(lines.slice(20, 22)).toEqual(["- extra19: not a parameter of this tool", "- …and 11 more problems"]);
  });

  test("arguments too deep for a recursive schema are refused as such", async () => {
    const depth = 20_000;
    const text = `{"tree": ${'{"name":"n","children":['.repeat(depth)}{"name":"leaf"}${"]}".repeat(depth)}}`;
    expect(await call("countNodes", text)).toEqual({
      status: "invalid_arguments",
      content: [
        "The arguments for countNodes are nested too deeply to check (RangeError: Maximum call stack size exceeded), so it was not run.",
        "Parameters: tree ({ name: string; children?: TreeNode[] }, required)",
        "Send the arguments again with far less nesting.",
      ].join("\n"),
    });
    expect(await call("countNodes", '{"tree": {"name": "a", "children": [{"name": "b"}]}}')).toEqual({ status: "ok", content: "2" });
  });

  test("hundreds of problems are summarized after twenty lines", async () => {
    const tags = JSON.stringify(Array.from({ length: 100 }, (_, index) => index));
    const lines = (await call("saveRecord", `{"title": "t", "tags": ${tags}}`)).content.split("\n");
    expect(lines.slice(20, 23)).toEqual(["- tags[19]: expected string, got 19", "- …and 80 more problems", lines[22]]);
  });
});

describe("repairs", () => {
  test("numbers and booleans sent as strings are converted and mentioned", async () => {
    expect(await call("describeCall", '{"label": "x", "count": "5", "flag": "false"}')).toEqual({
      status: "ok",
      content: '[converted arguments: count from string "5" to 5, flag from string "false" to false]\n{"label":"x","count":5,"flag":false}',
    });
    expect(await call("add", '{"a": "1.5", "b": "-2e1"}')).toEqual({
      status: "ok",
      content: '[converted arguments: a from string "1.5" to 1.5, b from string "-2e1" to -20]\n-18.5',
    });
  });

  test.each([
    ['"12345678901234567890"', "digits would be lost"],
    ['" 5"', "not exactly a number"],
    ['"0x10"', "not decimal"],
    ['"5.5"', "not an integer"],
    ['"1e400"', "not finite"],
  ])("%s is not converted for an integer (%s)", async (count) => {
    expect((await call("describeCall", `{"label": "x", "count": ${count}}`)).status).toBe("invalid_arguments");
  });

  test("a number is not converted to a string", async () => {
    expect((await call("describeCall", '{"label": 7}')).content.split("\n")[1]).toBe("- label: expected string, got 7");
  });

  test("a nested object sent as a JSON string is decoded, then its own values repaired", async () => {
    expect(await call("saveRecord", JSON.stringify({ title: "t", options: JSON.stringify({ size: "3" }) }))).toEqual({
      status: "ok",
      content:
        '[converted arguments: options from string "{\\"size\\":\\"3\\"}" to an object, options.size from string "3" to 3]\n{"title":"t","tags":[],"options":{"size":3}}',
    });
  });

  test("unknown keys at any depth are dropped where the schema is closed, and named first", async () => {
    expect(await call("saveRecord", '{"title": "t", "verbose": 1, "options": {"color": "red", "shade": 2}}')).toEqual({
      status: "ok",
      content: '[ignored unknown arguments: verbose, options.shade]\n{"title":"t","tags":[],"options":{"color":"red"}}',
    });
  });

  test("a note names the first 10 arguments and counts the rest, however many the model sent", async () => {
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`extra${index}`, index]));
    expect(await call("add", JSON.stringify({ a: "1", b: 2, ...unknown }))).toEqual({
      status: "ok",
      content: `[ignored unknown arguments: ${Array.from({ length: 10 }, (_, index) => `extra${index}`).join(", ")} and 4990 more]\n[converted arguments: a from string "1" to 1]\n3`,
    });
  });

  test("both notes come before the result, ignored first", async () => {
    expect((await call("add", '{"a": "1", "c": 0}')).content).toBe(
      '[ignored unknown arguments: c]\n[converted arguments: a from string "1" to 1]\n11',
    );
  });

  test("inside a union, the one branch that only repairable errors keep from matching is repaired", async () => {
    expect(await call("setMode", '{"mode": {"level": "2", "x": 1}}')).toEqual({
      status: "ok",
      content: '[ignored unknown arguments: mode.x]\n[converted arguments: mode.level from string "2" to 2]\nmode {"level":2}',
    });
    expect(await call("area", '{"shape": {"kind": "square", "side": "3", "color": "red"}}')).toEqual({
      status: "ok",
      content: '[ignored unknown arguments: shape.color]\n[converted arguments: shape.side from string "3" to 3]\n9',
    });
  });

  test("inside a union, nothing is repaired when the branch meant is unclear; a discriminator no branch has is the problem", async () => {
    const outcome = await call("area", '{"shape": {"kind": "triangle", "side": "3"}}');
    expect(outcome.status).toBe("invalid_arguments");
    expect(outcome.content.split("\n")[1]).toBe('- shape.kind: expected one of "circle", "square", got string "triangle"');
  });

  test("in an open object (a dictionary) every key is data, __proto__ included", async () => {
    expect(await call("countWords", '{"counts": {"__proto__": 1, "constructor": 2, "a": "3"}}')).toEqual({
      status: "ok",
      content: '[converted arguments: counts.a from string "3" to 3]\n6',
    });
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  test("a __proto__ key where the schema is closed is dropped without touching any prototype", async () => {
    expect(await call("add", '{"a": 1, "__proto__": {"polluted": true}}')).toEqual({
      status: "ok",
      content: "[ignored unknown arguments: __proto__]\n11",
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("a tool that rejects its argument (ToolInputError)", () => {
  test("is an argument problem shaped like a schema failure, naming the parameter, under its own header", async () => {
    expect(await call("parseDate", '{"date": "2023-02-29"}')).toEqual({
      status: "invalid_arguments",
      content: [
        "The tool parseDate rejected its arguments, so it has no result:",
        '- date: "2023-02-29" is not a date of the calendar',
        "Parameters: date (string, required)",
        "Fix this and call parseDate again.",
      ].join("\n"),
    });
    expect(await call("parseDate", '{"date": "2024-02-29"}')).toEqual({ status: "ok", content: "2024-02-29T00:00:00.000Z" });
  });

  test("a nested parameter path, the message on one line", async () => {
    expect((await call("configure", '{"options": {"mode": "turbo"}}')).content).toBe(
      [
        "The tool configure rejected its arguments, so it has no result:",
        '- options.mode: unknown mode "turbo" use "fast" or "safe"',
        "Parameters: options ({ mode: string }, required)",
        "Fix this and call configure again.",
      ].join("\n"),
    );
  });

  test("the tool module's own copy of the class, and a copy by name, are recognised; a lookalike is not", async () => {
    expect(await call("rejectWithCopy", "")).toEqual({
      status: "invalid_arguments",
      content: "The tool rejectWithCopy rejected its arguments, so it has no result:\n- the copy's message\nParameters: none\nFix this and call rejectWithCopy again.",
    });
    expect(await call("rejectByName", "")).toMatchObject({ status: "invalid_arguments", content: expect.stringContaining("\n- x: rejected by name\n") });
    expect(await call("throwLookalike", "")).toEqual({ status: "tool_error", content: "The tool throwLookalike itself failed: Error: boom" });
  });
});

describe("failures of the tool itself", () => {
  test("a throw is the tool's failure, with the error's name and message, and no claim about retrying", async () => {
    expect(await call("explode", "{}")).toEqual({
      status: "tool_error",
      content: "The tool explode itself failed: TypeError: cannot read the disk",
    });
  });

  test("so is a rejection", async () => {
    expect(await call("rejectLater", "")).toEqual({
      status: "tool_error",
      content: "The tool rejectLater itself failed: RangeError: value out of range",
    });
  });

  test("a thrown non-Error is described", async () => {
    expect((await call("throwString", "")).content.split("\n")[0]).toBe(
      'The tool throwString itself failed: a thrown string "plain text thrown" (not an Error)',
    );
  });

  test("a tool that runs past its timeout gets a timeout result and an aborted signal", async () => {
    const outcome = await call("waitForever", "", idle, executor({ timeoutMs: 50 }));
    expect(outcome).toEqual({
      status: "timeout",
      content: "The tool waitForever timed out: it did not finish within 50 ms, so it was stopped and has no result. Try a smaller task or another approach.",
    });
    expect((lastAbort.reason as DOMException).name).toBe("TimeoutError");
  });

  test("a user interrupt aborts the tool's signal and gives an aborted result", async () => {
    const controller = new AbortController();
    const pending = call("waitForever", "", { workspace: "/w", signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 10);
    expect(await pending).toEqual({ status: "aborted", content: "The tool waitForever was interrupted before it finished; it has no result." });
    expect(String(lastAbort.reason)).toBe("Error: user pressed Ctrl-C");
  });

  test("a call made after the interrupt does not run", async () => {
    let imported = 0;
    const counting = executor({ importModule: (url) => (imported++, import(url)) });
    expect((await call("explode", "", { workspace: "/w", signal: AbortSignal.abort() }, counting)).status).toBe("aborted");
    expect(imported).toBe(0);
  });

  test("a module without the export, or missing, is a setup problem", async () => {
    expect(await call("missingExport", "")).toEqual({
      status: "tool_error",
      content:
        "The tool missingExport could not be loaded from tools/broken.ts: it has no exported function missingExport. This is a setup problem, not an argument problem; run npm run gen if the tools changed.",
    });
    expect((await call("missingFile", "")).content).toMatch(/^The tool missingFile could not be loaded from tools\/does-not-exist.ts: .*Cannot find module/);
  });

  test("a return value JSON cannot hold is reported, not thrown", async () => {
    expect((await call("circular", "")).content).toMatch(/^The tool circular ran, but its return value cannot be turned into text: TypeError: Converting circular structure to JSON/);
  });

  test("a schema Ajv cannot compile is reported when the tool is called", async () => {
    const broken = structuredClone(fixtureSchemas);
    broken.tools[0]!.function.parameters.properties.a = { type: "string", pattern: "(" };
    const outcome = await call("add", '{"a": "x"}', idle, executor({ schemas: broken }));
    expect(outcome.status).toBe("tool_error");
    expect(outcome.content).toMatch(/^The parameters schema of add could not be compiled \(SyntaxError: Invalid regular expression/);
  });

  test("a keyword value of the wrong type in a hand-edited schema is refused when the tool is called, and the tool does not run", async () => {
    const cases: [keyword: string, value: JsonValue, message: string][] = [
      ["minLength", "5", 'minLength value must be ["number"]'],
      ["type", "strin", "type must be JSONType or JSONType[]: strin"],
      ["enum", [], "enum must have non-empty array"],
    ];
    for (const [keyword, value, message] of cases) {
      const broken = structuredClone(fixtureSchemas);
      broken.tools[0]!.function.parameters.properties.a = { [keyword]: value };
      const outcome = await call("add", '{"a": 1, "b": 2}', idle, executor({ schemas: broken }));
      expect(outcome).toEqual({ status: "tool_error", content: expect.stringContaining(`The parameters schema of add could not be compiled (Error: ${message}`) });
    }
  });

  test("warming up before the first call changes no outcome, even when the schema it compiles is broken", async () => {
    const broken = structuredClone(fixtureSchemas);
    broken.tools[0]!.function.parameters.properties.a = { type: "string", pattern: "(" };
    const warmed = executor({ schemas: broken });
    await expect(warmed.warmUp()).resolves.toBeUndefined();
    const outcome = await call("add", '{"a": "x"}', idle, warmed);
    expect(outcome.content).toMatch(/^The parameters schema of add could not be compiled \(SyntaxError: Invalid regular expression/);
    const healthy = executor();
    await healthy.warmUp();
    expect(await call("add", '{"a": 1, "b": 2}', idle, healthy)).toEqual(await call("add", '{"a": 1, "b": 2}'));
  });
});

describe("results", () => {
  test("strings as they are, other values as JSON, undefined as (no output)", async () => {
    expect(await call("repeat", '{"count": 3, "text": "ab\\n"}')).toEqual({ status: "ok", content: "ab\nab\nab\n" });
    expect(await call("structured", "")).toEqual({ status: "ok", content: '{"files":["a.txt","b.txt"],"total":2,"big":"10"}' });
    expect(await call("nothing", "")).toEqual({ status: "ok", content: "(no output)" });
  });

  test("a result over the cap keeps its start and says how long it was", async () => {
    const capped = executor({ maxResultChars: 10 });
    expect(await call("repeat", '{"count": 25}', idle, capped)).toEqual({
      status: "ok",
      content: "xxxxxxxxxx\n[truncated: showing the first 10 of 25 characters]",
    });
  });

  test("the notes count toward the cap", async () => {
    const capped = executor({ maxResultChars: 40 });
    expect(await call("repeat", '{"count": "25", "extra": 1}', idle, capped)).toEqual({
      status: "ok",
      content: "[ignored unknown arguments: extra]\n[conv\n[truncated: showing the first 40 of 112 characters]",
    });
  });

  test("the default cap is 50,000 characters", async () => {
    const content = (await call("repeat", '{"count": 60000}')).content;
    expect(content).toBe(`${"x".repeat(50_000)}\n[truncated: showing the first 50000 of 60000 characters]`);
  });
});

describe("lazy work", () => {
  test("a module is imported on first use only, once per file, and not at all for tools never called", async () => {
    const imported: string[] = [];
    const counting = executor({ importModule: (url) => (imported.push(url.slice(url.lastIndexOf("/") + 1)), import(url)) });
    expect(imported).toEqual([]);
    await Promise.all([call("add", '{"a": 1}', idle, counting), call("describeCall", '{"label": "x"}', idle, counting)]);
    await call("explode", "", idle, counting);
    await call("nothing", "", idle, counting);
    expect(imported).toEqual(["math.ts", "behaviour.ts"]);
  });

  test("a module that failed to import is tried again on the next call", async () => {
    let attempts = 0;
    const flaky = executor({ importModule: (url) => (++attempts === 1 ? Promise.reject(new Error("disk busy")) : import(url)) });
    expect((await call("add", '{"a": 1}', idle, flaky)).content).toBe(
      "The tool add could not be loaded from tools/math.ts: Error: disk busy. This is a setup problem, not an argument problem; run npm run gen if the tools changed.",
    );
    expect(await call("add", '{"a": 1}', idle, flaky)).toEqual({ status: "ok", content: "11" });
  });

  test("the warm-up imports every tool module once, and calls after it import nothing more", async () => {
    const imported: string[] = [];
    const warmed = executor({ importModule: (url) => (imported.push(url.slice(url.lastIndexOf("/") + 1)), import(url)) });
    await warmed.warmUp();
    const files = [...new Set(fixtureSchemas.bindings.map((binding) => binding.file.slice(binding.file.lastIndexOf("/") + 1)))];
    expect([...imported].sort()).toEqual(files.sort());
    expect(await call("add", '{"a": 1}', idle, warmed)).toEqual({ status: "ok", content: "11" });
    await call("describeCall", '{"label": "x"}', idle, warmed);
    expect(imported).toHaveLength(files.length);
  });

  test("a module that fails to import during the warm-up is reported by its tool's first call, as without a warm-up, and tried again on the next", async () => {
    let attempts = 0;
    const failing = (url: string) => (url.endsWith("/math.ts") && ++attempts === 1 ? Promise.reject(new Error("disk busy")) : import(url));
    const warmed = executor({ importModule: failing });
    await expect(warmed.warmUp()).resolves.toBeUndefined();
    expect(attempts).toBe(1);
    const cold = executor({ importModule: (url) => (url.endsWith("/math.ts") ? Promise.reject(new Error("disk busy")) : import(url)) });
    const expected = await call("add", '{"a": 1}', idle, cold);
    expect(expected.content).toBe(
      "The tool add could not be loaded from tools/math.ts: Error: disk busy. This is a setup problem, not an argument problem; run npm run gen if the tools changed.",
    );
    expect(await call("add", '{"a": 1}', idle, warmed)).toEqual(expected);
    expect(attempts).toBe(1);
    expect(await call("add", '{"a": 1}', idle, warmed)).toEqual({ status: "ok", content: "11" });
    expect(attempts).toBe(2);
  });

  test("definitions are the schemas file's tools, in its order", () => {
    expect(shared.definitions).toBe(fixtureSchemas.tools);
  });
});
