import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { runWithToolContext } from "../../src/runtime/execution/tool-context.js";
import { read_file } from "../../tools/read_file.js";
import { list_files } from "../../tools/list_files.js";
import { confineToWorkspace, WorkspaceError } from "../../src/runtime/workspace/workspace.js";
import { ToolInputError } from "../../src/runtime/execution/tool-input-error.js";
import { makeSandbox, outsideMessage, SECRET, type Sandbox } from "./fixture.js";

let box: Sandbox;

beforeAll(() => {
  box = makeSandbox();
  box.write("hello.txt", "hello\n");
  box.write("sub/nested.txt", "nested\n");
  box.link("leak-relative.txt", "../outside/secret.txt");
  box.link("leak-absolute.txt", path.join(box.outside, "secret.txt"));
  box.link("leak-evil.txt", path.join(box.evil, "x.txt"));
  box.link("out", "../outside");
  box.link("sub/deeper/out", "../../../outside");
  box.link("sub/hop", "../out");
  box.link("ghost", "../outside/does-not-exist.txt");
  box.link("loop-a", "loop-b");
  box.link("loop-b", "loop-a");
  box.link("self", "self");
  box.link("alias.txt", "hello.txt");
  box.link("sub-alias", "sub");
  box.link("abs-alias.txt", path.join(box.ws, "hello.txt"));
  box.link("sub/up.txt", "../hello.txt");
  box.link("sub/root", "..");
  box.link("root-abs", box.ws);
});

afterAll(() => box.remove());

/** A refusal is an argument problem: the tool throws a `ToolInputError` naming its path parameter. */
async function refusal(run: () => Promise<string>): Promise<string> {
  const error = await box.call(run).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolInputError);
  expect(["path", "dir"]).toContain((error as ToolInputError).parameter);
  const message = (error as ToolInputError).message;
  expect(message).not.toContain(SECRET);
  return message;
}

