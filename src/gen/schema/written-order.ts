/**
 * Enum values and union branches in the order the source writes them (`"m" | "km" | "mi"` stays so), an
 * alias of a union flattened in place, `boolean` standing for `false, true` where it is written, and the
 * values of an `as const` array or object in its order where a type names them (`(typeof KINDS)[number]`,
 * `(typeof O)[keyof typeof O]`). The checker lists a union's members in the order it happened to
 * create their types, which differs between a cold run and a watch-mode update, so finishing sorts them
 * first; this then puts them in written order, read from the declarations alone, so the bytes still
 * depend on the source only. A schema node whose declaration cannot be followed keeps the sorted order.
 */
import type { ts as Compiler } from "ts-morph";
import { ts } from "../program/compiler.js";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { literalDefault } from "../reflect/literal-default.js";

/** Where a schema came from: the type and, when there is one, the declaration or type node that wrote it. */
export interface WrittenPlace {
  /** A member of the root's `properties`; absent: the root itself. */
  property?: string;
  type: ts.Type;
  node?: ts.Node;
}

const MAX_DEPTH = 24;

interface Walk {
  checker: ts.TypeChecker;
  definitions: Record<string, JsonSchema> | undefined;
  /** Definitions already put in order (each once, from its first use; recursion ends here). */
  done: Set<string>;
}

/** A copy of `root` (a tool's parameters or output schema) with its alternatives in written order; `root` is not changed. */
export function inWrittenOrder(root: JsonSchema, places: readonly WrittenPlace[], checker: ts.TypeChecker): JsonSchema {
  const definitions = isSchema(root.definitions) ? ({ ...root.definitions } as Record<string, JsonSchema>) : undefined;
  const walk: Walk = { checker, definitions, done: new Set() };
  let result: JsonSchema = { ...root };
  for (const place of places) {
    if (place.property === undefined) {
      result = { ...ordered(result, place.type, place.node, walk, 0), ...(definitions !== undefined ? { definitions } : {}) };
      continue;
    }
    const properties = isSchema(result.properties) ? result.properties : undefined;
    const schema = properties?.[place.property];
    if (properties === undefined || !isSchema(schema)) continue;
    result.properties = { ...properties, [place.property]: ordered(schema, place.type, place.node, walk, 0) };
  }
  if (definitions !== undefined && result.definitions !== undefined) result.definitions = definitions;
  return result;
}

function ordered(schema: JsonSchema, type: ts.Type, node: ts.Node | undefined, walk: Walk, depth: number): JsonSchema {
  if (depth > MAX_DEPTH) return schema;
  const { checker } = walk;
  // An optional member's type includes `undefined`, which no schema shows.
  type = checker.getNonNullableType(type);
  const out: JsonSchema = { ...schema };
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/definitions/") && walk.definitions !== undefined) {
    const name = decodeURIComponent(schema.$ref.slice("#/definitions/".length));
    const definition = walk.definitions[name];
    if (isSchema(definition) && !walk.done.has(name)) {
      walk.done.add(name);
      walk.definitions[name] = ordered(definition, type, node, walk, depth + 1);
    }
    return out;
  }
  const members = writtenMembers(type, node, checker);
  const written = members?.flatMap((member) => writtenLiterals(member, checker));
  const literalRank = (value: JsonValue): number => written?.indexOf(value) ?? -1;
  if (Array.isArray(schema.enum) && written !== undefined) out.enum = inOrder(schema.enum, literalRank);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const keyed = members?.map((member) => ({ member, key: memberKey(member, checker) }));
    const rank = (branch: JsonValue): number => {
      const keys = branchKeys(branch, walk);
      return keyed === undefined ? -1 : keyed.findIndex((entry) => entry.key !== undefined && keys.includes(entry.key));
    };
    out[key] = inOrder(branches, rank).map((branch) => {
      if (!isSchema(branch) || keyed === undefined) return branch;
      // Literals of a union that also has other members are one branch: they follow the union's order.
      if (Array.isArray(branch.enum)) return { ...branch, enum: inOrder(branch.enum, literalRank) };
      const match = keyed.find((entry) => entry.key !== undefined && branchKeys(branch, walk).includes(entry.key));
      return match === undefined || !ts.isTypeNode(match.member) ? branch : ordered(branch, checker.getTypeFromTypeNode(match.member), match.member, walk, depth + 1);
    });
  }
  if (isSchema(schema.properties)) {
    const properties: JsonSchema = {};
    for (const [name, inner] of Object.entries(schema.properties)) {
      const symbol = isSchema(inner) ? checker.getApparentType(type).getProperty(name) : undefined;
      const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
      properties[name] = symbol !== undefined && isSchema(inner) ? ordered(inner, checker.getTypeOfSymbol(symbol), declaration, walk, depth + 1) : inner;
    }
    out.properties = properties;
  }
  if (isSchema(schema.items) && checker.isArrayType(type)) {
    const element = checker.getTypeArguments(type as ts.TypeReference)[0];
    if (element !== undefined) out.items = ordered(schema.items, element, elementNode(node), walk, depth + 1);
  }
  return out;
}

