/**
 * `sigloop mcp --http` as a real process, started as npm starts it (in the project root, with INIT_CWD
 * where the user was): a relative `--token-file` is read from the invoking folder; a refused request is
 * logged with the outcome `error`; a client gone in the middle of its body is logged `aborted`, not 200;
 * and a server that cannot start (a port in use, a missing token file) never says it is serving.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, httpFixtureSchemas, INITIALIZE, logLines, post, refusedStart, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, tempDir, until } from "./support.js";

const TOKEN = "relative-file-token-7c21e9";
let schemas: string;
/** Where the user ran `npm run mcp` from: holds `t.tok` and the workspace `ws`. */
let invokedFrom: string;

beforeAll(() => {
  schemas = httpFixtureSchemas();
  invokedFrom = tempDir();
  mkdirSync(path.join(invokedFrom, "ws"));
  writeFileSync(path.join(invokedFrom, "t.tok"), `${TOKEN}\n`);
});

describe("relative paths under npm", () => {
  it("reads a relative --token-file from the folder the command was started in, as it does --workspace", async () => {
    const server = await startHttpServer(["--workspace", "ws", "--schemas", schemas, "--http", "0", "--token-file", "t.tok"], { INIT_CWD: invokedFrom });
    try {
      expect(server.stderr()).toContain(`(workspace ${path.join(invokedFrom, "ws")})`);
      expect((await post(server.url, INITIALIZE)).status).toBe(401);
      const { client } = await connectClient(server.url, { authorization: `Bearer ${TOKEN}` });
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it("names the resolved path of a relative --token-file it cannot read, exits 2 and never says it is serving", async () => {
    const run = await refusedStart(["--workspace", "ws", "--schemas", schemas, "--http", "0", "--token-file", "absent.tok"], { INIT_CWD: invokedFrom });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: cannot read the token file ${path.join(invokedFrom, "absent.tok")} (ENOENT) (--token-file)\n`);
    expect(run.stderr).not.toContain("mcp: serving");
  });
});

describe("the request log", () => {
  let server: HttpServerRun;
  const auth = { authorization: `Bearer ${TOKEN}` };
  beforeAll(async () => {
    server = await startHttpServer(["--workspace", "ws", "--schemas", schemas, "--http", "0", "--token-file", path.join(invokedFrom, "t.tok"), "--max-body-bytes", "2000"], { INIT_CWD: invokedFrom });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("writes the outcome error for every refused request: 401, 406, 415, 413, a parse error, 404, 405", async () => {
    expect((await post(server.url, INITIALIZE)).status).toBe(401);
    expect((await post(server.url, INITIALIZE, { ...auth, accept: "application/json" })).status).toBe(406);
    expect((await post(server.url, INITIALIZE, { ...auth, "content-type": "text/plain" })).status).toBe(415);
    expect((await post(server.url, JSON.stringify({ pad: "x".repeat(3000) }), auth)).status).toBe(413);
    expect((await post(server.url, "{ not json", auth)).status).toBe(400);
    expect((await fetch(new URL("/other", server.url))).status).toBe(404);
    expect((await fetch(server.url, { method: "PUT", headers: auth })).status).toBe(405);
    await until(() => logLines(server).length >= 7);
    const shapes = logLines(server).map((line) => line.replace(/ [0-9]+ms$/, " Nms"));
    expect(shapes).toEqual(["http: POST - 401 error Nms", "http: POST - 406 error Nms", "http: POST - 415 error Nms", "http: POST - 413 error Nms", "http: POST - 400 error Nms", "http: GET - 404 error Nms", "http: PUT - 405 error Nms"]);
  });

  it("logs a client that leaves in the middle of its body as aborted, with no status it was never sent", async () => {
    const before = logLines(server).length;
    const { port } = new URL(server.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on("close", () => resolve()).on("error", reject);
    });
    await until(() => logLines(server).length > before);
    expect(logLines(server).slice(before)).toEqual([expect.stringMatching(/^http: POST - aborted - [0-9]+ms$/)]);
  });
});

describe("start-up", () => {
  it("exits 2 on a port in use without saying it is serving", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await refusedStart(["--workspace", "ws", "--schemas", schemas, "--http", `127.0.0.1:${port}`], { INIT_CWD: invokedFrom });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: the port is in use; pick another, or 0 for a free one (--http)\n`);
      expect(run.stderr).not.toContain("mcp: serving");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("says it is serving once listening, just before the listening line", async () => {
    const server = await startHttpServer(["--workspace", "ws", "--schemas", schemas, "--http", "0"], { INIT_CWD: invokedFrom });
    try {
      expect(server.stderr()).toBe(`mcp: serving 3 tools from ${schemas} (workspace ${path.join(invokedFrom, "ws")})\nlistening on ${server.url}\n`);
    } finally {
      await server.stop();
    }
  });
});
