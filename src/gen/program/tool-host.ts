import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ts } from "./compiler.js";
import { loadLibFiles, type LibFiles } from "./lib-files.js";
import { attachSameLineDocs } from "./same-line-docs.js";

/** The compiler's own field (not in its public typings) for a file's version, which its builder reads. */
interface Versioned {
  version?: string;
}

/** Where the library's files are said to be: the folder ts-morph gave them, so file names stay as they were. */
const LIB_FOLDER = "/node_modules/typescript/lib";
let libFiles: LibFiles | undefined;

/** The text of a library file, by its full name (in LIB_FOLDER); undefined for any other file. */
function libText(fileName: string): string | undefined {
  return isLibFile(fileName) ? libFiles!.text(path.basename(fileName)) : undefined;
}

function isLibFile(fileName: string): boolean {
  if (path.dirname(fileName) !== LIB_FOLDER) return false;
  // Loaded on first use: `gen --check` has said by then that it writes nothing, not even this cache.
  libFiles ??= loadLibFiles();
  return libFiles.names.has(path.basename(fileName));
}
/** Node's typings: 2 MB, mostly JSDoc that no schema reads (`library-docs.ts`). */
const NODE_TYPINGS = `${path.sep}node_modules${path.sep}@types${path.sep}node${path.sep}`;

/**
 * The files gen compiles, each parsed once and kept: the tool files are parsed before the compiler
 * options are settled (whether Node's typings are needed is read from their syntax trees), and the
 * Program then takes the same trees; in watch mode only the files that changed are parsed again. The
 * ES2022 library comes from memory (ts-morph's copy, without comments), everything else from disk.
 *
 * Files are parsed as ts-morph parsed them (its options: the target only, so whether a file is a
 * module is the compiler's default guess), and read as UTF-8 with a byte order mark kept in the text.
 * Node's typings are parsed without their JSDoc until `parseLibraryDocs` (`library-docs.ts`).
 */
export class ToolHost {
  private readonly parsed = new Map<string, ts.SourceFile | undefined>();
  private readonly withoutDocs = new Set<ts.SourceFile>();
  private libraryDocs = false;

  /** The parsed file, or undefined when it cannot be read. */
  sourceFile(file: string): ts.SourceFile | undefined {
    const fileName = path.resolve(file);
    if (this.parsed.has(fileName)) return this.parsed.get(fileName);
    const text = libText(fileName) ?? readOptional(fileName);
    if (text === undefined) {
      this.parsed.set(fileName, undefined);
      return undefined;
    }
    const skipDocs = !this.libraryDocs && fileName.includes(NODE_TYPINGS);
    // `ParseForTypeErrors` is how tsc parses: it keeps only what a type error could come from.
    const sourceFile = skipDocs
      ? ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.ES2022, jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors })
      : ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022);
    if (skipDocs) this.withoutDocs.add(sourceFile);
    // The library from memory has no comments; any other file's doc comments count wherever they sit.
    else if (!isLibFile(fileName)) attachSameLineDocs(sourceFile);
    // What the builder compares between runs (`kept-diagnostics.ts`).
    (sourceFile as Versioned).version = versionOf(text);
    this.parsed.set(fileName, sourceFile);
    return sourceFile;
  }

  /** Whether the file was parsed without its JSDoc; undefined when every file was parsed with it. */
  docsLacking(): ((sourceFile: ts.SourceFile) => boolean) | undefined {
    const withoutDocs = this.withoutDocs;
    return withoutDocs.size === 0 ? undefined : (sourceFile) => withoutDocs.has(sourceFile);
  }

  /**
   * From now on every file is parsed with its JSDoc, and all but the ES2022 library are parsed again:
   * the compiler's services keep the documentation they found on the symbols of the files they bound,
   * so a file kept would keep documentation it inherited from a file that lacked it.
   */
  parseLibraryDocs(): void {
    this.libraryDocs = true;
    this.withoutDocs.clear();
    for (const fileName of this.parsed.keys()) if (!isLibFile(fileName)) this.parsed.delete(fileName);
  }

  /** Drops a file that changed on disk (or was deleted), so the next Program reads it again. */
  forget(file: string): void {
    const fileName = path.resolve(file);
    const sourceFile = this.parsed.get(fileName);
    if (sourceFile !== undefined) this.withoutDocs.delete(sourceFile);
    this.parsed.delete(fileName);
  }

  /** A Program over the tool files and what they import; `old` lends its unchanged files' work. */
  createProgram(toolFiles: readonly string[], options: ts.CompilerOptions, old?: ts.Program): ts.Program {
    const host = ts.createCompilerHost(options);
    host.getSourceFile = (fileName) => this.sourceFile(fileName);
    host.getDefaultLibFileName = (settings) => `${LIB_FOLDER}/${ts.getDefaultLibFileName(settings)}`;
    host.getDefaultLibLocation = () => LIB_FOLDER;
    const { fileExists, readFile } = host;
    host.fileExists = (fileName) => isLibFile(fileName) || fileExists(fileName);
    host.readFile = (fileName) => libText(fileName) ?? readFile(fileName);
    return ts.createProgram({ rootNames: toolFiles.map((file) => path.resolve(file)), options, host, ...(old === undefined ? {} : { oldProgram: old }) });
  }
}

/** A file's version, as the compiler's builder compares it between runs: the hash of its text. */
export function versionOf(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
