/**
 * read_file's own cap sits below the executor's cut of a result, and below a smaller share of its turn's
 * result budget, so the note telling the model which offset reads on is never cut away: checked through
 * the real executor, with the committed schemas of tools/ and the executor's default cut.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSchemas } from "../../src/runtime/execution/load-schemas.js";
import { createToolExecutor } from "../../src/runtime/execution/tool-executor.js";
import type { ToolExecutor } from "../../src/runtime/loop/types.js";
import { makeSandbox, type Sandbox } from "./fixture.js";

const generated = path.resolve(import.meta.dirname, "../../generated");
let box: Sandbox;
let executor: ToolExecutor;

beforeAll(() => {
  box = makeSandbox();
  const loaded = loadSchemas(path.join(generated, "schemas.json"));
  if (!loaded.ok) throw new Error(loaded.error.message);
  executor = createToolExecutor({ schemas: loaded.schemas, schemasDir: generated });
});
afterAll(() => box.remove());

/** `share`: the call's share of its turn's result budget, as the loop passes it (`maxResultChars`). */
async function readThroughExecutor(args: object, share?: number): Promise<string> {
  const outcome = await executor.execute(
    { id: "call_1", type: "function", function: { name: "read_file", arguments: JSON.stringify(args) } },
    { workspace: box.ws, signal: new AbortController().signal, ...(share !== undefined ? { maxResultChars: share } : {}) },
  );
  expect(outcome.status).toBe("ok");
  expect(outcome.content).not.toContain("[truncated:");
  return outcome.content;
}

describe("read_file through the executor", () => {
  it("keeps its note to read on when a window of lines reaches its cap", async () => {
    box.write("big.txt", `${"x".repeat(59)}\n`.repeat(5000));
    const content = await readThroughExecutor({ path: "big.txt" });
    expect(content).toBe(`${`${"x".repeat(59)}\n`.repeat(666)}[read_file: lines 1-666 shown; the result reached its 40000-byte cap and the file goes on. Call read_file with offset 666 to read on.]`);
  });

  it("keeps its note when one line alone is over the cap, with the executor's own notes before the text", async () => {
    box.write("one-line.txt", `${"y".repeat(200_000)}\nnext\n`);
    const content = await readThroughExecutor({ path: "one-line.txt", offset: "0", verbose: true });
    expect(content).toBe(
      `[ignored unknown arguments: verbose]\n[converted arguments: offset from string "0" to 0]\n${"y".repeat(40_000)}\n[read_file: line 1 is longer than the 40000-byte cap; only its start is shown. Call read_file with offset 1 to read the lines after it.]`,
    );
  });

  it("keeps its note when the model also sends thousands of unknown arguments", async () => {
    box.write("big.txt", `${"x".repeat(59)}\n`.repeat(5000));
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`option_number_${index}`, true]));
    const content = await readThroughExecutor({ path: "big.txt", ...unknown });
    expect(content.endsWith("\n[read_file: lines 1-666 shown; the result reached its 40000-byte cap and the file goes on. Call read_file with offset 666 to read on.]")).toBe(true);
  });

  it("keeps its note under a turn's shared budget: it stops 1,000 characters short of the call's share", async () => {
    box.write("big.txt", `${"x".repeat(59)}\n`.repeat(5000));
    const content = await readThroughExecutor({ path: "big.txt" }, 20_000);
    expect(content).toBe(`${`${"x".repeat(59)}\n`.repeat(316)}[read_file: lines 1-316 shown; the result reached its 19000-byte cap and the file goes on. Call read_file with offset 316 to read on.]`);
    expect(content.length).toBeLessThanOrEqual(20_000);

    box.write("one-line.txt", `${"y".repeat(200_000)}\nnext\n`);
    expect(await readThroughExecutor({ path: "one-line.txt" }, 5_000)).toBe(
      `${"y".repeat(4_000)}\n[read_file: line 1 is longer than the 4000-byte cap; only its start is shown. Call read_file with offset 1 to read the lines after it.]`,
    );
  });

  it("a share too small for text and the note is left to the executor's cut, which says how long the result was", async () => {
    box.write("big.txt", `${"x".repeat(59)}\n`.repeat(5000));
    const outcome = await executor.execute(
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"big.txt"}' } },
      { workspace: box.ws, signal: new AbortController().signal, maxResultChars: 36 },
    );
    const whole = `${`${"x".repeat(59)}\n`.repeat(666)}[read_file: lines 1-666 shown; the result reached its 40000-byte cap and the file goes on. Call read_file with offset 666 to read on.]`;
    expect(outcome.content).toBe(
      `${"x".repeat(36)}\n[truncated: showing the first 36 of ${whole.length} characters; the calls of one turn share one budget, so fewer calls per turn get more each]`,
    );
  });
});
