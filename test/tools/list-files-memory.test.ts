/**
 * Many parallel list_files calls on one huge directory, in a child process whose peak resident size is
 * measured: each call streams the directory and keeps only what it can show, so memory does not grow with
 * the directory. The attack reported was 200 calls on 200,000 entries (5.3 GB before, 695 MB now with long
 * names, measured through the CLI: docs/workspace.md; 40 million entries take minutes to read here); this
 * test reads 2 million entries with names near the 255-byte limit in seconds, which takes 660 to 690 MB
 * when each call reads the directory whole and about 260 MB streamed, and allows 512 MB.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "./fixture.js";

const ENTRIES = 40_000;
const CALLS = 50;
const CEILING_BYTES = 512 * 1024 ** 2;
const name = (index: number): string => `${"n".repeat(240)}-${String(index).padStart(6, "0")}.txt`;

const projectRoot = path.resolve(import.meta.dirname, "../..");

/** Runs CALLS list_files("huge") at once inside a tool context and reports what they returned and the peak RSS. */
const CHILD = `
import { runWithToolContext } from ${JSON.stringify(pathToFileURL(path.join(projectRoot, "src/runtime/execution/tool-context.ts")).href)};
import { list_files } from ${JSON.stringify(pathToFileURL(path.join(projectRoot, "tools/list_files.ts")).href)};
const [workspace, calls] = [process.argv[2], Number(process.argv[3])];
const answers = await Promise.all(Array.from({ length: calls }, () =>
  runWithToolContext({ workspace, signal: new AbortController().signal }, () => list_files("huge"))));
process.stdout.write(JSON.stringify({ answers: [...new Set(answers)], maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
`;

let box: Sandbox;

beforeAll(() => {
  box = makeSandbox();
  mkdirSync(path.join(box.ws, "huge"));
  for (let index = 0; index < ENTRIES; index += 1) closeSync(openSync(path.join(box.ws, "huge", name(index)), "w"));
  writeFileSync(path.join(box.base, "list-many.mts"), CHILD);
}, 120_000);
afterAll(() => box.remove(), 120_000);

function runChild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(box.base, "list-many.mts"), box.ws, String(CALLS)], {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("list_files on a huge directory, many calls at once", () => {
  it(`answers ${CALLS} parallel calls on ${ENTRIES.toLocaleString("en")} entries with the first 1,000 and a count, under ${CEILING_BYTES / 1024 ** 2} MB resident`, async () => {
    const { code, stdout, stderr } = await runChild();
    expect(code, stderr).toBe(0);
    const { answers, maxRssBytes } = JSON.parse(stdout) as { answers: string[]; maxRssBytes: number };
    console.info(`list_files memory: ${CALLS} calls × ${ENTRIES} entries, peak resident ${Math.round(maxRssBytes / 1024 ** 2)} MB`);
    expect(answers).toHaveLength(1);
    const lines = (answers[0] ?? "").split("\n");
    expect(lines).toHaveLength(1001);
    expect(lines.slice(0, 3)).toEqual([0, 1, 2].map((index) => `huge/${name(index)}`));
    expect(lines[999]).toBe(`huge/${name(999)}`);
    expect(lines[1000]).toBe(
      `[list_files: 1000 entries shown, ${ENTRIES - 1000} more left out. List a subdirectory, or use a smaller depth, to see the rest.]`,
    );
    expect(maxRssBytes).toBeLessThan(CEILING_BYTES);
  }, 180_000);
});
