/**
 * Starts a program as the leader of a new process group (its pid is the group's id), so that a
 * terminal's Ctrl-C does not reach it and the whole group can be signalled as one. `started` resolves
 * once the program itself runs, and rejects as Node's `spawn` does (an `Error` with `code` `ENOENT`,
 * `EACCES`, …) when it cannot.
 *
 * Node offers one way to make a group: `detached`, which calls `setsid()`: a new session as well. On
 * Linux a new session also gets a scheduling group of its own (autogroup), and every request/response
 * round trip between two scheduling groups waits longer for the CPU (about twice as long per MCP call
 * on a loaded machine). So on Linux, where `perl` is on our PATH (Debian and Ubuntu always have it), a
 * one-line perl launcher calls `setpgid(0, 0)` alone and `exec`s the program: a group of its own, in our
 * session. It reports a failed `exec` through a close-on-exec pipe (fd 3), whose end without a word
 * means the program runs. Elsewhere (no perl, macOS, where sessions cost nothing, a server whose `env`
 * sets `PERL…` variables that would steer the launcher) it is `detached`. On Windows there are no groups.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants as fsConstants } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";

export interface GroupLeader {
  child: ChildProcess;
  started: Promise<void>;
}

export interface GroupLeaderOptions {
  env: Readonly<Record<string, string>>;
  cwd?: string;
}

const POSIX = process.platform !== "win32";
/** `setpgid(0, 0)`, then `exec` without a shell; on failure the errno goes to fd 3 (closed on a successful exec). */
const LAUNCHER = "open(my $r, '>&=', 3) or exit 126; setpgrp(0, 0); exec { $ARGV[0] } @ARGV; print {$r} $! + 0; exit 127";

let perl: string | null | undefined;

/** The perl the launcher runs, found once on our own PATH; null where there is none or it is not wanted. */
function launcherPerl(): string | null {
  if (perl !== undefined) return perl;
  perl = null;
  if (process.platform !== "linux") return perl;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, "perl");
    try {
      accessSync(candidate, fsConstants.X_OK);
      perl = candidate;
      break;
    } catch {
      // not in this directory
    }
  }
  return perl;
}

export function spawnGroupLeader(command: string, args: readonly string[], options: GroupLeaderOptions): GroupLeader {
  const common = { env: { ...options.env }, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), windowsHide: true };
  const launcher = launcherPerl();
  const steersPerl = Object.keys(options.env).some((name) => name.startsWith("PERL"));
  if (launcher === null || steersPerl) {
    const child = spawn(command, [...args], { ...common, stdio: ["pipe", "pipe", "pipe"], detached: POSIX });
    const started = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.on("error", reject);
    });
    return { child, started };
  }
  const child = spawn(launcher, ["-e", LAUNCHER, "--", command, ...args], { ...common, stdio: ["pipe", "pipe", "pipe", "pipe"] });
  const started = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    const report = child.stdio[3];
    if (!(report instanceof Readable)) return reject(new Error("the launcher's report pipe is missing"));
    let errno = "";
    report.setEncoding("utf8");
    report.on("data", (text: string) => (errno += text));
    report.on("error", () => undefined);
    report.once("end", () => {
      if (errno === "") return resolve();
      reject(execError(command, args, Number(errno)));
    });
  });
  return { child, started };
}

/** The error Node's own `spawn` gives for the same errno (`spawn x ENOENT`, code `ENOENT`). */
function execError(command: string, args: readonly string[], errno: number): NodeJS.ErrnoException {
  const code = Object.entries(osConstants.errno).find(([, value]) => value === errno)?.[0] ?? `errno ${errno}`;
  return Object.assign(new Error(`spawn ${command} ${code}`), { code, errno: -errno, syscall: `spawn ${command}`, path: command, spawnargs: [...args] });
}
