/**
 * Enum values and union branches in the order the source writes them (`"m" | "km" | "mi"` stays so), an
 * alias of a union flattened in place. The checker lists a union's members in the order it happened to
 * create their types, which differs between a cold run and a watch-mode update, so finishing sorts them
 * first; this then puts them in written order, read from the declarations alone, so the bytes still
 * depend on the source only. A schema node whose declaration cannot be followed keeps the sorted order.
 */
import { ts } from "../program/compiler.js";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";

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
  const written = members?.map((member) => literalOf(member, checker));
  const literalRank = (value: JsonValue): number => written?.findIndex((literal) => literal !== undefined && literal.value === value) ?? -1;
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
      return match === undefined ? branch : ordered(branch, checker.getTypeFromTypeNode(match.member as ts.TypeNode), match.member, walk, depth + 1);
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
      if (ts.isUnionTypeNode(inner) || ts.isParenthesizedTypeNode(inner) || ts.isTypeReferenceNode(inner)) return flatten(inner, checker, depth + 1);
    }
  }
  return [node];
}

function literalOf(node: ts.Node, checker: ts.TypeChecker): { value: JsonValue } | undefined {
  if (ts.isEnumMember(node)) {
    const value = checker.getConstantValue(node);
    return value === undefined ? undefined : { value };
  }
  if (!ts.isLiteralTypeNode(node)) return undefined;
  const literal = node.literal;
  if (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) return { value: literal.text };
  if (ts.isNumericLiteral(literal)) return { value: Number(literal.text) };
  if (ts.isPrefixUnaryExpression(literal) && literal.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(literal.operand)) return { value: -Number(literal.operand.text) };
  if (literal.kind === ts.SyntaxKind.TrueKeyword) return { value: true };
  if (literal.kind === ts.SyntaxKind.FalseKeyword) return { value: false };
  if (literal.kind === ts.SyntaxKind.NullKeyword) return { value: null };
  return undefined;
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
