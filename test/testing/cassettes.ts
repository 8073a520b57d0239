/** Cassettes written by hand for the replay's tests: chat exchanges as the SDK sends and the API answers them. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { CassetteExchange, CassetteReplay } from "../../src/testing.js";
import { tempDir } from "../cli/support.js";

/** A chat request the way the SDK sends it, and the recorded JSON answer to it. */
export function exchange(question: string, answer: string): CassetteExchange {
  return {
    request: { method: "POST", path: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content: question }] } },
    response: {
      status: 200,
      contentType: "application/json",
      body: JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }] }),
    },
  };
}

/** A cassette file holding `exchanges`, in a fresh temporary folder. */
export function writeCassette(exchanges: readonly CassetteExchange[]): string {
  const file = path.join(tempDir(), "session.jsonl");
  writeFileSync(file, [{ cassette: "sigloop", version: 1 }, ...exchanges].map((line) => `${JSON.stringify(line)}\n`).join(""));
  return file;
}

/** A cassette file of exactly `text` (lines written by hand, as a user's editor leaves them), in a fresh temporary folder. */
export function writeCassetteText(text: string): string {
  const file = path.join(tempDir(), "session.jsonl");
  writeFileSync(file, text);
  return file;
}

/** The header line, then each of `values` as a JSON line, newline-joined. */
export function cassetteLines(...values: readonly unknown[]): string[] {
  return [{ cassette: "sigloop", version: 1 }, ...values].map((value) => JSON.stringify(value));
}

/** POSTs `body` to the replay's chat endpoint; resolves with the status once the answer is read. */
export async function post(model: CassetteReplay, body: string): Promise<number> {
  const response = await fetch(`${model.baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
  await response.text();
  return response.status;
}

/** Sends the request an exchange recorded. */
export const ask = (model: CassetteReplay, recorded: CassetteExchange) => post(model, JSON.stringify(recorded.request.body));
