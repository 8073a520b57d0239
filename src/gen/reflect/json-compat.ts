import { ts } from "../program/compiler.js";

/** Something in a parameter's type that JSON cannot carry (an error) or does not constrain (a warning). */
export interface TypeFinding {
  /**
   * `classJson`: a class whose JSON is not what its type shows (`hiddenMember`, `classAccessor`); fine for
   * an argument, which arrives as a plain object, but not for a returned instance.
   */
  kind: "unsupported" | "unconstrained" | "classJson";
  /** The offending type as TypeScript prints it, e.g. `() => void`. */
  typeText: string;
  /** Where it sits inside the parameter, e.g. `opts.cache` or `items[]`. */
  path: string;
  /** For `classJson`: what the member at `path` is. */
  member?: "hidden" | "accessor";
  /** The member declaration it comes from, when there is one in a source file. */
  declaration?: ts.Node;
}

/**
 * Walks a parameter type the way JSON would see it: primitives, literals, enums, arrays, tuples, plain
 * objects, records, `Date` (as a string) and `null` are fine; functions, symbols, bigints, objects with
 * methods (class instances, Map, Set, Promise), `never`, `void` and a bare `undefined` are not.
 * `any` and `unknown` accept every JSON value, which is allowed but worth a warning. A class's
 * `private`, `protected` and `#private` members are not visited: no caller can pass them.
 */
export function inspectJsonType(type: ts.Type, checker: ts.TypeChecker, path: string): TypeFinding[] {
  if (cleanTypes.has(type)) return [];
  const findings: TypeFinding[] = [];
  const seen = new Set<ts.Type>();

  const visit = (current: ts.Type, at: string, declaration?: ts.Node): void => {
    if (seen.has(current)) return;
    const report = (kind: TypeFinding["kind"]) =>
      findings.push({ kind, typeText: checker.typeToString(current), path: at, ...(declaration ? { declaration } : {}) });
    const flags = current.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return void report("unconstrained");
    if (flags & (ts.TypeFlags.Never | ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.BigIntLike | ts.TypeFlags.ESSymbolLike | ts.TypeFlags.TypeParameter)) {
      return void report("unsupported");
    }
    if (current.isUnion()) {
      const members = current.types.filter((member) => !(member.flags & ts.TypeFlags.Undefined));
      if (members.length === 0) return void report("unsupported");
      for (const member of members) visit(member, at, declaration);
      return;
    }
    if (current.isIntersection()) {
      for (const member of current.types) visit(member, at, declaration);
      return;
    }
    if (!(flags & ts.TypeFlags.Object)) return;
    seen.add(current);
    if (checker.isArrayType(current) || checker.isTupleType(current)) {
      for (const element of checker.getTypeArguments(current as ts.TypeReference)) visit(element, `${at}[]`, declaration);
      return;
    }
    if (isDate(current)) return;
    if (current.getCallSignatures().length > 0 || current.getConstructSignatures().length > 0) return void report("unsupported");
    const properties = checker.getPropertiesOfType(current);
    if (properties.some((property) => property.flags & ts.SymbolFlags.Method && !hiddenMember(property))) return void report("unsupported");
    for (const property of properties) {
      const hidden = hiddenMember(property);
      if (hidden || classAccessor(property)) {
        findings.push({ kind: "classJson", typeText: checker.typeToString(current), path: `${at}.${property.getName()}`, member: hidden ? "hidden" : "accessor" });
      }
      if (hidden) continue;
      const memberDeclaration = property.valueDeclaration ?? property.declarations?.[0];
      visit(checker.getTypeOfSymbol(property), `${at}.${property.getName()}`, memberDeclaration ?? declaration);
    }
    for (const index of checker.getIndexInfosOfType(current)) visit(index.type, `${at}[string]`, declaration);
  };

  visit(type, path);
  if (findings.length === 0) cleanTypes.add(type);
  return findings;
}

/**
 * A class member no caller sees: `private`, `protected`, or a `#private` field. A value from JSON is a
 * plain object, never an instance, so only a class's public members describe it.
 */
export function hiddenMember(member: ts.Symbol): boolean {
  const declaration = member.valueDeclaration;
  // Members of object types and interfaces, nearly all of them, have no visibility.
  if (declaration === undefined || declaration.kind === ts.SyntaxKind.PropertySignature) return false;
  const name = ts.getNameOfDeclaration(declaration);
  if (name !== undefined && ts.isPrivateIdentifier(name)) return true;
  return (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

/** A class's getter or setter: data in an argument, but on the prototype of an instance, so JSON never writes it. */
function classAccessor(member: ts.Symbol): boolean {
  return (member.flags & ts.SymbolFlags.Accessor) !== 0 && (member.declarations ?? []).some((declaration) => ts.isClassLike(declaration.parent));
}

/** The members of a type that a caller can pass: all but a class's hidden ones. */
export function visibleMembers(members: ts.Symbol[]): ts.Symbol[] {
  return members.some(hiddenMember) ? members.filter((member) => !hiddenMember(member)) : members;
}

/** Types already found to carry nothing JSON cannot: tools share most parameter types. */
const cleanTypes = new WeakSet<ts.Type>();

function isDate(type: ts.Type): boolean {
  const symbol = type.getSymbol();
  return symbol?.getName() === "Date" && (symbol.declarations ?? []).some((d) => d.getSourceFile().hasNoDefaultLib);
}
