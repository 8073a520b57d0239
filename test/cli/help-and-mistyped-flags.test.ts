/**
 * Every command answers `--help` and `-h`, wherever they stand, with its usage on stdout, exit 0 and
 * nothing else done; a mistyped flag names the flag meant (exit 2). The demo runs as a process (it would
 * start its server and a child), gen, the agent and the MCP server in-process.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runGen } from "../../src/gen/command/run-gen.js";
import { runMcp } from "../mcp/support.js";
import { projectRoot, runCliInProcess, tempDir } from "./support.js";

function gen(argv: string[], cwd: string): { code: unknown; stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const code = runGen(argv, { cwd, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

function demo(argv: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "demo.ts"), ...argv], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 30_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("--help and -h", () => {
  it("gen: the usage on stdout, exit 0, nothing written, also after other flags and with a bad one", () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "tools"));
    writeFileSync(path.join(dir, "tools", "t.ts"), "/** T. */\nexport function t(): string {\n  return \"\";\n}\n");
    for (const argv of [["--help"], ["--check", "-h"], ["--out", "x.json", "--frobnicate", "--help"]]) {
      const run = gen(argv, dir);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^usage: npm run gen -- \[--tools <dir>\] \[--out <file>\] \[--check \| --watch\]\n/);
      expect(run.stdout).toContain("--help, -h");
    }
    expect(existsSync(path.join(dir, "generated"))).toBe(false);
    expect(existsSync(path.join(dir, "x.json"))).toBe(false);
  }, 60_000);

  it("demo: the usage, exit 0, no demo run", () => {
    for (const argv of [["--help"], ["-h"]]) {
      const run = demo(argv);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^Usage: npm run demo -- \[--provider chat\|anthropic\|responses\]\n/);
      expect(run.stdout).not.toContain("SCRIPTED");
    }
  }, 60_000);

  it("agent: -h after a prompt and flags, before a missing key is noticed", async () => {
    for (const argv of [["-h"], ["hello", "--model", "m", "-h"], ["--max-turns", "zero", "--help"]]) {
      const run = await runCliInProcess(argv, { OPENAI_API_KEY: "" });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^Usage: npm run agent -- \[flags\] "prompt"\n/);
    }
    const prompt = await runCliInProcess(["--", "-h"], { OPENAI_API_KEY: "" });
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain("OPENAI_API_KEY is not set");
  });

  it("mcp: -h without --workspace", async () => {
    for (const argv of [["-h"], ["--schemas", "nowhere.json", "--help"]]) {
      const run = await runMcp(argv);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^Usage: npm run --silent mcp -- --workspace DIR \[flags\]\n/);
    }
  });
});

describe("a mistyped flag names the one meant, exit 2", () => {
  it("agent", async () => {
    const run = await runCliInProcess(["--modle", "m", "hi"], { OPENAI_API_KEY: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: unknown flag --modle (did you mean --model?)\nRun npm run agent -- --help for usage.\n");
    const single = await runCliInProcess(["-model", "m", "hi"], { OPENAI_API_KEY: "" });
    expect(single.stderr).toContain("unknown flag -model (did you mean --model?)");
    const far = await runCliInProcess(["--verbose", "hi"], { OPENAI_API_KEY: "" });
    expect(far.stderr).toContain("error: unknown flag --verbose\n");
  });

  it("mcp", async () => {
    const run = await runMcp(["--workspcae", "."]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toContain("error: unknown flag --workspcae (did you mean --workspace?)");
  });

  it("gen (an unknown flag that is no near miss stays exit 1, as every gen error)", () => {
    const dir = tempDir();
    const run = gen(["--chekc"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: unknown argument "--chekc" (did you mean --check?)\nusage: npm run gen --');
    const inline = gen(["--tool=src"], dir);
    expect(inline.code).toBe(2);
    expect(inline.stderr).toContain('unknown argument "--tool=src" (did you mean --tools?)');
  }, 60_000);

  it("demo", () => {
    const run = demo(["--hlep"]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toBe("error: unknown flag --hlep (did you mean --help?)\nRun npm run demo -- --help for usage.\n");
  }, 60_000);
});
