/**
 * `--transcript` or `--record` at a path where no file can be created (its folder missing, a part of its
 * path a file): exit 2 with the file and the cause in words, before any request is sent, never the
 * internal-error exit 70. Run as real processes, since what is checked is the exit code the user sees.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandLine } from "../../src/shared/package-layout.js";
import { cliEnv, spawnCli, tempDir, useCliFixture } from "./support.js";

const fx = useCliFixture();

describe("a transcript or cassette where no file can be created: exit 2, the cause in words, no request sent", () => {
  it.each([["--transcript", "transcript"], ["--record", "cassette"]])("%s: a missing folder (ENOENT) and a path through a file (ENOTDIR)", async (flag, what) => {
    const dir = tempDir();
    const file = path.join(dir, "file.txt");
    writeFileSync(file, "");
    const cases = [
      [path.join(dir, "nodir", "t.jsonl"), "its folder does not exist (ENOENT)"],
      [path.join(file, "x"), "a part of its path is a file, not a folder (ENOTDIR)"],
    ] as const;
    fx.server.setScript([{ content: "never sent" }]);
    const before = fx.server.requests.length;
    const runs = await Promise.all(cases.map(([transcript]) => spawnCli(["--schemas", fx.schemas, flag, transcript, "hi"], cliEnv(fx.server.baseURL)).done));
    for (const [index, [transcript, cause]] of cases.entries()) {
      const run = runs[index]!;
      fx.outputs.push(run.stdout, run.stderr);
      expect(run, run.stderr).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr).toBe(`error: cannot write the ${what} ${transcript}: ${cause}\nRun ${commandLine("agent", "--help")} for usage.\n`);
    }
    expect(fx.server.requests).toHaveLength(before);
  }, 30_000);
});
