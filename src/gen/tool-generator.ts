import path from "node:path";
import { existsSync, statSync } from "node:fs";
import { ts } from "./program/compiler.js";
import { currentInputsHash } from "../shared/inputs-hash.js";
import type { SchemasFile, ToolBinding, ToolDefinition } from "../shared/schemas-file.js";
import { readToolFolder } from "../shared/tool-files.js";
import { buildTool, type BuiltTool } from "./build-tool.js";
import { diagnosticAt, hasErrors, relativePath, sortDiagnostics, type Diagnostic } from "./diagnostic.js";
import { discoverTools } from "./reflect/discover-tools.js";
import { LibraryDocs } from "./program/library-docs.js";
import { SchemaEngine } from "./schema/schema-engine.js";
import { serializeSchemasFile } from "./serialize.js";
import { compilerDiagnostics } from "./program/ts-diagnostics.js";
import { checkLocalFiles, keptDiagnosticsOptions } from "./program/kept-diagnostics.js";
import { ToolHost } from "./program/tool-host.js";
import { isLocalSourceFile, needsNodeTypes, sigloopPackageFiles, toolCompilerOptions } from "./program/tool-project.js";
import { cachedTypings, saveTypings, typingsPackagesRoot, type CachedTypings } from "./program/typings-cache.js";
import { typingsSeeds } from "./program/typings-seeds.js";
import { isNodeTypingsFile, typingsSubset } from "./program/typings-subset.js";

/** The outcome of one generation: the file to write (absent when there is an error) and every diagnostic. */
export interface Generation {
  file?: SchemasFile;
  text?: string;
  diagnostics: Diagnostic[];
}

interface ToolEntry {
  name: string;
  file: string;
  location: Diagnostic;
  built: BuiltTool;
}

/** What one tool file contributed at its last (re)generation. */
interface ToolFileResult {
  tools: ToolEntry[];
  diagnostics: Diagnostic[];
}

/**
 * Generates the schemas of one tools folder and keeps the compiler warm between runs: after a change,
 * `update` re-checks only the changed files and the files that import them, and rebuilds only the
 * tools of the tool files among those.
 */
export class ToolGenerator {
  private host!: ToolHost;
  private program!: ts.Program;
  private withNodeTypes = false;
  /** The cached subset of Node's typings the Program was made with; undefined: the whole typings. */
  private typings: CachedTypings | undefined;
  private toolFiles: string[] = [];
  private readonly toolResults = new Map<string, ToolFileResult>();
  private readonly checked = new Map<string, Diagnostic[]>();
  private globalDiagnostics: Diagnostic[] = [];
  /** Local file → the local files it imports; refreshed only for the files that change. */
  private readonly imports = new Map<string, string[]>();

  private constructor(
    readonly toolsDir: string,
    readonly outFile: string,
    private readonly typingsSubsets: boolean,
  ) {}

  /**
   * Opens a tools folder; a missing or empty folder is a diagnostic, not a throw. `typingsSubsets`: a
   * one-shot run compiles against the cached subset of Node's typings its tools reach (and writes it
   * when missing), which parses and binds a fifth of them; watch mode keeps the whole typings, whose
   * Program stays warm and takes any edit.
   */
  static open(toolsDir: string, outFile: string, typingsSubsets = false): ToolGenerator | Diagnostic {
    const generator = new ToolGenerator(toolsDir, outFile, typingsSubsets);
    const problem = generator.readToolFiles();
    if (problem !== undefined) return problem;
    generator.load();
    return generator;
  }

  /** Every local source file the tools were built from (absolute paths). */
  inputFiles(): string[] {
    const program = this.program;
    return program.getSourceFiles().map((file) => file.fileName).filter((name) => isLocalSourceFile(name, program)).sort();
  }

  generateAll(): Generation {
    const program = this.program;
    this.globalDiagnostics = compilerDiagnostics(program);
    this.checked.clear();
    this.toolResults.clear();
    this.imports.clear();
    const inputs = this.inputFiles();
    if (this.typingsSubsets) {
      const checked = checkLocalFiles(program, inputs);
      for (const file of inputs) this.checked.set(file, checked.diagnostics(file));
      checked.save();
    } else {
      for (const file of inputs) this.checked.set(file, compilerDiagnostics(program, program.getSourceFile(file)));
    }
    const built = this.rebuildTools(this.toolFiles);
    const generation = this.assemble();
    if (this.typings !== undefined && (!built || hasErrors(generation.diagnostics))) {
      // Messages may name what the subset leaves out ("did you mean …?"): they come from the whole typings.
      this.load(false);
      return this.generateAll();
    }
    if (this.typingsSubsets && this.withNodeTypes && this.typings === undefined && !hasErrors(generation.diagnostics)) {
      saveTypings(this.toolsDir, typingsSubset(program, typingsSeeds(this.ownFiles()), typingsPackagesRoot()));
    }
    return generation;
  }

