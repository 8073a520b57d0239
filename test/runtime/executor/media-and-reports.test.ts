/**
 * Tools that return images and audio, and report progress and log lines while they run: what the
 * executor's outcome holds (the items in order, their text with a note per medium), the per-item size
 * limit, and which reports reach the caller's `onReport`.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { toolAudio, toolImage } from "../../../src/runtime/execution/tool-media.js";
import { callReports, PROGRESS_INTERVAL_MS } from "../../../src/runtime/execution/tool-reports.js";
import { toolContext } from "../../../src/runtime/execution/tool-context.js";
import type { ToolReport } from "../../../src/runtime/loop/types.js";
import type { SchemasFile } from "../../../src/shared/schemas-file.js";
import { writeFixtureSchemas } from "../../cli/support.js";
import { richSchemas } from "../../fixtures/rich-results/schemas.js";
import { PNG, WAV } from "../../fixtures/rich-results/tools/media.js";

const { file, schemas } = richSchemas();
const executor = createToolExecutor({ schemas, schemasDir: path.dirname(file), timeoutMs: 10_000 });
const call = (name: string, args: object = {}) => ({ id: "c1", type: "function" as const, function: { name, arguments: JSON.stringify(args) } });
const context = (onReport?: (report: ToolReport) => void) => ({ workspace: process.cwd(), signal: new AbortController().signal, ...(onReport ? { onReport } : {}) });

describe("a tool that returns images and audio", () => {
  it("gives its items in order, and their text with a note per medium", async () => {
    const outcome = await executor.execute(call("chart_with_caption"), context());
    expect(outcome).toEqual({
      status: "ok",
      content: `Sales by month\n[image: image/png, ${PNG.length} bytes, not shown]\nSpoken summary:\n[audio: audio/wav, ${WAV.length} bytes, not shown]`,
      items: [
        { type: "text", text: "Sales by month" },
        { type: "image", mimeType: "image/png", data: PNG.toString("base64") },
        { type: "text", text: "Spoken summary:" },
        { type: "audio", mimeType: "audio/wav", data: WAV.toString("base64") },
      ],
    });
    expect(await executor.execute(call("chart"), context())).toEqual({ status: "ok", content: "[image: image/png, 70 bytes, not shown]", items: [{ type: "image", mimeType: "image/png", data: PNG.toString("base64") }] });
    expect((await executor.execute(call("clip"), context())).items).toEqual([{ type: "audio", mimeType: "audio/wav", data: WAV.toString("base64") }]);
  });

  it("is a tool error naming the size when one item is over 10 MiB", async () => {
    expect(await executor.execute(call("oversized"), context())).toEqual({
      status: "tool_error",
      content: "The tool oversized returned an image of 10485761 bytes, over the limit of 10485760 bytes per image or audio item, so nothing was sent. This is not a problem with your arguments; ask for a smaller image if the tool can make one.",
    });
  });

  it("cuts its text items at the result cap, in order, and keeps its media", async () => {
    const small = createToolExecutor({ schemas, schemasDir: path.dirname(file), maxResultChars: 20 });
    const outcome = await small.execute(call("chart_with_caption"), context());
    expect(outcome.items?.map((item) => (item.type === "text" ? item.text : item.type))).toEqual([
      "Sales by month",
      "image",
      "Spoken\n[truncated: showing the first 6 of 15 characters]",
      "audio",
    ]);
  });

  it("accepts a Buffer, a Uint8Array view or an ArrayBuffer, copied when made, and refuses anything else", () => {
    const bytes = new Uint8Array([9, 1, 2, 3, 9]);
    // A type whose bytes are not checked: the copy is what this covers.
    const view = toolImage(bytes.subarray(1, 4), "image/bmp");
    bytes[2] = 7;
    expect([...view.bytes]).toEqual([1, 2, 3]);
    expect([...toolAudio(bytes.buffer, "audio/mpeg").bytes]).toEqual([9, 1, 7, 3, 9]);
    expect(() => toolImage("iVBOR" as unknown as Uint8Array, "image/png")).toThrow('toolImage(bytes, mimeType) needs a Buffer, Uint8Array or ArrayBuffer as bytes, not a string.');
    expect(() => toolImage(bytes, "audio/wav")).toThrow('toolImage(bytes, mimeType) needs an image MIME type such as "image/png", not "audio/wav".');
    expect(() => toolAudio(bytes, "wav")).toThrow('toolAudio(bytes, mimeType) needs an audio MIME type such as "audio/wav", not "wav".');
  });
});

describe("an image whose bytes are not of its declared type", () => {
  const JPEG_START = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);

  it("makes toolImage throw, naming what the bytes are and the MIME type to pass instead", () => {
    expect(() => toolImage(JPEG_START, "image/png")).toThrow(new TypeError('toolImage(bytes, "image/png") needs the bytes of a PNG image, not those of a JPEG one: pass "image/jpeg" as its MIME type.'));
    expect(() => toolImage(PNG, "image/webp")).toThrow(new TypeError('toolImage(bytes, "image/webp") needs the bytes of a WebP image, not those of a PNG one: pass "image/png" as its MIME type.'));
    expect(() => toolImage(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/gif")).toThrow(new TypeError(
      'toolImage(bytes, "image/gif") needs the bytes of a GIF image, not bytes that begin 3c 73 76 67 20 78 6d 6c … (no PNG, JPEG, GIF or WebP signature): pass the image file\'s own bytes, or its own MIME type.',
    ));
    expect(() => toolImage(new Uint8Array(0), "image/jpeg")).toThrow(new TypeError(
      'toolImage(bytes, "image/jpeg") needs the bytes of a JPEG image, not 0 bytes (no PNG, JPEG, GIF or WebP signature): pass the image file\'s own bytes, or its own MIME type.',
    ));
  });

  it("is read by the model as a tool that threw, while a right image still goes through", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sigloop-mislabelled-"));
    mkdirSync(path.join(dir, "tools"));
    const media = JSON.stringify(path.resolve("src/runtime/execution/tool-media.js"));
    writeFileSync(path.join(dir, "tools", "photo.ts"), [
      `import { toolImage, type ToolImage } from ${media};`,
      "/** Takes a photo, but labels it a PNG. */",
      `export function photo(): ToolImage { return toolImage(Buffer.from(${JSON.stringify([...JPEG_START])}), "image/png"); }`,
      "/** Takes a photo, labelled as what it is. */",
      `export function jpeg_photo(): ToolImage { return toolImage(Buffer.from(${JSON.stringify([...JPEG_START])}), "image/jpeg"); }`,
      "",
    ].join("\n"));
    const file = writeFixtureSchemas(dir, path.join(dir, "tools"));
    const photos = createToolExecutor({ schemas: JSON.parse(readFileSync(file, "utf8")) as SchemasFile, schemasDir: dir, timeoutMs: 10_000 });
    expect(await photos.execute(call("photo"), context())).toEqual({
      status: "tool_error",
      content: 'The tool photo itself failed: TypeError: toolImage(bytes, "image/png") needs the bytes of a PNG image, not those of a JPEG one: pass "image/jpeg" as its MIME type.',
    });
    expect((await photos.execute(call("jpeg_photo"), context())).items).toEqual([{ type: "image", mimeType: "image/jpeg", data: JPEG_START.toString("base64") }]);
  });

  it("passes toolImage for every image that begins with its type's signature", () => {
    const signatures: Record<string, number[]> = {
      "image/png": [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
      "image/jpeg": [0xff, 0xd8, 0xff],
      "image/gif": [...Buffer.from("GIF89a")],
      "image/webp": [...Buffer.from("RIFF"), 1, 2, 3, 4, ...Buffer.from("WEBP")],
    };
    fc.assert(fc.property(fc.constantFrom(...Object.keys(signatures)), fc.uint8Array({ maxLength: 64 }), (mimeType, rest) => {
      const bytes = Buffer.concat([Buffer.from(signatures[mimeType]!), rest]);
      expect([...toolImage(bytes, mimeType).bytes]).toEqual([...bytes]);
    }));
  });
});

