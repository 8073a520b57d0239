import { readFileSync } from "node:fs";
import path from "node:path";
import { libFiles, ts } from "./compiler.js";

/** Where the library's files are said to be: the folder ts-morph gave them, so file names stay as they were. */
const LIB_FOLDER = "/node_modules/typescript/lib";
const libTexts = new Map(libFiles.map((file) => [`${LIB_FOLDER}/${file.fileName}`, file.text]));

/**
 * The files gen compiles, each parsed once and kept: the tool files are parsed before the compiler
 * options are settled (whether Node's typings are needed is read from their syntax trees), and the
 * Program then takes the same trees; in watch mode only the files that changed are parsed again. The
 * ES2022 library comes from memory (ts-morph's copy, without comments), everything else from disk.
 *
 * Files are parsed as ts-morph parsed them (its options: the target only, so whether a file is a
 * module is the compiler's default guess), and read as UTF-8 with a byte order mark kept in the text.
 */
export class ToolHost {
  private readonly parsed = new Map<string, ts.SourceFile | undefined>();

  /** The parsed file, or undefined when it cannot be read. */
  sourceFile(file: string): ts.SourceFile | undefined {
    const fileName = path.resolve(file);
    if (this.parsed.has(fileName)) return this.parsed.get(fileName);
    const text = libTexts.get(fileName) ?? readOptional(fileName);
    const sourceFile = text === undefined ? undefined : ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022);
    this.parsed.set(fileName, sourceFile);
    return sourceFile;
  }

  /** Drops a file that changed on disk (or was deleted), so the next Program reads it again. */
  forget(file: string): void {
    this.parsed.delete(path.resolve(file));
  }

  /** A Program over the tool files and what they import; `old` lends its unchanged files' work. */
  createProgram(toolFiles: readonly string[], options: ts.CompilerOptions, old?: ts.Program): ts.Program {
    const host = ts.createCompilerHost(options);
    host.getSourceFile = (fileName) => this.sourceFile(fileName);
    host.getDefaultLibFileName = (settings) => `${LIB_FOLDER}/${ts.getDefaultLibFileName(settings)}`;
    host.getDefaultLibLocation = () => LIB_FOLDER;
    const { fileExists, readFile } = host;
    host.fileExists = (fileName) => libTexts.has(fileName) || fileExists(fileName);
    host.readFile = (fileName) => libTexts.get(fileName) ?? readFile(fileName);
    return ts.createProgram({ rootNames: toolFiles.map((file) => path.resolve(file)), options, host, ...(old === undefined ? {} : { oldProgram: old }) });
  }
}

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
