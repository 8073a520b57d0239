/**
 * How a stdio server is started: the leader of a process group of its own, in the agent's session where
 * the launcher can run (Linux with perl), in a session of its own otherwise; a command that cannot run
 * fails as Node's own spawn does (`ENOENT`, `EACCES`), whichever way it was started.
 */
import { accessSync, constants, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { spawnGroupLeader } from "../../../src/runtime/mcp-client/spawn-group-leader.js";
import { tempDir } from "../../cli/support.js";

const linux = process.platform === "linux";
const perlOnPath = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "").some((dir) => {
  try {
    accessSync(path.join(dir, "perl"), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

/** `/proc/<pid>/stat`'s process group and session (fields 5 and 6, after the parenthesised name). */
function groupAndSession(pid: number | "self"): { pgid: number; sid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [, , pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgid: Number(pgid), sid: Number(sid) };
}

/** Starts a node program that prints its own and its child's group and session, then waits for stdin to end. */
async function startReporter(env: Record<string, string>): Promise<{ pid: number; lines: Promise<string>; end(): Promise<void> }> {
  const program = [
    "const { spawn } = require('node:child_process');",
    "const { readFileSync } = require('node:fs');",
    "const ids = (pid) => { const s = readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return f[2] + ' ' + f[3]; };",
    "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });",
    "console.log(process.pid + ' ' + ids(process.pid) + ' ' + ids(child.pid));",
    "process.stdin.on('end', () => { child.kill(); process.exit(0); }).resume();",
  ].join("\n");
  const { child, started } = spawnGroupLeader(process.execPath, ["-e", program], { env: { PATH: process.env.PATH ?? "", ...env } });
  await started;
  let out = "";
  const lines = new Promise<string>((resolve) => {
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      out += text;
      if (out.includes("\n")) resolve(out.trim());
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid!,
    lines,
    end: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

describe.runIf(linux)("a server's process group", () => {
  it.runIf(perlOnPath)("leads a group of its own inside the agent's session, and what it starts is in that group", async () => {
    const reporter = await startReporter({});
    const [pid, pgid, sid, childPgid, childSid] = (await reporter.lines).split(" ").map(Number);
    await reporter.end();
    const ours = groupAndSession("self");
    expect(pid).toBe(reporter.pid);
    expect(pgid).toBe(pid);
    expect(pgid).not.toBe(ours.pgid);
    expect(sid).toBe(ours.sid);
    expect([childPgid, childSid]).toEqual([pgid, ours.sid]);
  });

  it("a server whose env sets PERL variables (which would steer the launcher) leads a session of its own instead", async () => {
    const reporter = await startReporter({ PERL5OPT: "-Mstrict" });
    const [pid, pgid, sid, childPgid] = (await reporter.lines).split(" ").map(Number);
    await reporter.end();
    expect([pgid, sid, childPgid]).toEqual([pid, pid, pid]);
    expect(sid).not.toBe(groupAndSession("self").sid);
  });
});

describe("a command that cannot run", () => {
  const ways = [
    ["through the launcher", {}],
    ["in a session of its own", { PERL5LIB: "/nowhere" }],
  ] as const;
  for (const [way, env] of ways) {
    it(`fails as Node's spawn does, ${way}: ENOENT for a missing one, EACCES for a file that is not executable`, async () => {
      const missing = path.join(tempDir(), "no-such-server");
      await expect(spawnGroupLeader(missing, ["stdio"], { env: { ...env } }).started).rejects.toMatchObject({ code: "ENOENT", message: `spawn ${missing} ENOENT` });
      const plain = path.join(tempDir(), "server.txt");
      writeFileSync(plain, "not a program\n", { mode: 0o644 });
      await expect(spawnGroupLeader(plain, [], { env: { ...env } }).started).rejects.toMatchObject({ code: "EACCES", message: `spawn ${plain} EACCES` });
    });
  }
});
