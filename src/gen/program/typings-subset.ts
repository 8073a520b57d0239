import path from "node:path";
import type { ts as Compiler } from "ts-morph";
import { ts } from "./compiler.js";
import type { TypingsSeeds } from "./typings-seeds.js";

/**
 * The part of Node's typings (`@types/node` and the `undici-types` it imports) that a program's own
 * files can reach, as files to write beside each other: every declaration the seeds name (the Node
 * modules imported, by name or whole; the globals spelled), every declaration those mention, and so on,
 * each with all the declarations merged with it (a symbol's declarations are one unit), plus Node's
 * additions to the ES library's globals (`interface Array<T> extends RelativeIndexable<T>`), which no
 * name in the tools shows. The unit is a whole top-level statement of a file, of a `declare module`, of
 * `declare global` or of a namespace: an interface keeps all its members and their documentation, so
 * every type the tools can reach is the type the whole typings give.
 *
 * Computed on a Program over the whole typings (with its checker, which resolves every name exactly as
 * the compiler does), once per tools folder and typings version (`typings-cache.ts`); about a fifth of
 * the 2 MB for tools that use `node:fs/promises`, `node:path` and `process`.
 */
export interface TypingsSubset {
  /** Path (relative to the folder holding `@types` and `undici-types`) → text. */
  files: Map<string, string>;
  /** What the subset holds everything for: the seeds it was made from, reduced to Node's names. */
  covers: { modules: string[]; names: string[]; moduleNames: string[] };
  /** Every name a seed can match: global declarations and the members of global namespaces. */
  nodeNames: string[];
}

/** A file of Node's typings (or of the undici-types they import), wherever that package is installed. */
export function isNodeTypingsFile(fileName: string): boolean {
  return /[\\/]node_modules[\\/](?:@types[\\/]node|undici-types)[\\/]/.test(fileName);
}

type Shell = Compiler.ModuleDeclaration & { body: Compiler.ModuleBlock };

function isShell(statement: ts.Node): statement is Shell {
  return ts.isModuleDeclaration(statement) && statement.body !== undefined && ts.isModuleBlock(statement.body);
}

/** Imports and re-exports: kept in every shell that is written, walked by no closure (they cost nothing until used). */
function isLink(statement: ts.Statement): boolean {
  return ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) || ts.isExportAssignment(statement) || ts.isImportEqualsDeclaration(statement);
}

function linkedModule(statement: ts.Statement): string | undefined {
  const specifier = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier
    : ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference) ? statement.moduleReference.expression
    : undefined;
  return specifier !== undefined && ts.isStringLiteral(specifier) ? specifier.text : undefined;
}

function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  const name = (statement as { name?: ts.Node }).name;
  return name !== undefined && ts.isIdentifier(name) ? [name.text] : [];
}

