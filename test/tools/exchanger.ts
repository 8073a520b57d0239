/**
 * A separate process that exchanges two names atomically (renameat2 RENAME_EXCHANGE), as fast as it can,
 * for the swap-race tests: a directory of the workspace and a symbolic link to an outside directory.
 */
import { spawn, spawnSync } from "node:child_process";

/** Exchanges two names atomically, an even number of times, until its time is up; prints the count. */
const EXCHANGER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
first, second, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
AT_FDCWD, RENAME_EXCHANGE = -100, 2
def exchange():
    if libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
exchange(); exchange()
print("ready", flush=True)
count = 2
end = time.monotonic() + seconds
while time.monotonic() < end:
    exchange(); exchange()
    count += 2
print(count, flush=True)
`;

/** Why this machine cannot run the race, or undefined when it can. */
export function cannotRace(): string | undefined {
  if (process.platform !== "linux") return "renameat2 and /proc are Linux-only";
  const probe = spawnSync("python3", ["-c", "import ctypes; ctypes.CDLL(None, use_errno=True).renameat2"], { encoding: "utf8" });
  if (probe.error !== undefined) return "python3 is not installed";
  if (probe.status !== 0) return "this C library has no renameat2";
  return undefined;
}

export interface Exchanger {
  exited: Promise<number | null>;
  /** `ready`, then the number of exchanges once it is done. */
  output(): string;
  errors(): string;
}

/** Starts exchanging `first` and `second` for `seconds`; resolves once the exchanges have begun. */
export async function startExchanger(first: string, second: string, seconds: number): Promise<Exchanger> {
  const exchanger = spawn("python3", ["-c", EXCHANGER, first, second, String(seconds)], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let errors = "";
  exchanger.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  exchanger.stderr.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<number | null>((resolve) => exchanger.on("close", resolve));
  await new Promise<void>((resolve) => {
    const ready = (): void => (output.startsWith("ready\n") ? resolve() : undefined);
    exchanger.stdout.on("data", ready);
    void exited.then(() => resolve());
  });
  return { exited, output: () => output, errors: () => errors };
}
