/**
 * Imports a tool module by file URL. Tool files are TypeScript. Run from this repository's sources by tsx
 * or vitest, a TypeScript loader is already in place and a plain `import()` does. Run as plain JavaScript
 * (the installed `sigloop` bin, a program using the library, or `npm run agent`, whose sources are
 * bundled), the first TypeScript module imported registers tsx's loaders, for ES modules and CommonJS
 * alike, so the start-up of a run that calls no tool never pays for them and the user installs nothing
 * besides sigloop. Registration is process-wide: a tool and the files it imports load once, in the same
 * module graph as the rest of the program.
 */
import { typeScriptNeedsLoader } from "../../shared/package-layout.js";

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

let loaders: Promise<void> | undefined;

export async function importToolModule(url: string): Promise<unknown> {
  if (typeScriptNeedsLoader && TYPESCRIPT_FILE.test(new URL(url).pathname)) await (loaders ??= registerTypeScriptLoaders());
  return import(url);
}

async function registerTypeScriptLoaders(): Promise<void> {
  const [esm, cjs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  const sourceMaps = process.sourceMapsEnabled;
  esm.register();
  cjs.register();
  // tsx turns Node's source maps on, for stack traces that point into .ts files. sigloop never shows a
  // stack trace, and with maps on Node reads the map file of every module loaded later (Ajv ships one per
  // file, which makes its load about a fifth dearer): the process keeps the setting it had.
  process.setSourceMapsEnabled(sourceMaps);
}
