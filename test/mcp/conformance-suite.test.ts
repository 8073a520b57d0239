/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against `sigloop mcp
 * --http`: each scenario for what sigloop offers runs as the suite's own process against the real server
 * serving tools written for the suite (test/mcp/fixtures/conformance-tools), and must exit 0 with every
 * check a success. Every other scenario of the suite must be listed in docs/mcp.md as not offered, so a
 * new version of the suite cannot add a scenario nobody decided about.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFixtureSchemas } from "../cli/support.js";
import { startHttpServer, type HttpServerRun } from "./http-support.js";
import { projectRoot, tempDir } from "./support.js";

const conformanceTools = path.join(projectRoot, "test/mcp/fixtures/conformance-tools");

/** The scenarios sigloop passes; the rest are in docs/mcp.md's table of scenarios not offered. */
const passing = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "json-schema-2020-12",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

const conformanceBin = (() => {
  const packageJson = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json");
  const { bin } = JSON.parse(readFileSync(packageJson, "utf8")) as { bin: { conformance: string } };
  return path.join(path.dirname(packageJson), bin.conformance);
})();

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
}

/** The scenario names in the first column of docs/mcp.md's table of scenarios not offered. */
function documentedNotOffered(): string[] {
  const docs = readFileSync(path.join(projectRoot, "docs/mcp.md"), "utf8");
  const section = /\n### Scenarios not offered\n([\s\S]*?)(?=\n##|$(?![\s\S]))/.exec(docs)?.[1] ?? "";
  return section.split("\n").flatMap((line) => /^\| ([^|]+) \|/.exec(line)?.[1]?.match(/`[a-z0-9-]+`/g) ?? []).map((name) => name.slice(1, -1));
}

const notOffered = documentedNotOffered();

/** What one run of the whole suite did: its exit code, its output, and the checks of each scenario it saved. */
interface SuiteRun {
  code: number | null;
  output: string;
  checks: Map<string, Check[]>;
}

/**
 * Runs every scenario of the suite, one after the other in one process, against `url`, with the
 * scenarios not offered as its expected failures: it exits 0 only when every other scenario passes
 * (no failure, no warning) and each of those fails.
 */
async function runSuite(url: string): Promise<SuiteRun> {
  const dir = tempDir("sigloop-conformance-");
  const baseline = path.join(dir, "not-offered.yml");
  writeFileSync(baseline, `server:\n${notOffered.map((name) => `  - ${name}\n`).join("")}`);
  const results = path.join(dir, "results");
  const child = spawn(process.execPath, [conformanceBin, "server", "--url", url, "--suite", "all", "--expected-failures", baseline, "-o", results], {
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const checks = new Map<string, Check[]>();
  for (const result of readdirSync(results)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(result)?.[1] ?? result;
    checks.set(scenario, JSON.parse(readFileSync(path.join(results, result, "checks.json"), "utf8")) as Check[]);
  }
  return { code, output, checks };
}

let server: HttpServerRun;
let suite: SuiteRun;

beforeAll(async () => {
  const dir = tempDir();
  const schemas = writeFixtureSchemas(dir, conformanceTools);
  server = await startHttpServer(["--workspace", dir, "--schemas", schemas, "--http", "127.0.0.1:0"]);
  suite = await runSuite(server.url);
}, 120_000);
afterAll(async () => {
  expect((await server.stop()).code).toBe(143);
});

describe("the conformance suite against sigloop mcp --http", () => {
  for (const scenario of passing) {
    it(`passes ${scenario}`, () => {
      const checks = suite.checks.get(scenario) ?? [];
      const failed = checks.filter((check) => check.status !== "SUCCESS" && check.status !== "INFO");
      expect(failed).toStrictEqual([]);
      expect(checks.some((check) => check.status === "SUCCESS")).toBe(true);
    });
  }

  it("fails exactly the scenarios docs/mcp.md lists as not offered, and runs no other", () => {
    expect(notOffered.length).toBeGreaterThan(10);
    expect(notOffered.filter((name) => passing.includes(name))).toStrictEqual([]);
    expect([...suite.checks.keys()].sort()).toStrictEqual([...passing, ...notOffered].sort());
    expect(suite.code, suite.output).toBe(0);
  });
});
