/**
 * `--transcript`, `--resume` and `--schemas` given something that is not a regular file: a device that
 * never ends (`/dev/zero`) or never takes a write (`/dev/full`), a FIFO nobody writes to, a directory.
 * Each is refused with exit 2 and a clear message, at once. Run as real processes with a deadline: the
 * failure these guard against is a process that blocks or grows forever, which would take a test worker
 * down with it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadSchemas } from "../../src/runtime/execution/load-schemas.js";
import { openTranscript, readTranscript } from "../../src/runtime/loop/transcript.js";
import { cliEnv, spawnCli, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();
const DEADLINE_MS = 15_000;
let fifo = "";
let directory = "";

beforeAll(() => {
  fifo = path.join(fx.dir, "pipe");
  execFileSync("mkfifo", [fifo]);
  directory = path.join(fx.dir, "a-directory");
  mkdirSync(directory);
});

/** The real CLI, killed if it is still running after the deadline (then `code` is 137). */
async function agent(argv: string[]): Promise<CliRun> {
  const child = spawnCli(argv, cliEnv(fx.server.baseURL));
  const timer = setTimeout(() => child.kill("SIGKILL"), DEADLINE_MS);
  const run = await child.done;
  clearTimeout(timer);
  fx.outputs.push(run.stdout, run.stderr);
  return run;
}

const kinds = () => [
  ["/dev/full", "a character device"],
  ["/dev/zero", "a character device"],
  [fifo, "a FIFO (named pipe)"],
  [directory, "a directory"],
] as const;

describe("the CLI refuses what is not a regular file: exit 2, no request sent", () => {
  it.each(["--transcript", "--resume", "--schemas"])("%s", async (flag) => {
    const before = fx.server.requests.length;
    const schemas = flag === "--schemas" ? [] : ["--schemas", fx.schemas];
    const runs = await Promise.all(kinds().map(([file]) => agent([...schemas, "hi", flag, file])));
    for (const [index, [file, kind]] of kinds().entries()) {
      const run = runs[index];
      expect(run?.code, `${flag} ${file}: ${run?.stderr}`).toBe(2);
      expect(run?.stdout).toBe("");
      expect(run?.stderr).toContain(`${file} is ${kind}, not a regular file`);
      expect(run?.stderr).toContain(flag);
      expect(run?.stderr).not.toContain("out of date");
    }
    expect(fx.server.requests).toHaveLength(before);
  }, 4 * DEADLINE_MS);

  it("a new transcript file is still created", async () => {
    fx.server.setScript([{ content: "hello" }]);
    const file = path.join(fx.dir, "new", "..", "fresh.jsonl");
    const run = await agent(["--schemas", fx.schemas, "hi", "--transcript", file]);
    expect(run).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(existsSync(path.join(fx.dir, "fresh.jsonl"))).toBe(true);
  }, DEADLINE_MS);
});

describe("the library functions refuse them too, without opening a FIFO or reading a device", () => {
  it("readTranscript, openTranscript, loadSchemas", () => {
    for (const [file, kind] of [["/dev/zero", "a character device"], [fifo, "a FIFO (named pipe)"], [directory, "a directory"]] as const) {
      expect(readTranscript(file)).toEqual({ ok: false, error: `cannot read transcript: ${file} is ${kind}, not a regular file` });
      expect(() => openTranscript(file)).toThrow(`${file} is ${kind}, not a regular file`);
      expect(loadSchemas(file)).toEqual({ ok: false, error: { message: `${file} is ${kind}, not a regular file: give the path of the schemas file npm run gen writes.` } });
    }
  });

  it("openTranscript appends to a regular file and starts a torn one on a fresh line", () => {
    const file = path.join(fx.dir, "torn.jsonl");
    writeFileSync(file, '{"role":"user","content":"a"}\n{"role":"assi');
    const writer = openTranscript(file);
    writer.append({ role: "user", content: "b" });
    writer.close();
    expect(readTranscript(file)).toMatchObject({ ok: true, messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] });
  });
});
