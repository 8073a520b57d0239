import { ts } from "./compiler.js";

/**
 * Whether a file's code names one of Node's globals (`process`, `Buffer`, `setTimeout`, `URL`, …), which
 * only Node's typings declare under gen's ES2022 library. Comments, strings, template text, regular
 * expressions and property names (`task.process`, `{ process: 1 }`) do not count: the word "process" in a JSDoc comment
 * must not cost a tools folder the load of all of Node's typings. Runs the compiler's scanner, not its
 * parser: it decides compiler options before any file is parsed.
 */
export function mentionsNodeGlobal(text: string): boolean {
  // Most files never spell any of the names: a regular expression settles those without scanning.
  if (!ANY_NAME.test(text)) return false;
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text);
  // Open braces, `true` for the `${` of a template: its `}` resumes the template's text.
  const braces: boolean[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.CloseBraceToken && braces.pop() === true) {
      token = scanner.reScanTemplateToken(false);
      if (token === ts.SyntaxKind.TemplateMiddle) braces.push(true);
    } else if (token === ts.SyntaxKind.OpenBraceToken) {
      braces.push(false);
    } else if (token === ts.SyntaxKind.TemplateHead) {
      braces.push(true);
    } else if ((token === ts.SyntaxKind.SlashToken || token === ts.SyntaxKind.SlashEqualsToken) && !endsExpression(previous)) {
      token = scanner.reScanSlashToken();
    } else if (token === ts.SyntaxKind.Identifier && !isMemberAccess(previous) && NODE_GLOBALS.has(scanner.getTokenValue())) {
      if (!(startsMember(previous) && scanner.lookAhead(() => namesMember(scanner.scan(), scanner)))) return true;
    }
    previous = token;
  }
  return false;
}

const NODE_GLOBALS = new Set([
  "process", "Buffer", "console", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval",
  "clearImmediate", "queueMicrotask", "__dirname", "__filename", "require", "exports", "fetch",
  "structuredClone", "TextEncoder", "TextDecoder", "URL", "URLSearchParams", "AbortController", "AbortSignal",
  "Blob", "Headers", "Request", "Response", "FormData", "performance", "atob", "btoa",
]);

const ANY_NAME = new RegExp(`\\b(?:${[...NODE_GLOBALS].join("|")})\\b`);

function isMemberAccess(previous: ts.SyntaxKind): boolean {
  return previous === ts.SyntaxKind.DotToken || previous === ts.SyntaxKind.QuestionDotToken;
}

/** Where a property, parameter or object key may start: `{ process: 1 }`, `(fetch?: string)`. */
function startsMember(previous: ts.SyntaxKind): boolean {
  return (
    previous === ts.SyntaxKind.OpenBraceToken ||
    previous === ts.SyntaxKind.CommaToken ||
    previous === ts.SyntaxKind.SemicolonToken ||
    previous === ts.SyntaxKind.OpenParenToken
  );
}

/** `:` or `?:` after a name there declares it; `?` alone would make it a condition that uses it. */
function namesMember(next: ts.SyntaxKind, scanner: ts.Scanner): boolean {
  return next === ts.SyntaxKind.ColonToken || (next === ts.SyntaxKind.QuestionToken && scanner.scan() === ts.SyntaxKind.ColonToken);
}

/** After these a `/` divides; anywhere else it opens a regular expression. */
function endsExpression(previous: ts.SyntaxKind): boolean {
  return (
    previous === ts.SyntaxKind.Identifier ||
    previous === ts.SyntaxKind.NumericLiteral ||
    previous === ts.SyntaxKind.BigIntLiteral ||
    previous === ts.SyntaxKind.StringLiteral ||
    previous === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
    previous === ts.SyntaxKind.TemplateTail ||
    previous === ts.SyntaxKind.RegularExpressionLiteral ||
    previous === ts.SyntaxKind.CloseParenToken ||
    previous === ts.SyntaxKind.CloseBracketToken ||
    previous === ts.SyntaxKind.CloseBraceToken ||
    previous === ts.SyntaxKind.ThisKeyword ||
    previous === ts.SyntaxKind.SuperKeyword ||
    previous === ts.SyntaxKind.PlusPlusToken ||
    previous === ts.SyntaxKind.MinusMinusToken
  );
}
