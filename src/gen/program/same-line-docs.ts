/**
 * The compiler attaches a doc comment to a declaration only when the comment is one of its *leading*
 * comments, and a comment that follows other code on its line (`{ /** The query. *\/ query: string }`,
 * `a: string; /** Max. @minimum 1 *\/ b: number`, or `{ /** Doc. *\/` with the member on the next line)
 * is a *trailing* comment of the token before it: the compiler drops it (it does take such comments for
 * parameters), and with it every description and tag read through the compiler, gen's and
 * typescript-json-schema's alike. This attaches those comments to the declaration that follows them, as
 * if each were on its own line: the same JSDoc nodes, after any the compiler attached itself.
 */
import type { ts as Compiler } from "ts-morph";
import { ts } from "./compiler.js";
import { countBefore } from "../diagnostic.js";

/** Declarations whose documentation gen reads (members above all), or which a tool may be. */
const DOCUMENTED = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.PropertySignature, ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.GetAccessor, ts.SyntaxKind.SetAccessor, ts.SyntaxKind.IndexSignature,
  ts.SyntaxKind.EnumMember, ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.EnumDeclaration, ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.VariableStatement, ts.SyntaxKind.ModuleDeclaration,
]);

/** A `/**` with code before it on its line: the only place such a comment can be. */
const AFTER_CODE = /\S[^\S\r\n]*\/\*\*/g;

/** The compiler's own parse of one doc comment (exported, not in its public typings). */
const parseIsolatedJSDocComment = (ts as unknown as {
  parseIsolatedJSDocComment(content: string, start: number, length: number): { jsDoc: Compiler.JSDoc } | undefined;
}).parseIsolatedJSDocComment;

/** Flags of the compiler's that its public typings leave out. */
const FLAGS = ts.NodeFlags as unknown as { JavaScriptFile: number; Ambient: number; Deprecated: number };

/** The compiler's own fields, not in its public typings. */
interface WithJsDoc {
  jsDoc?: ts.Node[];
  flags: number;
  parent: ts.Node;
}

/** Attaches to `sourceFile`'s declarations the doc comments that follow code on their line. */
export function attachSameLineDocs(sourceFile: ts.SourceFile): void {
  const text = sourceFile.text;
  const candidates: number[] = [];
  for (const match of text.matchAll(AFTER_CODE)) candidates.push(match.index + match[0].length - 3);
  if (candidates.length === 0) return;
  // Whether a candidate lies in [from, to): only the parts of the tree holding one are walked.
  const holds = (from: number, to: number): boolean => {
    const first = countBefore(candidates, from);
    return first < candidates.length && candidates[first]! < to;
  };
  const visit = (node: ts.Node): void => {
    if (!holds(node.pos, node.end)) return;
    if (DOCUMENTED.has(node.kind)) attach(node, sourceFile);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sourceFile, visit);
}

function attach(node: ts.Node, sourceFile: ts.SourceFile): void {
  const text = sourceFile.text;
  const start = node.getStart(sourceFile);
  const found: Compiler.JSDoc[] = [];
  for (const range of ts.getTrailingCommentRanges(text, node.pos) ?? []) {
    // A doc comment as the compiler takes one: `/**`, not the empty `/**/`, ending before the declaration.
    if (range.end > start || !text.startsWith("/**", range.pos) || text.startsWith("/**/", range.pos)) continue;
    const parsed = parseIsolatedJSDocComment(text, range.pos, range.end - range.pos)?.jsDoc;
    if (parsed === undefined) continue;
    asTypeScript(parsed, node);
    found.push(parsed);
  }
  if (found.length === 0) return;
  const host = node as unknown as WithJsDoc;
  host.jsDoc = [...found, ...(host.jsDoc ?? [])];
  // As the parser marks a declaration whose doc comment says @deprecated.
  if (found.some((doc) => doc.tags?.some((tag) => tag.tagName.text === "deprecated"))) host.flags |= FLAGS.Deprecated;
}

/**
 * The isolated parse reads a comment as a JavaScript file's (its nodes say so in their flags); in a
 * TypeScript file the parser gives them the flags of where they sit, as here.
 */
function asTypeScript(doc: ts.Node, host: ts.Node): void {
  const ambient = host.flags & FLAGS.Ambient;
  const mark = (node: ts.Node): void => {
    const fields = node as unknown as WithJsDoc;
    fields.flags = (fields.flags & ~FLAGS.JavaScriptFile) | ambient;
    ts.forEachChild(node, mark);
  };
  mark(doc);
  (doc as unknown as WithJsDoc).parent = host;
}
