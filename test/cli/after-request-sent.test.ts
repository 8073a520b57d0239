import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { onceRequestSent } from "../../src/cli/after-request-sent.js";
import { nodeHttpFetch } from "../../src/runtime/model/node-http-fetch.js";

let server: Server | undefined;
afterEach(() => server?.close());

async function listen(): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push(body);
      response.end("ok");
    });
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, received };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test.each([
  ["the model client's transport", nodeHttpFetch],
  ["Node's fetch (redirects)", fetch],
])("the work waiting for the first request runs once that request's body is sent by %s, and only once", async (_, fetch) => {
  const { url, received } = await listen();
  const runs: string[][] = [];
  onceRequestSent(() => runs.push([...received]));
  await nextTurn();
  expect(runs).toEqual([]);
  await (await fetch(url, { method: "POST", body: "first" })).text();
  await (await fetch(url, { method: "POST", body: "second" })).text();
  await nextTurn();
  expect(runs).toHaveLength(1);
  expect(received).toEqual(["first", "second"]);
});
