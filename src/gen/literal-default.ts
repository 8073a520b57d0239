import type { Expression } from "ts-morph";
import { Node, ts } from "./compiler.js";
import type { JsonValue } from "../shared/schemas-file.js";

/**
 * The JSON value of a default initializer written as a literal (string, number, boolean, null, or an
 * array/object of those); `undefined` for anything computed, which then has no `default` in the schema.
 */
export function literalDefault(expression: Expression | undefined): JsonValue | undefined {
  if (expression === undefined) return undefined;
  if (Node.isParenthesizedExpression(expression) || Node.isAsExpression(expression) || Node.isSatisfiesExpression(expression)) {
    return literalDefault(expression.getExpression());
  }
  if (Node.isStringLiteral(expression) || Node.isNoSubstitutionTemplateLiteral(expression)) return expression.getLiteralValue();
  // The compiler's own text drops numeric separators: `20_000` reads as "20000".
  if (Node.isNumericLiteral(expression)) return Number(expression.compilerNode.text);
  if (Node.isPrefixUnaryExpression(expression)) {
    const operand = literalDefault(expression.getOperand());
    if (typeof operand !== "number") return undefined;
    const operator = expression.getOperatorToken();
    return operator === ts.SyntaxKind.MinusToken ? -operand : operator === ts.SyntaxKind.PlusToken ? operand : undefined;
  }
  if (Node.isTrueLiteral(expression)) return true;
  if (Node.isFalseLiteral(expression)) return false;
  if (Node.isNullLiteral(expression)) return null;
  if (Node.isArrayLiteralExpression(expression)) {
    const values = expression.getElements().map((element) => literalDefault(element));
    return values.every((value) => value !== undefined) ? (values as JsonValue[]) : undefined;
  }
  if (Node.isObjectLiteralExpression(expression)) {
    const result: { [key: string]: JsonValue } = {};
    for (const property of expression.getProperties()) {
      if (!Node.isPropertyAssignment(property)) return undefined;
      const nameNode = property.getNameNode();
      const key = Node.isIdentifier(nameNode) ? nameNode.getText() : Node.isStringLiteral(nameNode) || Node.isNumericLiteral(nameNode) ? String(nameNode.getLiteralValue()) : undefined;
      const value = literalDefault(property.getInitializer());
      if (key === undefined || value === undefined) return undefined;
      result[key] = value;
    }
    return result;
  }
  return undefined;
}
