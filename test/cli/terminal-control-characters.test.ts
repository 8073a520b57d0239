/**
 * Model text cannot drive the terminal: progress on stderr shows ESC, BEL, NUL, carriage returns and the
 * other control characters escaped, in tool names, arguments, results and streamed text; stdout keeps the
 * answer byte for byte when it is a pipe or a file, and escapes it when it is a terminal.
 */
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { runAgentCli } from "../../src/cli/run-agent-cli.js";
import { escapeControls } from "../../src/cli/terminal-safe.js";
import { cliEnv, projectRoot, runCliInProcess, useCliFixture } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

const CLIPBOARD = "\u001b]52;c;cm0gLXJmIH4=\u0007";
const TITLE = "\u001b]0;pwned\u0007";
const CLEAR = "\u001b[2J\u001b[H";
const FAKE_END = "\rStopped (max_turns) after 1 turn\u0000";
const ANSWER = `Done.${CLIPBOARD}${TITLE}${CLEAR}${FAKE_END}\u009b31m\u202eevil\n`;
/** Any character a terminal acts on, apart from the newline. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function hostileScript(): void {
  fx.server.setScript([
    {
      content: `Reading.${TITLE}`,
      toolCalls: [
        { id: "c1", name: `echo${CLEAR}`, arguments: "{}" },
        { id: "c2", name: "echo", arguments: JSON.stringify({ text: `bell\u0007 nul\u0000 ${CLIPBOARD}` }) },
        { id: "c3", name: "echo", arguments: `{"text": "${CLEAR}` },
      ],
      stream: { chunkSize: 3 },
    },
    { content: ANSWER, stream: { chunkSize: 4 } },
  ]);
}

async function cliWith(stdout: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  let out = "";
  let err = "";
  const stdin = new PassThrough();
  stdin.end();
  const code = await runAgentCli({
    argv: ["--schemas", fx.schemas, "go"],
    env: cliEnv(fx.server.baseURL, env),
    cwd: fx.dir,
    projectRoot,
    stdin,
    stdout: { ...stdout, write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    onInterrupt: () => () => undefined,
  });
  fx.outputs.push(out, err);
  return { code, stdout: out, stderr: err };
}

describe("progress on stderr", () => {
  it("shows control characters from names, arguments, results and streamed text escaped", async () => {
    hostileScript();
    const run = await runCliInProcess(["--schemas", fx.schemas, "go"], cliEnv(fx.server.baseURL), fx.dir);
    fx.outputs.push(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(CONTROL);
    expect(run.stderr).toContain("Reading.\\x1b]0;pwned\\x07");
    expect(run.stderr).toContain("→ echo\\x1b[2J\\x1b[H({})");
    expect(run.stderr).toContain("← echo ok: echo: bell\\x07 nul\\x00 \\x1b]52;c;cm0gLXJmIH4=\\x07");
    expect(run.stderr).toContain('→ echo({"text": "\\x1b[2J\\x1b[H)');
    expect(run.stderr).toContain("\\x0dStopped (max_turns) after 1 turn\\x00\\x9b31m\\u202eevil");
  });

  it("with colours, the only escape sequences are its own colours", async () => {
    hostileScript();
    const run = await runCliInProcess(["--schemas", fx.schemas, "go"], cliEnv(fx.server.baseURL, { NO_COLOR: "", FORCE_COLOR: "1" }), fx.dir);
    fx.outputs.push(run.stdout, run.stderr);
    expect(run.stderr).toMatch(/\u001b\[2m/);
    expect(run.stderr.replace(/\u001b\[\d+m/g, "")).not.toMatch(CONTROL);
  });
});

describe("the answer on stdout", () => {
  it("is byte-exact when stdout is a pipe or a file", async () => {
    hostileScript();
    const run = await cliWith({}, {});
    expect(run).toMatchObject({ code: 0, stdout: ANSWER });
  });

  it("is escaped when stdout is a terminal (newlines kept)", async () => {
    hostileScript();
    const run = await cliWith({ isTTY: true }, {});
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(escapeControls(ANSWER));
    expect(run.stdout).not.toMatch(CONTROL);
    expect(run.stdout.endsWith("\\u202eevil\n")).toBe(true);
  });
});

describe("escapeControls", () => {
  it("changes no text without control characters, and leaves none in any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const shown = escapeControls(text);
        expect(shown.replace(/\t|\r\n/g, "")).not.toMatch(CONTROL);
        if (!CONTROL.test(text.replace(/\t|\r\n/g, ""))) expect(shown).toBe(text);
      }),
    );
  });

  it("keeps tabs and CR LF line ends, escapes a lone carriage return", () => {
    expect(escapeControls("a\tb\r\nc\rd")).toBe("a\tb\r\nc\\x0dd");
  });
});
