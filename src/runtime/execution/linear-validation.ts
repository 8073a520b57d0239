/**
 * The two places where Ajv's own validation can take longer than linear time in the size of the
 * arguments, replaced so that no schema can make one call hold the process: `pattern` (and
 * `patternProperties`, `propertyNames`) runs on RE2's engine (re2js, pure JavaScript, linear time, no
 * backtracking), so `^(a+)+$` or a template-literal pattern answers as fast on 16 KB as on 16 bytes; and
 * `uniqueItems` compares each item's canonical JSON text in a `Map` instead of every pair of items
 * (10,000 objects: milliseconds instead of 22 s). A pattern RE2 cannot run (lookaround, backreferences)
 * makes its tool's schema fail to compile, which that tool's calls report.
 */
import { createRequire } from "node:module";
import type { Ajv, KeywordDefinition, Options } from "ajv";
import { canonicalJson } from "../../shared/canonical-json.js";

type RegExpEngine = NonNullable<NonNullable<Options["code"]>["regExp"]>;

const require = createRequire(import.meta.url);

/** Ajv's `code.regExp`: compiles each schema pattern once with RE2. */
export const re2Engine: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    // JavaScript's own syntax first, so an invalid pattern reads as it always did.
    new RegExp(pattern, flags);
    const { RE2JS } = require("re2js") as typeof import("re2js");
    let compiled: import("re2js").RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      throw new SyntaxError(`Invalid regular expression: /${pattern}/${flags}: not one that runs in linear time (${error instanceof Error ? error.message : String(error)}); lookarounds and backreferences are not supported`);
    }
    // Ajv keys its cache of compiled patterns by this text.
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: "re2js" },
);

/** Installs the linear `uniqueItems` in place of Ajv's pairwise one. */
export function useLinearUniqueItems(ajv: Ajv): Ajv {
  ajv.removeKeyword("uniqueItems");
  return ajv.addKeyword(uniqueItemsKeyword);
}

const uniqueItemsKeyword: KeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: function validate(wanted: boolean, data: unknown[]): boolean {
    if (!wanted) return true;
    const seen = new Map<string, number>();
    for (const [index, item] of data.entries()) {
      const key = canonicalJson(item);
      const first = seen.get(key);
      if (first !== undefined) {
        // Ajv's own error shape, so the problem reads as before: items j and i are equal.
        (validate as { errors?: object[] }).errors = [{ keyword: "uniqueItems", params: { i: index, j: first }, message: `must NOT have duplicate items (items ## ${first} and ${index} are identical)` }];
        return false;
      }
      seen.set(key, index);
    }
    return true;
  },
};
