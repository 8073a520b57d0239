/**
 * What an MCP client receives, over stdio and over `--http`, from tools that return images and audio,
 * report progress and log: `image` / `audio` content items in order, `notifications/progress` for the
 * request's own `progressToken` (and none without one, none after the result), the `logging`
 * capability, `notifications/message` at `info` and above until `logging/setLevel` says otherwise, and
 * -32602 for a level that is not MCP's. The real SDK Client on both transports.
 */
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, EmptyResultSchema, LoggingMessageNotificationSchema, ProgressNotificationSchema, type Notification } from "@modelcontextprotocol/sdk/types.js";
import { LOG_LEVELS } from "../../src/runtime/execution/tool-reports.js";
import { richSchemas } from "../fixtures/rich-results/schemas.js";
import { PNG, WAV } from "../fixtures/rich-results/tools/media.js";
import { connectClient, startHttpServer, type HttpServerRun } from "./http-support.js";
import { startClient, type McpClientRun } from "./support.js";

const { file } = richSchemas();
const serverArgs = ["--workspace", path.dirname(file), "--schemas", file];

interface Connected {
  client: Client;
  /** Every progress and log notification received, in order. */
  notifications: Notification[];
  close(): Promise<void>;
}

function collect(client: Client): Notification[] {
  const notifications: Notification[] = [];
  // In place of the SDK's own progress handler, which keeps only the tokens it made itself.
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => void notifications.push(notification));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void notifications.push(notification));
  return notifications;
}

let stdio: McpClientRun | undefined;
let http: HttpServerRun | undefined;

beforeAll(async () => {
  [stdio, http] = await Promise.all([startClient(serverArgs), startHttpServer([...serverArgs, "--http", "0"])]);
}, 60_000);

afterAll(async () => {
  await stdio?.close();
  await http?.stop();
});

const transports: Array<[string, () => Promise<Connected>]> = [
  ["stdio", async () => ({ client: stdio!.client, notifications: collect(stdio!.client), close: async () => undefined })],
  [
    "http",
    async () => {
      const { client } = await connectClient(http!.url);
      return { client, notifications: collect(client), close: () => client.close() };
    },
  ],
];

const callWithToken = (client: Client, name: string, args: object, progressToken?: unknown) =>
  client.request({ method: "tools/call", params: { name, arguments: args, ...(progressToken !== undefined ? { _meta: { progressToken } } : {}) } } as never, CallToolResultSchema);

describe.each(transports)("over %s", (_name, connect) => {
  it("serves images and audio as MCP content items, in order, and lists no output schema for them", async () => {
    const { client, close } = await connect();
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === "chart")).not.toHaveProperty("outputSchema");
      expect(await client.callTool({ name: "chart_with_caption", arguments: {} })).toEqual({
        content: [
          { type: "text", text: "Sales by month" },
          { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
          { type: "text", text: "Spoken summary:" },
          { type: "audio", data: WAV.toString("base64"), mimeType: "audio/wav" },
        ],
      });
      expect(await client.callTool({ name: "logo", arguments: {} })).toEqual({
        content: [{ type: "image", data: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64"), mimeType: "image/svg+xml" }],
      });
      const oversized = await client.callTool({ name: "oversized", arguments: {} });
      expect(oversized.isError).toBe(true);
      expect((oversized.content as { text: string }[])[0]!.text).toMatch(/^The tool oversized returned an image of 10485761 bytes, over the limit of 10485760 bytes per image or audio item/);
    } finally {
      await close();
    }
  });

  it("sends progress for the request's token before the result, none after it and none without a token", async () => {
    const { client, notifications, close } = await connect();
    try {
      const result = await callWithToken(client, "count_to", { steps: 3, pauseMs: 80 }, "job-7");
      const atResult = notifications.length;
      expect(result.content).toEqual([{ type: "text", text: "counted to 3" }]);
      expect(notifications).toEqual([1, 2, 3].map((step) => ({ method: "notifications/progress", params: { progressToken: "job-7", progress: step, total: 3, message: `step ${step}` } })));
      await callWithToken(client, "count_to", { steps: 2, pauseMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(notifications.length).toBe(atResult);
    } finally {
      await close();
    }
  });

  it("logs at info and above until the client sets a level, then at that level and above; the logger is the tool", async () => {
    const { client, notifications, close } = await connect();
    const levels = async (): Promise<unknown[]> => {
      notifications.length = 0;
      await client.callTool({ name: "chatty", arguments: {} });
      return notifications.map((notification) => notification.params?.level);
    };
    try {
      expect(await levels()).toEqual(["info", "warning", "error"]);
      expect(notifications[0]).toEqual({ method: "notifications/message", params: { level: "info", logger: "chatty", data: "fetching rates" } });
      await client.setLoggingLevel("error");
      expect(await levels()).toEqual(["error"]);
      await client.setLoggingLevel("debug");
      expect(await levels()).toEqual(["debug", "info", "warning", "error"]);
    } finally {
      await close();
    }
  });
});

it("the SDK's own onprogress sees every step of a call, the last one (sent just before the result) included, on both transports", async () => {
  const fresh = await startClient(serverArgs);
  const { client: overHttp } = await connectClient(http!.url);
  try {
    for (const client of [fresh.client, overHttp]) {
      for (let round = 0; round < 3; round += 1) {
        const seen: number[] = [];
        await client.callTool({ name: "count_to", arguments: { steps: 3, pauseMs: 60 } }, undefined, { onprogress: ({ progress }) => void seen.push(progress) });
        expect(seen).toEqual([1, 2, 3]);
      }
    }
  } finally {
    await fresh.close();
    await overHttp.close();
  }
}, 60_000);

describe("input from clients", () => {
  it("logging/setLevel takes MCP's eight levels and answers anything else with -32602", async () => {
    const client = stdio!.client;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...LOG_LEVELS), fc.string(), fc.integer(), fc.constant(null)), async (level) => {
        const answer = await client.request({ method: "logging/setLevel", params: { level } } as never, EmptyResultSchema).then(
          (result) => ({ result }),
          (error: { code?: number }) => ({ code: error.code }),
        );
        expect(answer).toEqual((LOG_LEVELS as readonly unknown[]).includes(level) ? { result: {} } : { code: -32602 });
      }),
      { numRuns: 40 },
    );
    await client.setLoggingLevel("info");
  });

  it("a progressToken that is a string or an integer gets its progress; any other makes an invalid request, sent no progress", async () => {
    const { client, notifications, close } = await transports[0]![1]();
    try {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.dictionary(fc.string(), fc.string())), async (token) => {
          notifications.length = 0;
          const valid = typeof token === "string" || Number.isSafeInteger(token);
          const answer = await callWithToken(client, "count_to", { steps: 1, pauseMs: 0 }, token).then(
            (result) => result.content,
            (error: { code?: number }) => error.code,
          );
          expect(answer).toEqual(valid ? [{ type: "text", text: "counted to 1" }] : -32600);
          expect(notifications).toEqual(valid ? [{ method: "notifications/progress", params: { progressToken: JSON.parse(JSON.stringify(token)) as unknown, progress: 1, total: 1, message: "step 1" } }] : []);
        }),
        { numRuns: 30 },
      );
    } finally {
      await close();
    }
  });
});