describe("the workspace boundary", () => {
  it.each([
    "..",
    "../outside/secret.txt",
    "../../../../../../../../etc/passwd",
    "sub/../../outside/secret.txt",
    "./sub/./../../outside/dir/inner.txt",
    "../ws-evil/x.txt",
  ])("refuses the .. chain %j, naming the workspace root", async (requested) => {
    expect(await refusal(() => read_file(requested))).toBe(outsideMessage(requested, box.ws));
    expect(await refusal(() => list_files(requested))).toBe(outsideMessage(requested, box.ws));
  });

  it("resolves .. by name inside the workspace", async () => {
    expect(await box.call(() => read_file("sub/../hello.txt"))).toBe("hello\n");
    expect(await box.call(() => read_file("../ws/hello.txt"))).toBe("hello\n");
  });

  it("refuses absolute paths outside, including a sibling that shares the root's prefix", async () => {
    for (const requested of ["/etc/passwd", path.join(box.outside, "secret.txt"), path.join(box.evil, "x.txt"), box.evil, "/"]) {
      expect(await refusal(() => read_file(requested))).toBe(outsideMessage(requested, box.ws));
    }
    expect(await refusal(() => list_files(box.outside))).toBe(outsideMessage(box.outside, box.ws));
  });

  it("accepts absolute paths inside the workspace", async () => {
    expect(await box.call(() => read_file(path.join(box.ws, "hello.txt")))).toBe("hello\n");
    expect(await box.call(() => list_files(path.join(box.ws, "sub")))).toBe(
      "sub/deeper/\nsub/hop -> (outside the workspace)\nsub/nested.txt\nsub/root -> ./\nsub/up.txt -> hello.txt",
    );
  });

  it.each(["leak-relative.txt", "leak-absolute.txt", "leak-evil.txt", "ghost"])(
    "refuses the symlinked file %j that leads out, without saying where it points",
    async (requested) => {
      const message = await refusal(() => read_file(requested));
      expect(message).toBe(outsideMessage(requested, box.ws));
      expect(message).not.toContain(box.outside);
    },
  );

  it.each(["out/secret.txt", "out/dir/inner.txt", "sub/deeper/out/secret.txt", "sub/hop/secret.txt", "out/../hello.txt/../out/secret.txt"])(
    "refuses the symlinked directory escape %j",
    async (requested) => {
      expect(await refusal(() => read_file(requested))).toBe(outsideMessage(requested, box.ws));
    },
  );

  it("refuses listing a symlinked directory that leads out", async () => {
    for (const requested of ["out", "out/dir", "sub/hop", "sub/deeper/out"]) {
      expect(await refusal(() => list_files(requested))).toBe(outsideMessage(requested, box.ws));
    }
  });

  it.each(["loop-a", "self", "loop-b/x.txt"])("refuses the symlink loop %j as outside the workspace", async (requested) => {
    expect(await refusal(() => read_file(requested))).toBe(
      `The path ${JSON.stringify(requested)} is outside the workspace ${box.ws}: it runs through a loop of symbolic links, so it leads nowhere inside it.`,
    );
  });

  it("follows symbolic links that stay inside", async () => {
    expect(await box.call(() => read_file("alias.txt"))).toBe("hello\n");
    expect(await box.call(() => read_file("abs-alias.txt"))).toBe("hello\n");
    expect(await box.call(() => read_file("sub/up.txt"))).toBe("hello\n");
    expect(await box.call(() => read_file("sub-alias/nested.txt"))).toBe("nested\n");
    expect(await box.call(() => list_files("sub-alias"))).toContain("sub/nested.txt");
    expect(await box.call(() => read_file("sub/root/hello.txt"))).toBe("hello\n");
    expect(await refusal(() => read_file("sub/root"))).toBe('"sub/root" is a directory; use list_files to see what is in it.');
    expect(await refusal(() => read_file("root-abs"))).toBe('"root-abs" is a directory; use list_files to see what is in it.');
  });

  it("accepts paths under the workspace as it was given, when that is a link to it", async () => {
    const alias = path.join(box.base, "ws-alias");
    symlinkSync(box.ws, alias);
    box.link("via-alias.txt", path.join(alias, "hello.txt"));
    const viaAlias = (file: string): Promise<string> =>
      runWithToolContext({ workspace: alias, signal: new AbortController().signal }, () => read_file(file));
    expect(await viaAlias(path.join(alias, "hello.txt"))).toBe("hello\n");
    expect(await viaAlias(path.join(box.ws, "hello.txt"))).toBe("hello\n");
    expect(await viaAlias("via-alias.txt")).toBe("hello\n");
    expect(await viaAlias("../outside/secret.txt").catch((error: Error) => error.message)).toBe(outsideMessage("../outside/secret.txt", box.ws));
  });

  it("names the missing path and ENOENT, in the workspace (an argument problem)", async () => {
    const message = await refusal(() => read_file("sub/nope.txt"));
    expect(message).toBe(`ENOENT: no such file or directory: "sub/nope.txt" (in the workspace ${box.ws}). Use list_files to see what is there.`);
    expect(await refusal(() => list_files("nowhere"))).toContain("ENOENT");
  });

  it("refuses a path through a file and a path holding a NUL character", async () => {
    expect(await refusal(() => read_file("hello.txt/x"))).toBe(
      `ENOTDIR: "hello.txt/x" goes through a file as if it were a directory (in the workspace ${box.ws}).`,
    );
    expect(await refusal(() => read_file("hello\0.txt"))).toBe('The path "hello\\u0000.txt" contains a NUL character, which no file name can hold.');
  });

  it("only ever resolves to a real path inside the workspace, whatever path the model sends", async () => {
    const segment = fc.constantFrom("..", ".", "", "sub", "out", "loop-a", "ghost", "alias.txt", "sub-alias", "hop", "deeper",
      "hello.txt", "outside", "ws", "ws-evil", "secret.txt", "leak-relative.txt", "root", "root-abs", box.ws, box.base, "/");
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 8 }), fc.boolean(), async (segments, absolute) => {
        const requested = (absolute ? "/" : "") + segments.join("/");
        try {
          const confined = await confineToWorkspace(box.ws, requested);
          expect(confined.realPath === box.ws || confined.realPath.startsWith(box.ws + path.sep)).toBe(true);
          expect(confined.stats.isSymbolicLink()).toBe(false);
          expect(realpathSync(confined.realPath)).toBe(confined.realPath);
        } catch (error) {
          expect(error).toBeInstanceOf(WorkspaceError);
          expect((error as Error).message).not.toContain(SECRET);
        }
      }),
      { numRuns: 400 },
    );
  });
});
