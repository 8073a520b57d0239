/**
 * The path walk under a real race: a separate process exchanges a directory of the workspace with a
 * symbolic link to an outside directory (renameat2 RENAME_EXCHANGE, as fast as it can) while many
 * read_file and list_files calls run through it. Not one result or message may hold outside content or an
 * outside name, and a component that changes kind mid-walk gets a documented message, never a raw errno.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { list_files } from "../../tools/list_files.js";
import { read_file } from "../../tools/read_file.js";
import { WorkspaceError } from "../../src/runtime/workspace/workspace.js";
import { ToolInputError } from "../../src/runtime/execution/tool-input-error.js";
import { makeSandbox, outsideMessage, SECRET, type Sandbox } from "./fixture.js";
import { cannotRace, startExchanger } from "./exchanger.js";

const RACE_SECONDS = 2.5;
const INSIDE_TEXT = "inside text\n";

let box: Sandbox;
const skipReason = cannotRace();

beforeAll(() => {
  box = makeSandbox();
  box.write("a/secret.txt", INSIDE_TEXT);
  box.write("a/sub/inside-entry.txt", "");
  writeFileSync(path.join(box.outside, "dir", "secret.txt"), `${SECRET} raced\n`);
  mkdirSync(path.join(box.outside, "dir", "sub"));
  writeFileSync(path.join(box.outside, "dir", "sub", `${SECRET}-entry.txt`), "");
  box.link("a-link", path.join(box.outside, "dir"));
});
afterAll(() => box.remove());

interface Tally {
  calls: number;
  inside: number;
  leaks: string[];
  unexpected: string[];
}

/**
 * The errors a raced call may end with: the documented refusals of the model's path (outside, missing) as
 * argument problems, or the documented workspace error of a swap mid-walk.
 */
function expectedFailure(requested: string, error: unknown): boolean {
  const shown = JSON.stringify(requested);
  if (error instanceof ToolInputError) {
    return [outsideMessage(requested, box.ws), `ENOENT: no such file or directory: ${shown} (in the workspace ${box.ws}). Use list_files to see what is there.`].includes(error.message);
  }
  return error instanceof WorkspaceError && error.message === `${shown} changed while it was being opened (it is no longer what was checked inside the workspace ${box.ws}); nothing was read. Try again.`;
}

async function raceCalls(until: Promise<unknown>): Promise<Tally> {
  const tally: Tally = { calls: 0, inside: 0, leaks: [], unexpected: [] };
  let done = false;
  void until.finally(() => (done = true));
  const record = (requested: string, insideAnswer: (text: string) => boolean) => (outcome: PromiseSettledResult<string>): void => {
    tally.calls += 1;
    const text = outcome.status === "fulfilled" ? outcome.value : String((outcome.reason as Error)?.message ?? outcome.reason);
    if (text.includes(SECRET) || text.includes(box.outside)) tally.leaks.push(text);
    else if (outcome.status === "fulfilled" && insideAnswer(text)) tally.inside += 1;
    else if (outcome.status === "fulfilled" || !expectedFailure(requested, outcome.reason)) {
      tally.unexpected.push(text);
    }
  };
  while (!done) {
    const [reads, lists] = await Promise.all([
      Promise.allSettled(Array.from({ length: 12 }, () => box.call(() => read_file("a/secret.txt")))),
      Promise.allSettled(Array.from({ length: 4 }, () => box.call(() => list_files("a/sub")))),
    ]);
    reads.forEach(record("a/secret.txt", (text) => text === INSIDE_TEXT));
    lists.forEach(record("a/sub", (text) => text === "a/sub/inside-entry.txt"));
  }
  return tally;
}

describe("a directory swapped for a link out while calls walk through it", () => {
  it.skipIf(skipReason !== undefined)(`never returns outside content or an outside listing${skipReason ? ` (skipped: ${skipReason})` : ""}`, async () => {
    const { exited, output, errors } = await startExchanger(path.join(box.ws, "a"), path.join(box.ws, "a-link"), RACE_SECONDS);
    const tally = await raceCalls(exited);
    expect(await exited, errors()).toBe(0);
    const exchanges = Number(output().split("\n")[1]);
    console.info(`swap race: ${exchanges} exchanges, ${tally.calls} calls, ${tally.inside} inside answers, ${tally.leaks.length} leaks`);
    expect(exchanges).toBeGreaterThan(1000);
    expect(tally.leaks.length, `leaked, e.g. ${JSON.stringify(tally.leaks.slice(0, 3))}`).toBe(0);
    expect(tally.unexpected.length, `unexpected, e.g. ${JSON.stringify(tally.unexpected.slice(0, 3))}`).toBe(0);
    // The race really ran both ways: some calls got the inside answer while others were refused.
    expect(tally.inside).toBeGreaterThan(0);
    expect(tally.inside).toBeLessThan(tally.calls);
  });
});
