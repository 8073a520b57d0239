import { Node, ts } from "./compiler.js";
import { VALIDATION_TAGS } from "./keywords.js";

/** A validation tag as written, e.g. `@minimum 1`. */
export interface DocTag {
  name: string;
  text: string;
}

export interface ParamDoc {
  description?: string;
  tags: DocTag[];
}

export interface ToolDocs {
  /** The summary and body of the tool's JSDoc. */
  description: string;
  /** By the name written after `@param`: `path`, or `opts.field` for a member of an object parameter. */
  params: Map<string, ParamDoc>;
}

/**
 * Reads a tool's JSDoc. Validation tags written after `@param x …` (before the next `@param`) belong to
 * `x`, so a parameter's constraints sit next to its description.
 */
export function readToolDocs(host: Node): ToolDocs {
  const params = new Map<string, ParamDoc>();
  const docs = Node.isJSDocable(host) ? host.getJsDocs() : [];
  const doc = docs[docs.length - 1];
  if (doc === undefined) return { description: "", params };
  let current: ParamDoc | undefined;
  // The tags through the compiler's nodes: ts-morph would wrap each tag and its name, for every tool.
  for (const tag of doc.compilerNode.tags ?? []) {
    if (ts.isJSDocParameterTag(tag)) {
      current = { tags: [] };
      const description = cleanText(ts.getTextOfJSDocComment(tag.comment));
      if (description !== "") current.description = description;
      params.set(tag.name.getText(), current);
    } else if (VALIDATION_TAGS.has(tag.tagName.text) && current !== undefined) {
      current.tags.push({ name: tag.tagName.text, text: ts.getTextOfJSDocComment(tag.comment) ?? "" });
    }
  }
  return { description: cleanText(doc.getDescription()), params };
}

/** A doc comment written on the parameter itself: `f(/** Max results. @minimum 1 *\/ limit: number)`. */
export function readInlineParamDoc(parameter: ts.ParameterDeclaration): ParamDoc {
  const result: ParamDoc = { tags: [] };
  for (const node of ts.getJSDocCommentsAndTags(parameter)) {
    if (!ts.isJSDoc(node) || node.parent !== parameter) continue;
    const description = cleanText(ts.getTextOfJSDocComment(node.comment));
    if (description !== "") result.description = description;
    for (const tag of node.tags ?? []) {
      if (VALIDATION_TAGS.has(tag.tagName.text)) result.tags.push({ name: tag.tagName.text, text: ts.getTextOfJSDocComment(tag.comment) ?? "" });
    }
  }
  return result;
}

/** Trims a doc text and drops the optional `- ` JSDoc puts between a `@param` name and its text. */
function cleanText(text: string | undefined): string {
  return (text ?? "").replace(/\r\n/g, "\n").trim().replace(/^-\s+/, "");
}
