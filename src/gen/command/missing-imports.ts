/**
 * Where the unresolved relative imports of watch mode's files with errors could resolve to, so that a
 * file created or put back there regenerates. The places come from the compiler's own lookup
 * (`failedLookupLocations`, internal but stable across TypeScript 5; without it nothing extra is
 * watched, as before).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ts } from "../program/compiler.js";
import { toolCompilerOptions } from "../program/tool-project.js";

/** The compiler's own field (not in its public typings) for the places a resolution looked in vain. */
interface FailedLookups {
  failedLookupLocations?: string[];
}

const options = toolCompilerOptions(false);
/** A host where nothing exists: the compiler then lists every place it would look, in its order. */
const nowhere = { fileExists: () => false, readFile: () => undefined, directoryExists: () => true };

/**
 * For watch mode, where the relative imports of the files with errors could resolve to, as the compiler
 * looks them up: `../lib/shared` is `lib/shared.ts`, `.tsx`, `.d.ts`, …, `lib/shared/index.ts`, …;
 * `./x.js` is `x.ts` first. An import that does not resolve is an error of its file, so only files with
 * errors are read (each once, and again when it changes): while nothing is broken this costs nothing.
 * Watching those places lets a file created there, or put back, regenerate the files importing it.
 */
export class MissingImports {
  /** A file with errors → the places its relative imports could resolve to. */
  private readonly placesOf = new Map<string, string[]>();
  /** A place → the files whose imports could resolve to it. */
  private readonly importers = new Map<string, Set<string>>();

  /** After a generation: `erroring`, the files with errors now; `changed`, the files changed since (read again). */
  update(erroring: ReadonlySet<string>, changed: Iterable<string>): void {
    for (const file of changed) this.drop(file);
    for (const file of [...this.placesOf.keys()]) if (!erroring.has(file)) this.drop(file);
    for (const file of erroring) if (!this.placesOf.has(file)) this.add(file);
  }

  /** The files whose imports could resolve to `file`, or to a file under it (a folder not there before). */
  importersOf(file: string): string[] {
    const direct = this.importers.get(file);
    if (direct !== undefined || this.importers.size === 0) return [...(direct ?? [])];
    const found = new Set<string>();
    for (const [place, files] of this.importers) if (place.startsWith(file + path.sep)) for (const importer of files) found.add(importer);
    return [...found];
  }

  /** The folders to watch: each place's folder, or the nearest folder above it that exists. */
  folders(): string[] {
    const folders = new Set<string>();
    for (let dir of new Set([...this.importers.keys()].map((place) => path.dirname(place)))) {
      while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      folders.add(dir);
    }
    return [...folders];
  }

  private add(file: string): void {
    const places = new Set<string>();
    for (const specifier of relativeSpecifiers(file)) {
      const resolution = ts.resolveModuleName(specifier, file, options, nowhere) as FailedLookups;
      for (const place of resolution.failedLookupLocations ?? []) {
        if (!place.includes("/node_modules/")) places.add(path.resolve(place));
      }
    }
    this.placesOf.set(file, [...places]);
    for (const place of places) {
      const files = this.importers.get(place) ?? new Set<string>();
      files.add(file);
      this.importers.set(place, files);
    }
  }

  private drop(file: string): void {
    for (const place of this.placesOf.get(file) ?? []) {
      const files = this.importers.get(place)!;
      files.delete(file);
      if (files.size === 0) this.importers.delete(place);
    }
    this.placesOf.delete(file);
  }
}

/** The relative (or absolute) module specifiers of a file, scanned from its text; none if it cannot be read. */
function relativeSpecifiers(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return ts.preProcessFile(text, true, false).importedFiles.map((imported) => imported.fileName).filter((specifier) => ts.isExternalModuleNameRelative(specifier));
}
