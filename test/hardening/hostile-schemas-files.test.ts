/**
 * A schemas file can bind only what gen can have written: a `*.ts` tool file directly in its tools
 * folder, whose real path stays there. Forged files (bindings to any module, a `.d.ts`, a file in a
 * subfolder, a link out of the folder), with a forged staleness record that today's check accepts, are
 * refused by the real MCP server and the real agent CLI before anything is imported (exit 5).
 */
import { existsSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { spawnCli } from "../cli/support.js";
import { spawnRaw, tempDir } from "../mcp/support.js";
import { currentInputsHash } from "../../src/shared/inputs-hash.js";

/** A module that leaves a mark when imported: the proof that a refused file was never loaded. */
function markingModule(file: string, mark: string): void {
  writeFileSync(file, `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(mark)}, "imported");\nexport function evil() { return "ran"; }\n`);
}

/** A schemas file binding tool `evil` to `bound`, its staleness record forged so that the check passes. */
function forgedSchemas(dir: string, bound: string, toolsDir: string): string {
  const file = path.join(dir, "evil.json");
  const schemas = {
    tools: [{ type: "function", function: { name: "evil", description: "", parameters: { type: "object", properties: {}, required: [] } } }],
    bindings: [{ name: "evil", file: bound, exportName: "evil", call: { kind: "positional", params: [] } }],
    inputs: { toolsDir, files: [], hash: currentInputsHash(dir, { toolsDir, files: [] }) ?? "" },
  };
  writeFileSync(file, JSON.stringify(schemas));
  return file;
}


interface Case {
  what: string;
  bound: string;
  toolsDir: string;
  setUp(dir: string, mark: string): void;
}

const cases: Case[] = [
  { what: "an installed module's file", bound: "evil.mjs", toolsDir: ".", setUp: (dir, mark) => markingModule(path.join(dir, "evil.mjs"), mark) },
  {
    what: "a .ts file in a subfolder of the tools folder",
    bound: "tools/deeper/evil.ts",
    toolsDir: "tools",
    setUp: (dir, mark) => {
      mkdirSync(path.join(dir, "tools/deeper"), { recursive: true });
      markingModule(path.join(dir, "tools/deeper/evil.ts"), mark);
    },
  },
  {
    what: "a link in the tools folder to a file outside it",
    bound: "tools/evil.ts",
    toolsDir: "tools",
    setUp: (dir, mark) => {
      mkdirSync(path.join(dir, "tools"));
      markingModule(path.join(dir, "outside.ts"), mark);
      symlinkSync(path.join(dir, "outside.ts"), path.join(dir, "tools/evil.ts"));
    },
  },
  {
    what: "a .d.ts file",
    bound: "tools/evil.d.ts",
    toolsDir: "tools",
    setUp: (dir, mark) => {
      mkdirSync(path.join(dir, "tools"));
      markingModule(path.join(dir, "tools/evil.d.ts"), mark);
    },
  },
];

describe("a schemas file binds only tool files of its tools folder", () => {
  for (const testCase of cases) {
    it(`the MCP server refuses one binding ${testCase.what} before serving (exit 5, naming tool and file)`, async () => {
      const dir = tempDir();
      const mark = path.join(dir, "imported.txt");
      testCase.setUp(dir, mark);
      const schemas = forgedSchemas(dir, testCase.bound, testCase.toolsDir);
      const run = spawnRaw(["--workspace", dir, "--schemas", schemas]);
      run.child.stdin.end();
      const { code } = await run.exit;
      expect(code).toBe(5);
      expect(run.stderr()).toContain(`cannot be served: tool evil is bound to ${testCase.bound}, which is not a tool file of its tools folder ${testCase.toolsDir}`);
      expect(run.messages).toEqual([]);
      expect(existsSync(mark)).toBe(false);
    });
  }

  it("the agent CLI refuses it before any request or import (exit 5)", async () => {
    const dir = tempDir();
    const mark = path.join(dir, "imported.txt");
    cases[0]!.setUp(dir, mark);
    const schemas = forgedSchemas(dir, "evil.mjs", ".");
    const run = await spawnCli(["--schemas", schemas, "--workspace", dir, "call evil"], { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }).done;
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("error: ");
    expect(run.stderr).toContain("tool evil is bound to evil.mjs, which is not a tool file of its tools folder .");
    expect(run.stdout).toBe("");
    expect(existsSync(mark)).toBe(false);
  });

  it("a folder with a real tool file still binds it", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "tools"));
    writeFileSync(path.join(dir, "tools/evil.ts"), "export function evil() { return 1; }\n");
    const schemas = forgedSchemas(dir, "tools/evil.ts", "tools");
    const run = spawnRaw(["--workspace", dir, "--schemas", schemas]);
    await run.request(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  });
});

describe("an oversized schemas file", () => {
  it("is refused at once by the MCP server and the agent, naming its size and the limit (exit 5)", async () => {
    const dir = tempDir();
    const schemas = path.join(dir, "huge.json");
    writeFileSync(schemas, "");
    truncateSync(schemas, 67_108_865);
    const mcp = spawnRaw(["--workspace", dir, "--schemas", schemas]);
    mcp.child.stdin.end();
    expect((await mcp.exit).code).toBe(5);
    expect(mcp.stderr()).toContain(`error: ${schemas} is 67108865 bytes, over the limit of 67108864 for a schemas file, so it was not read: run npm run gen -- --out ${schemas} to write it again.\n`);
    const agent = await spawnCli(["--schemas", schemas, "--workspace", dir, "hi"], { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }).done;
    expect(agent.code).toBe(5);
    expect(agent.stderr).toContain("is 67108865 bytes, over the limit of 67108864 for a schemas file");
  });
});
