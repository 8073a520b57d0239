import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { DEMO_ANSWER } from "../../src/demo/demo-script.js";
import { projectRoot } from "./support.js";

it.each([[[]], [["--provider", "anthropic"]], [["--provider", "responses"]]])("npm run demo %j: the real CLI recovers from every scripted mistake, says the model is scripted, and answers", async (flags: string[]) => {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts/demo.ts"), ...flags], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr).toContain("the model is SCRIPTED");
  // Each request is narrated as it arrives, right after the CLI's line for its turn.
  expect(stderr).toContain("turn 1 (at most 10 per prompt)\n▶ the scripted model's request 1: arguments that are not valid JSON\n");
  expect(stderr).toContain("turn 7 (at most 10 per prompt)\n▶ the scripted model's request 7: none: it answers\n");
  expect(code).toBe(0);
  expect(stdout).toBe(`${DEMO_ANSWER}\n`);
  for (const recovery of [
    "were not valid JSON",
    "must be a JSON object",
    'There is no tool named "open_file". Available tools:',
    "[ignored unknown arguments: verbose]",
    "path: missing",
    'cut off by the token limit (finish_reason "length")',
    "← read_file invalid_arguments: The tool read_file rejected its arguments, so it has no result:",
    '- path: ENOENT: no such file or directory: "docs/no-such-file.md"',
    "answered after 7 turns",
  ]) {
    expect(stderr).toContain(recovery);
  }
}, 60_000);
