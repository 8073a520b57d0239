/**
 * `.env` in the project root supplies OPENAI_API_KEY, OPENAI_BASE_URL and AGENT_MODEL; the real
 * environment wins over it. Run against a throwaway project root (the CLI entry copied, the sources
 * linked) so that the repository's own `.env`, if a developer has one, is neither read nor touched.
 */
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { projectRoot, SENTINEL_KEY, tempDir, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();

function throwawayProject(dotenv: string): string {
  const root = tempDir();
  mkdirSync(path.join(root, "scripts"));
  copyFileSync(path.join(projectRoot, "scripts/agent.ts"), path.join(root, "scripts/agent.ts"));
  for (const linked of ["src", "node_modules"]) symlinkSync(path.join(projectRoot, linked), path.join(root, linked));
  writeFileSync(path.join(root, "package.json"), '{ "type": "module" }\n');
  writeFileSync(path.join(root, ".env"), dotenv);
  return root;
}

function runEntry(root: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/agent.ts"), "--schemas", fx.schemas, "--no-stream", "hi"], {
    cwd: root,
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

it("reads the key, endpoint and model from .env in the project root; the environment wins", async () => {
  const root = throwawayProject(`OPENAI_API_KEY=${SENTINEL_KEY}\nOPENAI_BASE_URL=${fx.server.baseURL}\nAGENT_MODEL=model-from-dotenv\n`);
  fx.server.setScript([{ content: "from .env" }, { content: "from the environment" }]);

  const fromDotenv = await runEntry(root, {});
  fx.outputs.push(fromDotenv.stdout, fromDotenv.stderr);
  expect(fromDotenv).toMatchObject({ code: 0, stdout: "from .env\n" });
  expect(fx.server.requests.at(-1)?.body).toMatchObject({ model: "model-from-dotenv" });
  expect(fx.server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SENTINEL_KEY}`);

  const overridden = await runEntry(root, { AGENT_MODEL: "model-from-env" });
  fx.outputs.push(overridden.stdout, overridden.stderr);
  expect(overridden).toMatchObject({ code: 0, stdout: "from the environment\n" });
  expect(fx.server.requests.at(-1)?.body).toMatchObject({ model: "model-from-env" });
});
