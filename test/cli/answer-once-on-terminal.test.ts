/**
 * On one terminal (stdout and stderr the same TTY) the answer appears once, as it streams; whenever stdout
 * is a pipe, a file or another terminal, stdout carries exactly the answer as before. `script` gives the
 * CLI a pseudo-terminal; a shell redirection inside it splits stdout or stderr off.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sameTerminal } from "../../src/cli/answer-output.js";
import { DEMO_ANSWER } from "../../src/demo/demo-script.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, SENTINEL_KEY, tempDir, writeFixtureSchemas } from "./support.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;
const ANSWER = "A streamed answer, shown once.";
let server: ScriptedServer;
let dir: string;
let schemas: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  dir = tempDir();
  schemas = writeFixtureSchemas(dir);
});
afterAll(() => server.close());
beforeEach(() => server.setScript([{ content: ANSWER, stream: { chunkSize: 4 } }]));

/** Runs a shell command line on a pseudo-terminal; resolves with what the terminal showed and the exit code. */
function onTerminal(commandLine: string, env: NodeJS.ProcessEnv): Promise<{ screen: string; code: number | null }> {
  const child = spawn("script", ["-qfec", commandLine, "/dev/null"], { cwd: projectRoot, env: { PATH: process.env.PATH, TERM: "dumb", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ screen: screen.replace(/\r\n/g, "\n"), code })));
}

const quoted = (parts: string[]) => parts.map((part) => `'${part}'`).join(" ");
const agent = (...argv: string[]) => quoted([process.execPath, "--import", "tsx", path.join(projectRoot, "scripts/agent.ts"), "--schemas", schemas, ...argv, "hi"]);
const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(!hasScript)("stdout and stderr on one terminal", () => {
  it("the streamed answer is not printed a second time", async () => {
    const { screen, code } = await onTerminal(agent(), cliEnv(server.baseURL));
    expect(code).toBe(0);
    expect(count(screen, ANSWER)).toBe(1);
    expect(screen).toMatch(/turn 1[^]*A streamed answer, shown once\.\n[^]*answered after 1 turn/);
    expect(screen).not.toContain(SENTINEL_KEY);
  }, 30_000);

  it("without streaming the answer is printed once, on stdout", async () => {
    const { screen, code } = await onTerminal(agent("--no-stream"), cliEnv(server.baseURL));
    expect(code).toBe(0);
    expect(count(screen, ANSWER)).toBe(1);
    expect(screen).toMatch(/answered after 1 turn[^]*\nA streamed answer, shown once\.\n$/);
  }, 30_000);

  it("npm run demo shows its answer once, after the progress that led to it", async () => {
    const demo = quoted([process.execPath, "--import", "tsx", path.join(projectRoot, "scripts/demo.ts")]);
    const { screen, code } = await onTerminal(demo, { NO_COLOR: "1" });
    expect(code).toBe(0);
    expect(count(screen, DEMO_ANSWER)).toBe(1);
    expect(screen.indexOf("▶ the scripted model's request 7")).toBeLessThan(screen.indexOf(DEMO_ANSWER));
    expect(screen.indexOf(DEMO_ANSWER)).toBeLessThan(screen.indexOf("answered after 7 turns"));
  }, 60_000);
});

describe.skipIf(!hasScript)("stdout elsewhere: nothing changes", () => {
  it("stdout to a file gets exactly the answer; the terminal shows it streamed", async () => {
    const out = path.join(dir, "answer.txt");
    const { screen, code } = await onTerminal(`${agent()} > '${out}'`, cliEnv(server.baseURL));
    expect(code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(`${ANSWER}\n`);
    expect(count(screen, ANSWER)).toBe(1);
  }, 30_000);

  it("stderr to a file: the answer is on the terminal's stdout, and streamed into the file", async () => {
    const err = path.join(dir, "progress.txt");
    const { screen, code } = await onTerminal(`${agent()} 2> '${err}'`, cliEnv(server.baseURL));
    expect(code).toBe(0);
    expect(screen).toBe(`${ANSWER}\n`);
    expect(count(readFileSync(err, "utf8"), ANSWER)).toBe(1);
  }, 30_000);
});

describe("sameTerminal", () => {
  const write = () => true;
  const marked = (fd?: number) => ({ write, isTTY: true, ...(fd !== undefined ? { fd } : {}) });

  it("needs both marked as TTYs, with descriptors", () => {
    const fd = openSync("/dev/null", "w");
    expect(sameTerminal({ write, fd }, { write, fd })).toBe(false);
    expect(sameTerminal(marked(), marked())).toBe(false);
    closeSync(fd);
  });

  it("compares the devices: one device is the same, two devices or regular files are not", () => {
    const nullA = openSync("/dev/null", "w");
    const nullB = openSync("/dev/null", "w");
    const zero = openSync("/dev/zero", "r");
    const file = openSync(path.join(dir, "not-a-terminal"), "w");
    expect(sameTerminal(marked(nullA), marked(nullB))).toBe(true);
    expect(sameTerminal(marked(nullA), marked(zero))).toBe(false);
    expect(sameTerminal(marked(file), marked(file))).toBe(false);
    [nullA, nullB, zero, file].forEach((fd) => closeSync(fd));
  });
});