export function typingsSubset(program: ts.Program, seeds: TypingsSeeds, packagesRoot: string): TypingsSubset {
  const checker = program.getTypeChecker();
  const typings = program.getSourceFiles().filter((file) => isNodeTypingsFile(file.fileName));
  const units = new Set<ts.Node>();
  const moduleShells = new Map<string, Shell[]>();
  const globalUnits = new Map<string, ts.Statement[]>();
  const namespaceUnits = new Map<string, ts.Statement[]>();
  const collect = (statements: readonly ts.Statement[], scope: "global" | "namespace" | "module"): void => {
    for (const statement of statements) {
      if (isLink(statement)) continue;
      if (isShell(statement)) {
        if (ts.isStringLiteral(statement.name)) {
          moduleShells.set(statement.name.text, [...(moduleShells.get(statement.name.text) ?? []), statement]);
          collect(statement.body.statements, "module");
        } else collect(statement.body.statements, statement.name.text === "global" ? "global" : scope === "module" ? "module" : "namespace");
        if (scope === "global" && !ts.isStringLiteral(statement.name)) for (const name of declaredNames(statement)) globalUnits.set(name, globalUnits.get(name) ?? []);
        continue;
      }
      units.add(statement);
      const byName = scope === "global" ? globalUnits : scope === "namespace" ? namespaceUnits : undefined;
      if (byName !== undefined) for (const name of declaredNames(statement)) byName.set(name, [...(byName.get(name) ?? []), statement]);
    }
  };
  for (const file of typings) collect(file.statements, ts.isExternalModule(file) ? "module" : "global");

  const included = new Set<ts.Node>();
  const dropped = new Set<ts.Node>();
  const pending: ts.Node[] = [];
  const include = (node: ts.Node | undefined) => {
    if (node !== undefined && !included.has(node)) {
      included.add(node);
      pending.push(node);
    }
  };
  const unitOf = (node: ts.Node): ts.Node | undefined => {
    for (let at: ts.Node | undefined = node; at !== undefined; at = at.parent) if (units.has(at)) return at;
    return undefined;
  };
  const includeWhole = (node: ts.Node) => {
    if (units.has(node)) include(node);
    else ts.forEachChild(node, includeWhole);
  };
  /** `whole`: a namespace or module reached as a value (`import * as fs`, `typeof fs`) brings all it declares. */
  const includeSymbol = (symbol: ts.Symbol, whole: boolean) => {
    const targets = symbol.flags & ts.SymbolFlags.Alias ? [symbol, checker.getAliasedSymbol(symbol)] : [symbol];
    for (const target of targets) {
      for (const declaration of target.declarations ?? []) {
        if (!isNodeTypingsFile(declaration.getSourceFile().fileName)) continue;
        if (isShell(declaration) || ts.isSourceFile(declaration)) {
          if (whole) includeWhole(declaration);
        } else include(unitOf(declaration));
      }
    }
  };
  const wholeModules = new Set<string>();
  const includeModule = (name: string) => {
    if (wholeModules.has(name)) return;
    wholeModules.add(name);
    for (const shell of moduleShells.get(name) ?? []) {
      includeWhole(shell.body);
      for (const statement of shell.body.statements) {
        const linked = linkedModule(statement);
        if (linked !== undefined && (ts.isExportDeclaration(statement) || ts.isImportEqualsDeclaration(statement))) includeModule(linked);
        if (ts.isExportAssignment(statement)) walk(statement);
      }
    }
  };
  const walk = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const symbol = checker.getSymbolAtLocation(node);
      if (symbol !== undefined) includeSymbol(symbol, ts.isTypeQueryNode(node.parent) || ts.isExportAssignment(node.parent));
    } else if (ts.isImportTypeNode(node) && node.qualifier === undefined && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const member = node.parent;
      // `process.getBuiltinModule`'s map (`"fs": typeof import("fs")`, a member per module) keeps the modules the code names.
      if (ts.isPropertySignature(member) && ts.isStringLiteral(member.name) && !seeds.moduleNames.has(member.name.text)) {
        dropped.add(member);
        return;
      }
      includeModule(node.argument.literal.text);
    }
    ts.forEachChild(node, walk);
  };

  const ambient = new Map(checker.getAmbientModules().map((symbol) => [symbol.name.replace(/^"|"$/g, ""), symbol]));
  const seededModules = new Set<string>();
  for (const seed of seeds.modules) {
    const [name, member] = seed.split("#") as [string, string | undefined];
    seededModules.add(name);
    const moduleSymbol = ambient.get(name);
    const exported = member === undefined || moduleSymbol === undefined ? undefined : checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === member);
    if (exported === undefined) includeModule(name);
    else {
      includeSymbol(exported, true);
      // The import resolves through the module's own `export =`, if it has one, and what that names.
      for (const shell of moduleShells.get(name) ?? []) for (const statement of shell.body.statements) if (ts.isExportAssignment(statement)) walk(statement);
    }
  }
  const nodeNames = new Set([...globalUnits.keys(), ...namespaceUnits.keys()]);
  const libNames = new Set(program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file)).flatMap((file) => file.statements.flatMap(declaredNames)));
  const names = [...seeds.names].filter((name) => nodeNames.has(name)).sort();
  for (const name of [...names, ...[...globalUnits.keys()].filter((n) => libNames.has(n))]) {
    for (const unit of globalUnits.get(name) ?? []) include(unit);
    for (const unit of namespaceUnits.get(name) ?? []) include(unit);
  }
  while (pending.length > 0) walk(pending.pop()!);

  return { files: writeFiles(typings, included, dropped, moduleShells, seededModules, packagesRoot), covers: { modules: seeds.modules, names, moduleNames: [...seeds.moduleNames].sort() }, nodeNames: [...nodeNames].sort() };
}

