/**
 * The project a package user has: the packed tarball installed into a fresh ES module project whose one
 * tool file re-exports the built-in tools (all five, the tools `npm run agent` offers here, so that both
 * sigloop columns of a bench send the same definitions), generated with the installed bin. Packed and installed once
 * per bench process (the gen, per-turn and start-up sections share it); the folder is left in the
 * system's temporary directory like the packaging tests' projects.
 */
import { binPath, createProject, packSigloop, run, writeFiles } from "../test/package/installed-sigloop.js";

let installed: Promise<string> | undefined;

export function installedProject(): Promise<string> {
  installed ??= install();
  return installed;
}

async function install(): Promise<string> {
  process.stderr.write("bench: packing sigloop and installing it into a fresh project…\n");
  const project = await createProject(await packSigloop(), "module");
  writeFiles(project, { "tools/built_in.ts": `export { edit_file, get_time, list_files, read_file, write_file } from "sigloop/tools";\n` });
  const gen = await run(binPath(project), ["gen"], { cwd: project });
  if (gen.code !== 0) throw new Error(`sigloop gen in the installed project failed: ${gen.stderr}`);
  return project;
}

export { binPath };
