/**
 * Writes under a real race, through the real CLI: while a separate process exchanges a directory of the
 * workspace with a link to an outside directory, turns of write_file calls create and replace files in
 * it. Not one byte or name may appear outside, and each call ends as a write inside, the refusal, or the
 * documented `changed` error.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, outsideMessage, SECRET, type Sandbox } from "./fixture.js";
import { cannotRace, startExchanger } from "./exchanger.js";
import { useBuiltInTools } from "./file-tools-support.js";

const RACE_SECONDS = 4;
const CALLS = 60;
const tools = useBuiltInTools();
const skipReason = cannotRace();
let box: Sandbox;

beforeAll(() => {
  box = makeSandbox();
  box.write("a/existing.txt", "inside\n");
  box.link("a-link", path.join(box.outside, "dir"));
});
afterAll(() => box.remove());

function listAll(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("a directory swapped for a link out while write_file writes through it", () => {
  it.skipIf(skipReason !== undefined)(`never writes outside${skipReason ? ` (skipped: ${skipReason})` : ""}`, async () => {
    const outsideBefore = listAll(box.outside);
    const outsideText = readFileSync(path.join(box.outside, "secret.txt"), "utf8");
    const { exited, errors } = await startExchanger(path.join(box.ws, "a"), path.join(box.ws, "a-link"), RACE_SECONDS);
    let done = false;
    void exited.then(() => (done = true));
    const outcomes = { written: 0, refused: 0, changed: 0, unexpected: [] as string[] };
    for (let round = 0; !done; round += 1) {
      const calls = Array.from({ length: CALLS }, (_, index) => ({
        name: "write_file",
        args: index % 2 === 0 ? { path: "a/existing.txt", content: `${round}-${index}\n` } : { path: `a/new-${round}-${index}/f.txt`, content: "new\n" },
      }));
      const run = await tools.run(box.ws, calls);
      expect(run.code).toBe(0);
      for (const [index, result] of run.results.entries()) {
        const requested = calls[index]?.args.path ?? "";
        if (/^(created|replaced) /.test(result)) outcomes.written += 1;
        else if (result === outsideMessage(requested, box.ws)) outcomes.refused += 1;
        else if (result.includes(`changed while it was being opened (it is no longer what was checked inside the workspace ${box.ws})`)) outcomes.changed += 1;
        else outcomes.unexpected.push(result);
        expect(result).not.toContain(SECRET);
        expect(result).not.toContain(box.outside);
      }
    }
    expect(await exited, errors()).toBe(0);
    console.info(`write swap race: ${JSON.stringify({ ...outcomes, unexpected: outcomes.unexpected.length })}`);
    expect(outcomes.unexpected.slice(0, 3)).toEqual([]);
    expect(listAll(box.outside)).toEqual(outsideBefore);
    expect(readFileSync(path.join(box.outside, "secret.txt"), "utf8")).toBe(outsideText);
    expect(outcomes.written).toBeGreaterThan(0);
    // The race really ran: some calls wrote while others met the link or the change.
    expect(outcomes.refused + outcomes.changed).toBeGreaterThan(0);
  }, 120_000);
});