/** `values` sorted by `rank` (stable; an unranked value, -1, keeps its place after the ranked ones). */
function inOrder<T>(values: readonly T[], rank: (value: T) => number): T[] {
  const ranked = values.map((value, index) => ({ value, index, rank: rank(value) }));
  const order = (entry: { rank: number }) => (entry.rank === -1 ? Number.MAX_SAFE_INTEGER : entry.rank);
  return ranked.sort((a, b) => order(a) - order(b) || a.index - b.index).map((entry) => entry.value);
}

/** The type node a declaration writes (`x: T`), or the node itself when it is one. */
function typeNodeOf(node: ts.Node | undefined): ts.TypeNode | undefined {
  if (node === undefined) return undefined;
  if (ts.isTypeNode(node)) return node;
  if (ts.isParameter(node) || ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isTypeAliasDeclaration(node)) return node.type;
  return undefined;
}

/** A union's members as written, aliases of unions and enums flattened in place; `undefined` when not known. */
function writtenMembers(type: ts.Type, node: ts.Node | undefined, checker: ts.TypeChecker): ts.Node[] | undefined {
  let written = typeNodeOf(node);
  if (written === undefined) {
    const alias = type.aliasSymbol?.declarations?.find(ts.isTypeAliasDeclaration);
    const enumDeclaration = type.symbol?.declarations?.find(ts.isEnumDeclaration);
    if (enumDeclaration !== undefined) return [...enumDeclaration.members];
    written = alias?.type;
  }
  if (written === undefined) return undefined;
  const members = flatten(written, checker, 0);
  return members.length > 1 || (members.length === 1 && ts.isEnumMember(members[0]!)) ? members : undefined;
}

function flatten(node: ts.Node, checker: ts.TypeChecker, depth: number): ts.Node[] {
  if (depth > MAX_DEPTH) return [node];
  if (ts.isParenthesizedTypeNode(node)) return flatten(node.type, checker, depth + 1);
  if (ts.isUnionTypeNode(node)) return node.types.flatMap((member) => flatten(member, checker, depth + 1));
  if (ts.isTypeReferenceNode(node)) {
    let symbol = checker.getSymbolAtLocation(node.typeName);
    if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    if (declaration !== undefined && ts.isEnumDeclaration(declaration)) return [...declaration.members];
    if (declaration !== undefined && ts.isTypeAliasDeclaration(declaration) && declaration.typeParameters === undefined) {
      const inner = declaration.type;
      if (ts.isUnionTypeNode(inner) || ts.isParenthesizedTypeNode(inner) || ts.isTypeReferenceNode(inner) || ts.isIndexedAccessTypeNode(inner)) return flatten(inner, checker, depth + 1);
    }
  }
  if (ts.isIndexedAccessTypeNode(node)) {
    const values = constValues(node, checker);
    if (values !== undefined) return values.flatMap((value) => flatten(value, checker, depth + 1));
  }
  return [node];
}

/**
 * What `(typeof A)[number]` or `(typeof O)[keyof typeof O]` stands for, in the order the constant writes
 * it: the element types of its declared tuple type or array type, else the elements of its `as const`
 * array or the values of its `as const` object (expressions, read as literals); `undefined` when the
 * constant cannot be followed or holds a spread.
 */
function constValues(node: Compiler.IndexedAccessTypeNode, checker: ts.TypeChecker): ts.Node[] | undefined {
  const object = withoutParentheses(node.objectType);
  if (!ts.isTypeQueryNode(object)) return undefined;
  const constant = variableOf(object.exprName, checker);
  if (constant === undefined) return undefined;
  const index = withoutParentheses(node.indexType);
  if (index.kind === ts.SyntaxKind.NumberKeyword) {
    if (constant.type !== undefined) {
      const declared = withoutParentheses(constant.type);
      const list = ts.isTypeOperatorNode(declared) && declared.operator === ts.SyntaxKind.ReadonlyKeyword ? withoutParentheses(declared.type) : declared;
      if (ts.isTupleTypeNode(list)) return list.elements.some(ts.isRestTypeNode) ? undefined : list.elements.map((element) => (ts.isNamedTupleMember(element) ? element.type : element));
      return ts.isArrayTypeNode(list) ? [list.elementType] : undefined;
    }
    const array = constantValue(constant.initializer);
    if (array === undefined || !ts.isArrayLiteralExpression(array) || array.elements.some(ts.isSpreadElement)) return undefined;
    return [...array.elements];
  }
  if (constant.type !== undefined || !ts.isTypeOperatorNode(index) || index.operator !== ts.SyntaxKind.KeyOfKeyword) return undefined;
  const keys = withoutParentheses(index.type);
  if (!ts.isTypeQueryNode(keys) || variableOf(keys.exprName, checker) !== constant) return undefined;
  const literal = constantValue(constant.initializer);
  if (literal === undefined || !ts.isObjectLiteralExpression(literal)) return undefined;
  const values = literal.properties.map((property) => (ts.isPropertyAssignment(property) ? property.initializer : undefined));
  return values.every((value) => value !== undefined) ? values : undefined;
}