/** The typings' files with only what is included: shells around it, their imports and re-exports, the directives. */
function writeFiles(
  typings: readonly ts.SourceFile[],
  included: ReadonlySet<ts.Node>,
  dropped: ReadonlySet<ts.Node>,
  moduleShells: ReadonlyMap<string, readonly Shell[]>,
  seededModules: ReadonlySet<string>,
  packagesRoot: string,
): Map<string, string> {
  // A shell is written when it holds something included, or when a written shell links to its module.
  const holds = new Set<ts.Node>();
  for (const node of included) for (let at = node.parent; at !== undefined; at = at.parent) holds.add(at);
  const reached = new Set<string>();
  const reachModule = (name: string) => {
    if (reached.has(name)) return;
    reached.add(name);
    for (const shell of moduleShells.get(name) ?? []) {
      for (let at: ts.Node | undefined = shell; at !== undefined; at = at.parent) holds.add(at);
      reachLinks(shell.body.statements);
    }
  };
  const reachLinks = (statements: readonly ts.Statement[]) => {
    for (const statement of statements) {
      const linked = linkedModule(statement);
      if (linked !== undefined) reachModule(linked);
    }
  };
  for (const node of [...holds]) if (isShell(node)) reachLinks(node.body.statements);
  for (const name of seededModules) reachModule(name);
  for (const file of typings) if (ts.isExternalModule(file)) reachLinks(file.statements);

  const files = new Map<string, string>();
  const directives = new Set<string>();
  for (const file of typings) {
    for (const lib of file.libReferenceDirectives) directives.add(`/// <reference lib="${lib.fileName}" />`);
    for (const types of file.typeReferenceDirectives) if (types.fileName !== "node") directives.add(`/// <reference types="${types.fileName}" />`);
    const directivesEnd = Math.max(0, ...[...file.referencedFiles, ...file.typeReferenceDirectives, ...file.libReferenceDirectives].map((d) => file.text.indexOf("\n", d.end) + 1));
    /**
     * A statement's text without its members dropped and without comments, which are four fifths of
     * the bytes: a doc comment leaves an empty one, by which `library-docs.ts` still sees that the whole
     * typings have documentation there (and the generator then takes it from them).
     */
    const text = (node: ts.Node) => {
      const start = Math.max(node.getFullStart(), directivesEnd);
      const cuts: { from: number; to: number; put: string }[] = [];
      const seen = new Set<number>();
      const visit = (child: ts.Node): void => {
        if (dropped.has(child)) {
          cuts.push({ from: child.getFullStart(), to: child.getEnd(), put: "" });
          return;
        }
        if (!seen.has(child.pos)) {
          seen.add(child.pos);
          for (const comment of ts.getLeadingCommentRanges(file.text, child.pos) ?? []) {
            if (comment.pos >= start) cuts.push({ from: comment.pos, to: comment.end, put: file.text.startsWith("/**", comment.pos) ? "/***/" : "" });
          }
        }
        ts.forEachChild(child, visit);
      };
      visit(node);
      cuts.sort((a, b) => a.from - b.from);
      let at = start;
      let kept = "";
      for (const cut of cuts) {
        if (cut.from < at) continue;
        kept += file.text.slice(at, cut.from) + cut.put;
        at = cut.to;
      }
      return kept + file.text.slice(at, node.getEnd());
    };
    const emit = (statements: readonly ts.Statement[]): string => statements.map((statement) => {
      if (isShell(statement)) {
        if (!holds.has(statement)) return "";
        return `${file.text.slice(Math.max(statement.getFullStart(), directivesEnd), statement.body.getStart(file) + 1)}${emit(statement.body.statements)}\n}`;
      }
      return included.has(statement) || isLink(statement) ? text(statement) : "";
    }).join("");
    const module = ts.isExternalModule(file);
    if (!module && !holds.has(file)) continue;
    files.set(path.relative(packagesRoot, file.fileName), `${emit(file.statements)}\n${module ? "export {};\n" : ""}`);
  }
  const index = path.join("@types", "node", "index.d.ts");
  const references = [...files.keys()].filter((name) => name !== index && name.startsWith(`@types${path.sep}node${path.sep}`))
    .map((name) => `/// <reference path="${path.relative(path.dirname(index), name).split(path.sep).join("/")}" />`);
  files.set(index, [...directives, ...references, files.get(index) ?? ""].join("\n"));
  return files;
}
