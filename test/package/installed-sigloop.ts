/**
 * The real package in a user's project: `npm pack` of this repository (its `prepack` builds dist/), then a
 * fresh project (`npm init -y` as ESM or CommonJS) with the tarball installed as a dev dependency. Installs
 * prefer the npm cache, which `npm ci` of this repository has filled with every dependency. Used by the
 * packaging tests and by `npm run bench` (start-up of the installed bin).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without blocking this process (a scripted server may be serving it). */
export function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function mustRun(command: string, args: readonly string[], cwd: string): Promise<ProcessResult> {
  const result = await run(command, args, { cwd });
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.code}): ${result.stderr.slice(-2000)}`);
  return result;
}

/** `npm pack` into a new temporary folder; returns the tarball's path. */
export async function packSigloop(): Promise<string> {
  const dest = mkdtempSync(path.join(tmpdir(), "sigloop-pack-"));
  await mustRun("npm", ["pack", "--silent", "--pack-destination", dest], repoRoot);
  const { version } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
  return path.join(dest, `sigloop-${version}.tgz`);
}

/** A new project folder with `package.json` of that module kind and the tarball installed (`npm i -D`). */
export async function createProject(tarball: string, kind: "module" | "commonjs"): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), `sigloop-project-${kind}-`));
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "user-project", version: "1.0.0", private: true, type: kind }, null, 2)}\n`);
  await mustRun("npm", ["install", "--save-dev", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], dir);
  return dir;
}

/** Writes files (path relative to the project → text), creating folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** The installed bin, run directly as `node_modules/.bin/sigloop` (not through npx). */
export function binPath(project: string): string {
  return path.join(project, "node_modules", ".bin", "sigloop");
}