function withoutParentheses(node: ts.TypeNode): ts.TypeNode {
  return ts.isParenthesizedTypeNode(node) ? withoutParentheses(node.type) : node;
}

/** The `const` a `typeof` names, through an import. */
function variableOf(name: Compiler.EntityName, checker: ts.TypeChecker): Compiler.VariableDeclaration | undefined {
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  return declaration !== undefined && ts.isVariableDeclaration(declaration) ? declaration : undefined;
}

/** The array or object an initializer writes, through `as const`, `satisfies` and parentheses. */
function constantValue(expression: ts.Expression | undefined): ts.Expression | undefined {
  if (expression === undefined) return undefined;
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)) return constantValue(expression.expression);
  return expression;
}

/** The literal values a written member stands for: its own, `false, true` for `boolean`, none for the rest. */
function writtenLiterals(node: ts.Node, checker: ts.TypeChecker): JsonValue[] {
  if (node.kind === ts.SyntaxKind.BooleanKeyword) return [false, true];
  const literal = literalOf(node, checker);
  return literal === undefined ? [] : [literal.value];
}

function literalOf(node: ts.Node, checker: ts.TypeChecker): { value: JsonValue } | undefined {
  if (ts.isEnumMember(node)) {
    const value = checker.getConstantValue(node);
    return value === undefined ? undefined : { value };
  }
  // A literal type, or an element of an `as const` constant (constValues).
  const expression = ts.isLiteralTypeNode(node) ? node.literal : ts.isExpression(node) ? node : undefined;
  const value = literalDefault(expression);
  return value === undefined || (typeof value === "object" && value !== null) ? undefined : { value };
}

/** What a written member is, in the terms a schema branch can be matched by. */
function memberKey(node: ts.Node, checker: ts.TypeChecker): string | undefined {
  const literal = literalOf(node, checker);
  if (literal !== undefined) return literal.value === null ? "null" : `literal:${JSON.stringify(literal.value)}`;
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
    case ts.SyntaxKind.TemplateLiteralType:
      return "string";
    case ts.SyntaxKind.NumberKeyword:
      return "number";
    case ts.SyntaxKind.BooleanKeyword:
      return "boolean";
    case ts.SyntaxKind.ArrayType:
    case ts.SyntaxKind.TupleType:
      return "array";
  }
  if (!ts.isTypeNode(node)) return undefined;
  const type = checker.getTypeFromTypeNode(node);
  if (checker.isArrayType(type) || checker.isTupleType(type)) return "array";
  // A Date is sent as a date-time string.
  if (type.getSymbol()?.getName() === "Date") return "string";
  if (!(type.flags & ts.TypeFlags.Object)) return undefined;
  return `object:${type.getProperties().map((symbol) => symbol.name).sort().join(",")}`;
}

/** The keys a schema branch matches: its literals, its type, or its object's property names. */
function branchKeys(branch: JsonValue, walk: Walk): string[] {
  if (!isSchema(branch)) return [];
  if (typeof branch.$ref === "string" && branch.$ref.startsWith("#/definitions/")) {
    const target = walk.definitions?.[decodeURIComponent(branch.$ref.slice("#/definitions/".length))];
    return target === undefined ? [] : branchKeys(target, { ...walk, definitions: undefined });
  }
  if ("const" in branch) return [branch.const === null ? "null" : `literal:${JSON.stringify(branch.const)}`];
  if (Array.isArray(branch.enum)) return branch.enum.map((value) => (value === null ? "null" : `literal:${JSON.stringify(value)}`));
  const types = Array.isArray(branch.type) ? branch.type : [branch.type];
  const keys: string[] = [];
  for (const type of types) {
    if (type === "integer" || type === "number") keys.push("number");
    else if (type === "object" || (type === undefined && isSchema(branch.properties))) keys.push(`object:${Object.keys(isSchema(branch.properties) ? branch.properties : {}).sort().join(",")}`);
    else if (typeof type === "string") keys.push(type);
  }
  return keys;
}

function elementNode(node: ts.Node | undefined): ts.Node | undefined {
  let written = typeNodeOf(node);
  while (written !== undefined && (ts.isParenthesizedTypeNode(written) || ts.isTypeOperatorNode(written))) written = written.type;
  if (written === undefined) return undefined;
  if (ts.isArrayTypeNode(written)) return written.elementType;
  if (ts.isTypeReferenceNode(written) && written.typeArguments?.length === 1) return written.typeArguments[0];
  return undefined;
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
