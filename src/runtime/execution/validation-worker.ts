/**
 * The thread where arguments are validated when their schema's cost has no bound small enough to run
 * on the main thread (`stoppable-validation.ts`): the same Ajv, repairs and messages as in process, in a
 * thread the main one can terminate when the call's time limit passes. Schemas arrive once per thread,
 * by id, and are compiled on first use.
 */
import { parentPort } from "node:worker_threads";
import type { Ajv, ValidateFunction } from "ajv";
import type { READY, ValidationReply, ValidationRequest } from "./stoppable-validation.js";
import { compileArguments, createAjv, validateArguments, type SchemaDialect } from "./validate-arguments.js";

const ajvs = new Map<SchemaDialect, Promise<Ajv>>();
const validators = new Map<number, ValidateFunction>();

function createAjvFor(dialect: SchemaDialect): Promise<Ajv> {
  let ajv = ajvs.get(dialect);
  if (ajv === undefined) {
    ajv = createAjv(dialect);
    ajvs.set(dialect, ajv);
  }
  return ajv;
}

async function validatorFor(request: ValidationRequest): Promise<ValidateFunction> {
  let validate = validators.get(request.schemaId);
  if (validate === undefined) {
    if (request.schema === undefined) throw new Error(`schema ${request.schemaId} was never sent to this thread`);
    validate = compileArguments(await createAjvFor(request.dialect), request.schema);
    validators.set(request.schemaId, validate);
  }
  return validate;
}

async function answer(request: ValidationRequest): Promise<ValidationReply> {
  let validate: ValidateFunction;
  try {
    validate = await validatorFor(request);
  } catch (error) {
    return { id: request.id, kind: "schema_failed", error: plainError(error) };
  }
  try {
    const result = validateArguments(validate, request.args);
    return { id: request.id, kind: "checked", result, args: request.args };
  } catch (error) {
    return { id: request.id, kind: error instanceof RangeError ? "too_deep" : "failed", error: plainError(error) };
  }
}

function plainError(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: "Error", message: String(error) };
}

parentPort?.on("message", (request: ValidationRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
// Ajv loaded before the first request, so the call's time limit is spent on validating.
void createAjvFor("draft-07").then(() => parentPort?.postMessage({ ready: true } satisfies typeof READY));
