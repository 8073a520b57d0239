import type { JsonValue } from "../../shared/schemas-file.js";
import type { ts as Compiler } from "ts-morph";
import { ts } from "../program/compiler.js";
import { literalDefault, literalKey } from "./literal-default.js";

/**
 * The defaults a tool's destructuring pattern writes, at every depth of its object patterns:
 * `{ filter: { tag: t = "x", deep: { n = 1 } = {} } = {} }` gives `filter` (path `[]`), `filter.tag`,
 * `filter.deep` and `filter.deep.n`. Members are named by their property name, also when the binding is
 * renamed (`tag: t`); a literal initializer gives its JSON value (literal-default.ts), a computed one
 * `undefined` (the member is then only optional). Array patterns are not followed: an element of one
 * binds one position, while a schema's `items` describes every element. A computed or rest element
 * names no member and is skipped, with what is below it.
 */

export interface PatternDefault {
  /** The top-level member (a property of the arguments object) the path starts from. */
  property: string;
  /** The member names below it; empty for the property's own default. */
  path: string[];
  value: JsonValue | undefined;
  /** The initializer it was read from. */
  initializer: ts.Expression;
}

export function patternDefaults(pattern: Compiler.ObjectBindingPattern): PatternDefault[] {
  const found: PatternDefault[] = [];
  const visit = (at: Compiler.ObjectBindingPattern, property: string | undefined, path: readonly string[]): void => {
    for (const element of at.elements) {
      const name = element.dotDotDotToken === undefined ? memberName(element) : undefined;
      if (name === undefined) continue;
      const top = property ?? name;
      const below = property === undefined ? [] : [...path, name];
      if (element.initializer !== undefined) found.push({ property: top, path: below, value: literalDefault(element.initializer), initializer: element.initializer });
      if (ts.isObjectBindingPattern(element.name)) visit(element.name, top, below);
    }
  };
  visit(pattern, undefined, []);
  return found;
}

/** The property an element of an object pattern reads: `tag` in `tag`, `tag: t` and `"tag": t`; "1.5" in `1.50: x`. */
function memberName(element: Compiler.BindingElement): string | undefined {
  const name = element.propertyName ?? element.name;
  if (ts.isIdentifier(name)) return name.text;
  return ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? literalKey(name) : undefined;
}
