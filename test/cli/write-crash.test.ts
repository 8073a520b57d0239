/**
 * Crash safety through the real CLI as a process: a turn of many large write_file calls, the process
 * SIGKILLed at a random moment; every file is then whole old or whole new, never a mix or a cut, and a
 * later run that writes the same files leaves no temporary file behind.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { cliEnv, spawnCli, tempDir } from "./support.js";
import { useBuiltInTools } from "../tools/file-tools-support.js";

const FILES = 8;
const SIZE = 1024 * 1024;
const tools = useBuiltInTools();

/** About 1 MB of lines that say which file and which version they belong to; `extra` changes the length. */
function content(file: number, version: string, extra: number): string {
  const line = `${version} of file ${file} ${"-".repeat(40)}\n`;
  return line.repeat(Math.ceil(SIZE / line.length) + extra);
}

function turnWriting(version: string, extra: number) {
  return {
    toolCalls: Array.from({ length: FILES }, (_, file) => ({
      id: `${version}-${file}`,
      name: "write_file",
      arguments: JSON.stringify({ path: `f${file}.txt`, content: content(file, version, extra) }),
    })),
  };
}

const flags = (ws: string) => ["--schemas", tools.schemas(), "--workspace", ws, "--allow", "write_file", "--no-stream", "--max-response-bytes", String(64 * 1024 * 1024), "write"];

it("a SIGKILL at any moment of many large writes leaves each file whole, old or new; the next write removes what was left", async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 1500 }), async (delayMs) => {
      const ws = tempDir();
      for (let file = 0; file < FILES; file += 1) writeFileSync(path.join(ws, `f${file}.txt`), content(file, "old", 0));
      tools.server().setScript([turnWriting("new", 3), { content: "done" }]);
      const before = tools.server().requests.length;
      const child = spawnCli(flags(ws), cliEnv(tools.server().baseURL));
      await tools.server().waitForRequests(before + 1, 30_000);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      child.kill("SIGKILL");
      await child.done;
      for (let file = 0; file < FILES; file += 1) {
        const text = readFileSync(path.join(ws, `f${file}.txt`), "utf8");
        expect([content(file, "old", 0), content(file, "new", 3)]).toContain(text);
      }

      tools.server().setScript([turnWriting("again", 1), { content: "done" }]);
      const restart = await spawnCli(flags(ws), cliEnv(tools.server().baseURL)).done;
      expect(restart.code).toBe(0);
      expect(readdirSync(ws).sort()).toEqual(Array.from({ length: FILES }, (_, file) => `f${file}.txt`).sort());
      for (let file = 0; file < FILES; file += 1) expect(readFileSync(path.join(ws, `f${file}.txt`), "utf8")).toBe(content(file, "again", 1));
    }),
    { numRuns: 6 },
  );
}, 240_000);
