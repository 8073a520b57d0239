/**
 * Shared by the hardening tests: a folder holding one tool file and the schemas the real generator
 * writes for it, optionally edited afterwards the way a hostile schemas file would be (the staleness
 * record covers the sources, not the schemas, so an edited schema still loads).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach } from "vitest";
import { writeFixtureSchemas } from "../cli/support.js";
import { spawnRaw, tempDir, type RawRun } from "../mcp/support.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";

export interface ToolFolder {
  dir: string;
  toolsDir: string;
  schemas: string;
}

export function toolFolder(files: Record<string, string>, edit?: (schemas: SchemasFile) => void): ToolFolder {
  const dir = tempDir("sigloop-hardening-");
  const toolsDir = path.join(dir, "tools");
  mkdirSync(toolsDir);
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(toolsDir, name), source);
  const schemas = writeFixtureSchemas(dir, toolsDir);
  if (edit !== undefined) {
    const parsed = JSON.parse(readFileSync(schemas, "utf8")) as SchemasFile;
    edit(parsed);
    writeFileSync(schemas, JSON.stringify(parsed));
  }
  return { dir, toolsDir, schemas };
}

/** Starts real MCP servers (`spawnRaw`), each killed after its test whatever happened. */
export function serversKilledAfterEach(): (args: readonly string[]) => RawRun {
  const started: RawRun[] = [];
  afterEach(async () => {
    for (const run of started.splice(0)) {
      run.child.kill("SIGKILL");
      await run.exit;
    }
  });
  return (args) => {
    const run = spawnRaw(args);
    started.push(run);
    return run;
  };
}
