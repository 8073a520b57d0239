/**
 * An endpoint's error message reaches the user whatever the shape of its body (vLLM, FastAPI, Ollama,
 * proxies), through the real SDK against the scripted server: the status, the API's own words, the hint,
 * never the key.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiErrorMessage } from "../../../src/runtime/model/api-error-message.js";
import { describeModelError } from "../../../src/runtime/model/model-errors.js";
import type { ScriptStep } from "../../../src/scripted-server/scripted-server.js";
import { API_KEY, requestTurn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

const status = (code: number, body: unknown): ScriptStep => ({ fault: "status", status: code, body });

describe("the API's message from any body shape", () => {
  const cases: Array<[string, number, unknown, string]> = [
    ["vLLM's object error", 404, { object: "error", message: "The model `llama` does not exist.", type: "NotFoundError", param: null, code: 404 }, "The model `llama` does not exist."],
    ["FastAPI's detail string (a missing /v1)", 404, { detail: "Not Found" }, "Not Found"],
    ["FastAPI's validation list", 422, { detail: [{ loc: ["body", "messages"], msg: "field required", type: "missing" }, { loc: ["body", "model"], msg: "str type expected" }] }, "field required; str type expected"],
    ["an error string", 400, { error: "model 'x' not found, try pulling it first" }, "model 'x' not found, try pulling it first"],
    ["OpenAI's shape", 400, { error: { message: "Invalid 'messages'", type: "invalid_request_error" } }, "Invalid 'messages'"],
    ["JSON of another shape", 400, { status: "failed", reason: 7 }, '{"status":"failed","reason":7}'],
  ];

  describe.each([
    ["streaming", true],
    ["non-streaming", false],
  ])("%s", (_label, stream) => {
    it.each(cases)("%s", async (_name, code, body, shown) => {
      const run = await requestTurn(ctx.server, [status(code, body)], stream);
      expect(run.error).toMatchObject({ kind: "http", status: code, retryable: false });
      expect(run.error?.message).toBe(`HTTP ${code} from ${ctx.server.baseURL}: ${shown}`);
    });
  });

  it("a 404 keeps its hint; a 401 echoing the key in a detail shows it masked", async () => {
    const notFound = await requestTurn(ctx.server, [status(404, { detail: "Not Found" })], true);
    expect(notFound.error?.hint).toMatch(/AGENT_MODEL or --model .*\/v1/);
    const echoed = await requestTurn(ctx.server, [status(401, { detail: `bad key ${API_KEY}` })], true);
    expect(echoed.error?.message).toMatch(/^HTTP 401 from .*: bad key /);
    expect(describeModelError(echoed.error!)).not.toContain(API_KEY);
    expect(echoed.error?.hint).toContain("OPENAI_API_KEY");
  });

  it("a plain-text body longer than 300 characters: its start", async () => {
    const run = await requestTurn(ctx.server, [status(400, `${"x".repeat(299)}yz and more`)], false);
    expect(run.error?.message).toBe(`HTTP 400 from ${ctx.server.baseURL}: ${"x".repeat(299)}y…`);
  });
});

describe("apiErrorMessage", () => {
  it("is the first 300 characters of any body without a message field, whole code points, never empty text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400, unit: "grapheme" }), (body) => {
        const message = apiErrorMessage(body);
        if (body.trim() === "") expect(message).toBeUndefined();
        else expect(Array.from(message ?? "").length).toBeLessThanOrEqual(301);
      }),
    );
    expect(apiErrorMessage(JSON.stringify({ message: "" , detail: "d" }))).toBe("d");
    expect(apiErrorMessage(JSON.stringify({ error: { message: 5 }, message: "m" }))).toBe("m");
  });
});
