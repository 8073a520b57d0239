/**
 * `throw new ToolInputError(message, { parameter })`: how a tool says "your argument is wrong" (a date
 * that does not exist, a file that is not there) rather than "I failed". The model then reads an argument
 * problem shaped like a schema failure, and the outcome is `invalid_arguments`. Recognised by a brand
 * registered with `Symbol.for`, not by `instanceof` alone: a tool's module may hold its own copy of this
 * class (another install of sigloop, a bundle, a copy of this file), and its errors mean the same.
 */

const BRAND = Symbol.for("sigloop.ToolInputError");

export interface ToolInputErrorOptions {
  /** The parameter at fault, as the model writes it: `path`, `options.mode`, `items[2].name`. */
  parameter?: string;
  cause?: unknown;
}

export class ToolInputError extends Error {
  readonly parameter: string | undefined;

  constructor(message: string, options: ToolInputErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolInputError";
    this.parameter = options.parameter;
  }

  /** Every copy of the class carries the same registered brand, subclasses included. */
  get [BRAND](): true {
    return true;
  }
}

/** What the model is told about a rejected argument. */
export interface ToolInputProblem {
  message: string;
  parameter?: string;
}

/**
 * The problem a thrown value reports when it is a `ToolInputError` of any copy of the class (its brand,
 * or failing that its name), else `undefined`.
 */
export function toolInputProblem(thrown: unknown): ToolInputProblem | undefined {
  if (typeof thrown !== "object" || thrown === null) return undefined;
  try {
    const candidate = thrown as { [BRAND]?: unknown; name?: unknown; message?: unknown; parameter?: unknown };
    if (candidate[BRAND] !== true && candidate.name !== "ToolInputError") return undefined;
    if (typeof candidate.message !== "string") return undefined;
    return { message: candidate.message, ...(typeof candidate.parameter === "string" && candidate.parameter !== "" ? { parameter: candidate.parameter } : {}) };
  } catch {
    // A hostile getter on what a tool threw is not an argument problem.
    return undefined;
  }
}
