import type { JsonValue } from "../../shared/schemas-file.js";
import { ts } from "../program/compiler.js";

/**
 * The JSON value of an expression written as a literal (string, number, boolean, null, or an
 * array/object of those); `undefined` for anything computed, and for a number no JSON number can
 * hold (`1e999`). Read for default initializers (a computed
 * one then has no `default` in the schema) and for the elements of an `as const` array or object whose
 * values a type names (`(typeof KINDS)[number]`, written-order.ts). Works on the compiler's nodes: it
 * runs for every parameter of every tool.
 */
export function literalDefault(expression: ts.Expression | undefined): JsonValue | undefined {
  if (expression === undefined) return undefined;
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)) {
    return literalDefault(expression.expression);
  }
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  // The compiler's own text drops numeric separators: `20_000` reads as "20000". One too large for a
  // double (`1e999`) is Infinity, which JSON writes as null: no literal JSON can carry it.
  if (ts.isNumericLiteral(expression)) {
    const value = Number(expression.text);
    return Number.isFinite(value) ? value : undefined;
  }
  if (ts.isPrefixUnaryExpression(expression)) {
    const operand = literalDefault(expression.operand);
    if (typeof operand !== "number") return undefined;
    const operator = expression.operator;
    return operator === ts.SyntaxKind.MinusToken ? -operand : operator === ts.SyntaxKind.PlusToken ? operand : undefined;
  }
  if (expression.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (expression.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (expression.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(expression)) {
    const values = expression.elements.map((element) => literalDefault(element));
    return values.every((value) => value !== undefined) ? (values as JsonValue[]) : undefined;
  }
  if (ts.isObjectLiteralExpression(expression)) {
    const result: { [key: string]: JsonValue } = {};
    for (const property of expression.properties) {
      if (!ts.isPropertyAssignment(property)) return undefined;
      const name = property.name;
      const key = ts.isIdentifier(name) ? name.getText() : ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? literalKey(name) : undefined;
      const value = literalDefault(property.initializer);
      if (key === undefined || value === undefined) return undefined;
      result[key] = value;
    }
    return result;
  }
  return undefined;
}

/** The key a string or numeric literal names in an object literal or pattern (`{ 1.50: x }` has key "1.5"). */
export function literalKey(name: ts.StringLiteral | ts.NumericLiteral): string {
  return ts.isStringLiteral(name) ? name.text : String(Number(name.text));
}