describe("a tool's reports", () => {
  it("reach onReport: progress that increases, and each log line with its level", async () => {
    const reports: ToolReport[] = [];
    const outcome = await executor.execute(call("count_to", { steps: 3, pauseMs: PROGRESS_INTERVAL_MS + 10 }), context((report) => reports.push(report)));
    await executor.execute(call("chatty"), context((report) => reports.push(report)));
    expect(outcome.content).toBe("counted to 3");
    expect(reports).toEqual([
      { kind: "progress", progress: 1, total: 3, message: "step 1" },
      { kind: "progress", progress: 2, total: 3, message: "step 2" },
      { kind: "progress", progress: 3, total: 3, message: "step 3" },
      { kind: "log", level: "debug", message: "cache warm" },
      { kind: "log", level: "info", message: "fetching rates" },
      { kind: "log", level: "warning", message: "rate for XYZ missing" },
      { kind: "log", level: "error", message: "upstream said 503" },
    ]);
  });

  it("send the newest progress before the result when it came too soon after the last, and nothing after", async () => {
    const reports: ToolReport[] = [];
    await executor.execute(call("count_to", { steps: 5, pauseMs: 0 }), context((report) => reports.push(report)));
    expect(reports[0]).toEqual({ kind: "progress", progress: 1, total: 5, message: "step 1" });
    expect(reports.at(-1)).toEqual({ kind: "progress", progress: 5, total: 5, message: "step 5" });
    const count = reports.length;
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS * 2));
    expect(reports.length).toBe(count);
  });

  it("go nowhere outside a call, and a log level that is not MCP's is the tool's bug", () => {
    expect(() => toolContext().progress(1, 2)).not.toThrow();
    expect(() => toolContext().log("warn" as "warning", "x")).toThrow('toolContext().log(level, message) needs one of MCP\'s levels (debug, info, notice, warning, error, critical, alert, emergency) as level, not "warn".');
  });

  it("pass on only finite progress values larger than every one before, however the tool calls", () => {
    const value = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0), fc.anything());
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.option(value), fc.option(fc.string()))), (calls) => {
        let clock = 0;
        const sent: ToolReport[] = [];
        const reports = callReports((report) => sent.push(report), () => (clock += PROGRESS_INTERVAL_MS));
        for (const [done, total, message] of calls) reports.progress(done as number, (total ?? undefined) as number | undefined, message ?? undefined);
        reports.close();
        const values = sent.map((report) => (report.kind === "progress" ? report.progress : Number.NaN));
        expect(values.every((v) => Number.isFinite(v))).toBe(true);
        expect(values.every((v, i) => i === 0 || v > values[i - 1]!)).toBe(true);
        for (const report of sent) if (report.kind === "progress" && "total" in report) expect(Number.isFinite(report.total)).toBe(true);
      }),
    );
  });
});