  /** The Program's files that are not the ES library or Node's typings: what decides the typings they need. */
  private ownFiles(): ts.SourceFile[] {
    const program = this.program;
    return program.getSourceFiles().filter((file) => !program.isSourceFileDefaultLibrary(file) && !isNodeTypingsFile(file.fileName));
  }

  /**
   * Applies changes to files on disk (edited, added or deleted) and regenerates what they affect.
   */
  update(changedFiles: readonly string[]): Generation {
    const before = new Set(this.toolFiles);
    const problem = this.readToolFiles();
    if (problem !== undefined) return { diagnostics: [problem] };
    const addedOrRemoved = this.toolFiles.length !== before.size || this.toolFiles.some((file) => !before.has(file));
    for (const file of changedFiles) {
      this.host.forget(file);
      this.imports.delete(path.resolve(file));
    }
    if (addedOrRemoved || (!this.withNodeTypes && needsNodeTypes(changedFiles.filter((file) => existsSync(file)), this.host))) {
      this.load();
      return this.generateAll();
    }
    // The unchanged files keep their syntax trees; the compiler reuses them and what it resolved for them.
    this.program = this.host.createProgram(this.toolFiles, this.program.getCompilerOptions(), this.program);
    const affected = this.dependentsOf(changedFiles);
    const program = this.program;
    const inputs = new Set(this.inputFiles());
    for (const file of [...this.checked.keys()]) if (!inputs.has(file)) this.checked.delete(file);
    for (const file of inputs) {
      if (affected.has(file) || !this.checked.has(file)) this.checked.set(file, compilerDiagnostics(program, program.getSourceFile(file)));
    }
    this.rebuildTools(this.toolFiles.filter((file) => affected.has(file)));
    return this.assemble();
  }

  private readToolFiles(): Diagnostic | undefined {
    const problem = (message: string): Diagnostic => ({ severity: "error", message, refs: [{ file: this.toolsDir }] });
    let names: string[];
    try {
      if (!statSync(this.toolsDir).isDirectory()) return problem("tools folder {0} is not a folder; pass --tools <dir>");
      const folder = readToolFolder(this.toolsDir);
      const out = folder.linksOut[0];
      if (out !== undefined) {
        const link = path.join(this.toolsDir, out.name);
        return { severity: "error", message: `{0} is a symbolic link to ${out.target}, which is not in the tools folder itself: the agent and sigloop mcp import only files there, so gen does not read it; copy the file in, or link the whole tools folder`, refs: [{ file: link }] };
      }
      names = folder.files;
    } catch {
      return problem("tools folder {0} does not exist; create it with a tool file ({0}/my_tool.ts) or pass --tools <dir>");
    }
    if (names.length === 0) return problem("tools folder {0} has no .ts files; write a tool there (an exported, JSDoc-commented function)");
    this.toolFiles = names.map((name) => path.join(this.toolsDir, name));
    return undefined;
  }

  private load(typingsSubset = this.typingsSubsets): void {
    // A fresh host: a reload (a tool file added or removed, Node's typings newly needed) parses afresh.
    this.host = new ToolHost();
    this.withNodeTypes = needsNodeTypes(this.toolFiles, this.host);
    this.typings = this.withNodeTypes && typingsSubset ? cachedTypings(this.toolsDir) : undefined;
    this.program = this.host.createProgram(this.toolFiles, this.compilerOptions(this.typings?.typeRoot));
    if (this.typings !== undefined && !this.typings.covers(typingsSeeds(this.ownFiles()))) {
      // The files reach further than the subset holds (a new import, a newly named global): the whole typings.
      this.typings = undefined;
      this.program = this.host.createProgram(this.toolFiles, this.compilerOptions(), this.program);
    }
  }

  /** A one-shot run keeps its diagnostics for the next (`kept-diagnostics.ts`); watch mode keeps its Program. */
  private compilerOptions(nodeTypesRootAt?: string): ts.CompilerOptions {
    const options = toolCompilerOptions(this.withNodeTypes, nodeTypesRootAt);
    return this.typingsSubsets ? { ...options, ...keptDiagnosticsOptions(this.toolsDir) } : options;
  }

