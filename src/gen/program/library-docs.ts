import { ts } from "./compiler.js";

/**
 * Watches gen's reads of documentation for the ones that would come from a file parsed without its
 * JSDoc (Node's typings, see `ToolHost`). Schemas read the documentation of very few of Node's
 * declarations (a parameter typed `fs.MakeDirectoryOptions`), so those 2 MB of typings are parsed
 * without it, as tsc does for type checking, which JSDoc in declaration files does not affect. Every
 * documentation read in gen first calls `read`; a read that reaches such a file (through the symbol's
 * declarations, or the base types whose documentation the compiler's services inherit) marks the
 * generation `missed`, and the generator makes it again with the JSDoc parsed.
 */
export class LibraryDocs {
  missed = false;

  /** `lacksDocs` is absent when every file was parsed with its JSDoc: then nothing can be missed. */
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly lacksDocs?: (file: ts.SourceFile) => boolean,
  ) {}

  read(symbol: ts.Symbol | undefined): void {
    if (this.lacksDocs !== undefined && !this.missed && symbol !== undefined && this.reaches(symbol, this.lacksDocs, new Set([symbol]))) this.missed = true;
  }

  private reaches(symbol: ts.Symbol, lacksDocs: (file: ts.SourceFile) => boolean, seen: Set<ts.Symbol>): boolean {
    const declarations = symbol.getDeclarations();
    // A symbol without declarations (a labelled tuple member) takes its documentation from elsewhere.
    if (declarations === undefined) return true;
    for (const declaration of declarations) {
      if (lacksDocs(declaration.getSourceFile()) && hasDocComment(declaration)) return true;
      // Where a member has no documentation, the services take its base type's member's (as here).
      const parent = declaration.parent as ts.Node | undefined;
      const container = parent !== undefined && ts.isConstructorDeclaration(parent) ? parent.parent : parent;
      if (container === undefined || !(ts.isClassLike(container) || ts.isInterfaceDeclaration(container))) continue;
      for (const clause of container.heritageClauses ?? []) {
        for (const base of clause.types) {
          const inherited = this.checker.getPropertyOfType(this.checker.getTypeAtLocation(base), symbol.getName());
          if (inherited === undefined || seen.has(inherited)) continue;
          seen.add(inherited);
          if (this.reaches(inherited, lacksDocs, seen)) return true;
        }
      }
    }
    return false;
  }
}

/**
 * Whether a doc comment (`/**`) precedes the declaration or a node the compiler reads its
 * documentation from (a variable's statement, a parameter's function, an outer namespace). Node's
 * typings augment `Array` and `String` without one, for instance: nothing to miss there.
 */
function hasDocComment(declaration: ts.Node): boolean {
  const sourceFile = declaration.getSourceFile();
  const hosts: ts.Node[] = [declaration];
  if (ts.isVariableDeclaration(declaration)) hosts.push(declaration.parent.parent);
  if (ts.isParameter(declaration)) hosts.push(declaration.parent);
  for (let node: ts.Node = declaration; ts.isModuleDeclaration(node.parent); node = node.parent) hosts.push(node.parent);
  return hosts.some((host) => sourceFile.text.slice(host.pos, host.getStart(sourceFile)).includes("/**"));
}
