import type { ts as Compiler } from "ts-morph";
import { ts } from "../program/compiler.js";
import { VALIDATION_TAGS } from "../schema/keywords.js";

/** A validation tag as written, e.g. `@minimum 1`. */
export interface DocTag {
  name: string;
  text: string;
  /** The tag in the source, where problems with it are reported (absent for tags read through a symbol). */
  node?: ts.Node;
}

type JSDoc = Compiler.JSDoc;

export interface ParamDoc {
  description?: string;
  tags: DocTag[];
  /** The `@param` tag it was read from, where problems with it are reported. */
  tag?: ts.Node;
}

export interface ToolDocs {
  /** The summary and body of the tool's JSDoc. */
  description: string;
  /** By the name written after `@param`: `path`, or `opts.field` for a member of an object parameter. */
  params: Map<string, ParamDoc>;
  /** The text of the tool's own `@deprecated` (`""` when it has none); absent when the tool is not deprecated. */
  deprecated?: string;
}

/**
 * Reads a tool's JSDoc. Validation tags written after `@param x …` (before the next `@param`) belong to
 * `x`, so a parameter's constraints sit next to its description; a `@deprecated` before the first
 * `@param` is the tool's own (the first one counts).
 */
export function readToolDocs(host: ts.Node): ToolDocs {
  const params = new Map<string, ParamDoc>();
  const doc = lastJsDoc(host);
  if (doc === undefined) return { description: "", params };
  const sourceFile = host.getSourceFile();
  let current: ParamDoc | undefined;
  let deprecated: string | undefined;
  for (const tag of doc.tags ?? []) {
    if (ts.isJSDocParameterTag(tag)) {
      current = { tags: [], tag };
      const description = cleanText(ts.getTextOfJSDocComment(tag.comment));
      if (description !== "") current.description = description;
      params.set(tag.name.getText(sourceFile), current);
    } else if (current === undefined) {
      if (tag.tagName.text === "deprecated") deprecated ??= cleanText(ts.getTextOfJSDocComment(tag.comment));
    } else if (VALIDATION_TAGS.has(tag.tagName.text)) {
      current.tags.push({ name: tag.tagName.text, text: ts.getTextOfJSDocComment(tag.comment) ?? "", node: tag });
    }
  }
  const description = cleanText(descriptionOf(doc, sourceFile));
  return deprecated === undefined ? { description, params } : { description, params, deprecated };
}

/**
 * The `description` a tool is written with: its JSDoc description, and for a deprecated tool a last
 * paragraph saying so (`Deprecated: <reason>`, or `Deprecated.`), since providers accept no other key
 * in a tool's definition to carry it.
 */
export function toolDescription(docs: ToolDocs): string {
  if (docs.deprecated === undefined) return docs.description;
  const notice = docs.deprecated === "" ? "Deprecated." : `Deprecated: ${docs.deprecated}`;
  return docs.description === "" ? notice : `${docs.description}\n\n${notice}`;
}

/**
 * The JSDoc comment that documents a declaration: the last one above it, read from the compiler's
 * nodes (it was once read through ts-morph, whose reading `cleanText` keeps).
 */
export function lastJsDoc(host: ts.Node): JSDoc | undefined {
  // The declaration's own comments come as JSDoc nodes; those of the declarations it sits in do not concern it.
  const docs = ts.getJSDocCommentsAndTags(host).filter((node): node is JSDoc => ts.isJSDoc(node) && node.parent === host);
  return docs[docs.length - 1];
}

/** The white space ts-morph's JSDoc reading skips (the description was read with ts-morph before). */
const BLANK = new Set([" ", "\f", "\n", "\r", "\t", "\v", "\u00a0", "\u2028", "\u2029"]);
const LEADING_STAR = /^[ \f\n\r\t\v\u00a0\u2028\u2029]*\* ?/;

/**
 * The summary and body of a JSDoc comment, as written: from after `/**` (and one space) to the end of
 * the last line before its first tag (or before the closing `*\/`), each line without its leading `*`
 * and the space after it.
 */
function descriptionOf(doc: JSDoc, sourceFile: ts.SourceFile): string {
  const text = sourceFile.text;
  let start = doc.getStart(sourceFile) + 3;
  if (text[start] === " ") start += 1;
  let end = doc.tags?.[0]?.getStart(sourceFile) ?? doc.end - 2;
  // Back over the blanks and `*`s that lead up to the first tag on its line, then over line breaks.
  while (end > 0 && text[end - 1] !== "\n" && (text[end - 1] === "*" || BLANK.has(text[end - 1]!))) end -= 1;
  while (end > 0 && (text[end - 1] === "\n" || text[end - 1] === "\r")) end -= 1;
  const inner = text.slice(start, Math.max(start, end)).replace(/^\/\*\*[^\S\n]*\n?/, "").replace(/(\r?\n)?[^\S\n]*\*\/$/, "");
  return inner.split("\n").map((line) => line.replace(LEADING_STAR, "")).join("\n");
}

/** A doc comment written on the parameter itself: `f(/** Max results. @minimum 1 *\/ limit: number)`. */
export function readInlineParamDoc(parameter: ts.ParameterDeclaration): ParamDoc {
  const result: ParamDoc = { tags: [] };
  // Most parameters have no comment of their own; asking the compiler would also search the
  // function's JSDoc for their @param tags.
  const comment = parameter.getSourceFile().text.indexOf("/**", parameter.pos);
  if (comment === -1 || comment >= parameter.end) return result;
  for (const node of ts.getJSDocCommentsAndTags(parameter)) {
    if (!ts.isJSDoc(node) || node.parent !== parameter) continue;
    const description = cleanText(ts.getTextOfJSDocComment(node.comment));
    if (description !== "") result.description = description;
    for (const tag of node.tags ?? []) {
      if (VALIDATION_TAGS.has(tag.tagName.text)) result.tags.push({ name: tag.tagName.text, text: ts.getTextOfJSDocComment(tag.comment) ?? "", node: tag });
    }
  }
  return result;
}

/** Trims a doc text and drops the optional `- ` JSDoc puts between a `@param` name and its text. */
function cleanText(text: string | undefined): string {
  return (text ?? "").replace(/\r\n/g, "\n").trim().replace(/^-\s+/, "");
}