  /** The given files and every local file that imports them, directly or not. */
  private dependentsOf(files: readonly string[]): Set<string> {
    const importers = new Map<string, Set<string>>();
    for (const file of this.inputFiles()) {
      let imported = this.imports.get(file);
      if (imported === undefined) {
        imported = importedFiles(this.program, file);
        this.imports.set(file, imported);
      }
      for (const target of imported) {
        const set = importers.get(target) ?? new Set<string>();
        set.add(file);
        importers.set(target, set);
      }
    }
    const result = new Set<string>();
    const pending = files.map((file) => path.resolve(file));
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (result.has(file)) continue;
      result.add(file);
      pending.push(...(importers.get(file) ?? []));
    }
    return result;
  }

  /** False when a schema wanted documentation the subset of Node's typings leaves out: the whole typings have it. */
  private rebuildTools(toolFiles: readonly string[]): boolean {
    if (!this.buildTools(toolFiles).missed) return true;
    if (this.typings !== undefined) return false;
    // A schema wanted documentation from Node's typings, parsed without it: parse it, build again.
    this.host.parseLibraryDocs();
    this.program = this.host.createProgram(this.toolFiles, this.program.getCompilerOptions(), this.program);
    this.buildTools(this.toolFiles);
    return true;
  }

  private buildTools(toolFiles: readonly string[]): LibraryDocs {
    const checker = this.program.getTypeChecker();
    const docs = new LibraryDocs(checker, this.host.docsLacking());
    const engine = new SchemaEngine(checker, docs);
    const toolFileSet = new Set(this.toolFiles);
    for (const file of toolFiles) {
      const sourceFile = this.program.getSourceFile(path.resolve(file));
      if (sourceFile === undefined) continue;
      const result: ToolFileResult = { tools: [], diagnostics: [] };
      // A file the compiler rejects is reported by the compiler; its tools would only add noise.
      if (!hasErrors(this.checked.get(file) ?? [])) {
        const discovered = discoverTools(sourceFile, toolFileSet, checker);
        result.diagnostics.push(...discovered.diagnostics);
        for (const tool of discovered.tools) {
          const { built, diagnostics } = buildTool(tool, engine, checker);
          result.diagnostics.push(...diagnostics);
          if (built !== undefined) result.tools.push({ name: tool.name, file, location: diagnosticAt(tool.declaration, "error", ""), built });
        }
      }
      this.toolResults.set(file, result);
    }
    return docs;
  }

  private assemble(): Generation {
    const diagnostics: Diagnostic[] = [...this.globalDiagnostics];
    for (const found of this.checked.values()) diagnostics.push(...found);
    const tools: ToolEntry[] = [];
    for (const file of this.toolFiles) {
      const result = this.toolResults.get(file);
      if (result === undefined) continue;
      diagnostics.push(...result.diagnostics);
      tools.push(...result.tools);
    }
    diagnostics.push(...duplicateNames(tools));
    if (hasErrors(diagnostics)) return { diagnostics: sortDiagnostics(diagnostics) };

    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const schemasDir = path.dirname(this.outFile);
    const toolsDir = relativePath(schemasDir, this.toolsDir) || ".";
    const program = this.program;
    const files = [...this.inputFiles(), ...sigloopPackageFiles(program)].map((file) => relativePath(schemasDir, file)).sort();
    const hash = currentInputsHash(schemasDir, { toolsDir, files });
    if (hash === undefined) return { diagnostics: [{ severity: "error", message: "could not read the tool files back to hash them; is something deleting them?" }] };
    const definitions: ToolDefinition[] = tools.map((tool) => tool.built.definition);
    const bindings: ToolBinding[] = tools.map((tool) => ({ name: tool.name, file: relativePath(schemasDir, tool.file), exportName: tool.name, call: tool.built.call }));
    const strictTools: ToolDefinition[] = tools.map((tool) => tool.built.strictDefinition);
    const outputs = Object.fromEntries(tools.flatMap((tool) => (tool.built.output ? [[tool.name, tool.built.output]] : [])));
    const annotations = Object.fromEntries(tools.flatMap((tool) => (tool.built.annotations ? [[tool.name, tool.built.annotations]] : [])));
    const file: SchemasFile = { tools: definitions, strictTools, bindings, outputs, annotations, inputs: { toolsDir, files, hash } };
    return { file, text: serializeSchemasFile(file), diagnostics: sortDiagnostics(diagnostics) };
  }
}

/** The files a file's `import … from` and `export … from` statements bring in. */
function importedFiles(program: ts.Program, file: string): string[] {
  const sourceFile = program.getSourceFile(file);
  if (sourceFile === undefined) return [];
  const checker = program.getTypeChecker();
  const files: string[] = [];
  for (const statement of sourceFile.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    const imported = specifier === undefined ? undefined : checker.getSymbolAtLocation(specifier)?.getDeclarations()?.[0];
    if (imported !== undefined && ts.isSourceFile(imported)) files.push(imported.fileName);
  }
  return files;
}

function duplicateNames(tools: readonly ToolEntry[]): Diagnostic[] {
  const byName = new Map<string, ToolEntry[]>();
  for (const tool of tools) byName.set(tool.name, [...(byName.get(tool.name) ?? []), tool]);
  const diagnostics: Diagnostic[] = [];
  for (const [name, entries] of byName) {
    if (entries.length < 2) continue;
    const places = entries.map((_, index) => `{${index}}`).join(" and ");
    const refs = entries.map(({ location }) => ({ file: location.file, line: location.line, col: location.col }));
    diagnostics.push({ ...entries[0]!.location, message: `tool name "${name}" is defined more than once, at ${places}; tool names must be unique across files`, refs });
  }
  return diagnostics;
}
