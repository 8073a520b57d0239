/**
 * Imports a tool module by file URL. Tool files are TypeScript. Run from this repository's sources (tsx,
 * vitest) a TypeScript loader is already in place and a plain `import()` does. Run compiled (the installed
 * `sigloop` bin, or a program using the library), the first TypeScript module imported registers tsx's
 * loaders, for ES modules and CommonJS alike, so the start-up of a run that calls no tool never pays for
 * them and the user installs nothing besides sigloop. Registration is process-wide: a tool and the files
 * it imports load once, in the same module graph as the rest of the program.
 */
import { compiled } from "../../shared/package-layout.js";

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

let loaders: Promise<void> | undefined;

export async function importToolModule(url: string): Promise<unknown> {
  if (compiled && TYPESCRIPT_FILE.test(new URL(url).pathname)) await (loaders ??= registerTypeScriptLoaders());
  return import(url);
}

async function registerTypeScriptLoaders(): Promise<void> {
  const [esm, cjs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  esm.register();
  cjs.register();
}
