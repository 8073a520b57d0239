/**
 * What `npm run mcp` says and exits with before serving anything: usage, a missing workspace, unknown
 * flags, missing or stale schemas. Run in-process (the same function the script calls).
 */
import { appendFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureCopy, projectRoot, runMcp, tempDir } from "./support.js";

describe("start-up refusals", () => {
  it("prints usage with --help, its exit codes among it", async () => {
    const run = await runMcp(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run --silent mcp -- --workspace DIR \[flags\]\n/);
    expect(run.stdout).toContain("130 SIGINT, 141 stderr closed by its reader, 143 SIGTERM.");
    expect(run.stderr).toBe("");
  });

  it("refuses to start without --workspace (exit 2, naming the flag)", async () => {
    const run = await runMcp([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "error: --workspace DIR is required: MCP clients start servers from / or the home folder, so name the only directory the tools may touch\nRun npm run mcp -- --help for usage.\n",
    );
  });

  it("refuses flags of the agent, a prompt, a bad timeout and a workspace that is not a directory (exit 2)", async () => {
    const workspace = tempDir();
    expect((await runMcp(["--workspace", workspace, "--model", "x"])).stderr).toMatch(/^error: unknown flag --model\n/);
    expect((await runMcp(["--workspace", workspace, "hello"])).stderr).toMatch(/^error: npm run mcp takes flags only, got "hello"\n/);
    expect((await runMcp(["--workspace", workspace, "--tool-timeout=soon"])).stderr).toMatch(/^error: --tool-timeout needs a whole number of at least 1, got "soon"\n/);
    const device = await runMcp(["--workspace", workspace, "--schemas", "/dev/null"]);
    expect(device.code).toBe(2);
    expect(device.stderr).toMatch(/^error: .*\/dev\/null.* \(--schemas\): give the schemas file npm run gen writes\n/);
    const missing = path.join(workspace, "nope");
    const run = await runMcp(["--workspace", missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^error: the workspace ${missing} is not a directory \\(--workspace\\)\\n`));
  });

  it("refuses missing or stale schemas with exit 5 and 'run npm run gen' on stderr, before serving", async () => {
    const missingFile = path.join(tempDir(), "schemas.json");
    const missing = await runMcp(["--workspace", tempDir(), "--schemas", missingFile]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toBe(`error: ${missingFile} does not exist: run npm run gen -- --out ${missingFile} to generate the tool schemas.\n`);
    const copy = fixtureCopy();
    appendFileSync(path.join(copy.toolsDir, "arithmetic.ts"), "\n// changed after gen\n");
    const stale = await runMcp(["--workspace", copy.dir, "--schemas", copy.schemas]);
    expect(stale.code).toBe(5);
    expect(stale.stdout).toBe("");
    expect(stale.stderr).toBe(`error: ${copy.schemas} is out of date: the tool sources changed since it was generated. Run npm run gen -- --tools ${copy.toolsDir} --out ${copy.schemas} to regenerate it.\n`);
  });

  it("shows control characters in what it prints escaped, as the agent's progress does", async () => {
    const missing = path.join(tempDir(), "\u001b]0;pwned\u0007schemas.json");
    const run = await runMcp(["--workspace", tempDir(), "--schemas", missing]);
    expect(run.code).toBe(5);
    expect(run.stderr).toBe(
      `error: ${path.dirname(missing)}/\\x1b]0;pwned\\x07schemas.json does not exist: run npm run gen -- --out '${path.dirname(missing)}/\\x1b]0;pwned\\x07schemas.json' to generate the tool schemas.\n`,
    );
  });
});
