/**
 * Attacks on the file tools' workspace boundary with real files on disk: spellings of paths that other
 * systems treat specially, a trailing "/" on a file's path, setuid and setgid bits a replace must not
 * keep, names a terminal or a listing could misread, a directory swapped between the
 * approval's plan and the write, huge files and edits with millions of matches, and error messages that
 * must not leak.
 */
import { chmodSync, existsSync, linkSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read_file } from "../../../tools/read_file.js";
import { write_file } from "../../../tools/write_file.js";
import { edit_file } from "../../../tools/edit_file.js";
import { list_files } from "../../../tools/list_files.js";
import { planWrite, type FileChange } from "../../../src/runtime/workspace/file-change.js";
import { replaceFile } from "../../../src/runtime/workspace/replace-file.js";
import { WorkspaceError } from "../../../src/runtime/workspace/workspace.js";
import { makeSandbox, rejected, SECRET, type Sandbox } from "../../tools/fixture.js";

let box: Sandbox;

beforeAll(() => {
  box = makeSandbox();
  box.write("hello.txt", "hello\n");
  box.write("sub/a.txt", "a\n");
});

afterAll(() => box.remove());

async function planned(requested: string, content: string): Promise<FileChange> {
  const plan = await planWrite(box.ws, requested, content);
  if ("refusal" in plan) throw new Error(plan.refusal);
  return plan;
}

describe("spellings other systems treat specially", () => {
  it.each([
    ["..\\..\\outside\\secret.txt"],
    ["~/secret.txt"],
    ["~"],
  ])("%j is a plain name inside the workspace, not a way out", async (requested) => {
    const message = await rejected(box.call(() => read_file(requested)), "path");
    expect(message).toBe(`ENOENT: no such file or directory: ${JSON.stringify(requested)} (in the workspace ${box.ws}). Use list_files to see what is there.`);
  });

  it("a name of 300 characters fails with the path cut in the message and no stack", async () => {
    const requested = "x".repeat(300);
    const error = await box.call(() => read_file(requested)).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect((error as WorkspaceError).message).toBe(`ENAMETOOLONG: cannot access "${"x".repeat(200)}…" (in the workspace ${box.ws}).`);
  });
});

describe("a write after its plan", () => {
  it("refuses, writing nothing outside, when a directory on the way was swapped for a link out after the plan", async () => {
    box.write("swap/keep.txt", "keep\n");
    const plan = await planned("swap/new.txt", "pwned\n");
    renameSync(path.join(box.ws, "swap"), path.join(box.ws, "swap-moved"));
    symlinkSync(box.outside, path.join(box.ws, "swap"));
    const error = await replaceFile(plan.target, "swap/new.txt", Buffer.from(plan.after), new AbortController().signal).catch((caught: unknown) => caught);
    expect((error as WorkspaceError).code).toBe("changed");
    expect(existsSync(path.join(box.outside, "new.txt"))).toBe(false);
  });

  it("refuses when a directory it was to create appeared as a link out after the plan", async () => {
    const plan = await planned("made/deeper/new.txt", "pwned\n");
    symlinkSync(box.outside, path.join(box.ws, "made"));
    const error = await replaceFile(plan.target, "made/deeper/new.txt", Buffer.from(plan.after), new AbortController().signal).catch((caught: unknown) => caught);
    expect((error as WorkspaceError).code).toBe("changed");
    expect(existsSync(path.join(box.outside, "deeper"))).toBe(false);
  });

  it("refuses when the file it was to replace was swapped for a hard link to an outside file after the plan", async () => {
    box.write("victim.txt", "mine\n");
    const plan = await planned("victim.txt", "pwned\n");
    rmSync(path.join(box.ws, "victim.txt"));
    linkSync(path.join(box.outside, "secret.txt"), path.join(box.ws, "victim.txt"));
    const error = await replaceFile(plan.target, "victim.txt", Buffer.from(plan.after), new AbortController().signal).catch((caught: unknown) => caught);
    expect((error as WorkspaceError).code).toBe("changed");
    expect(readFileSync(path.join(box.outside, "secret.txt"), "utf8")).toBe(`${SECRET}\n`);
  });
});

describe("a path ending in \"/\" names a directory", () => {
  const writeRefusal = (requested: string) =>
    `${JSON.stringify(requested)} names a directory (a path ending in "/" does), and write_file changes files only, so nothing was written. Give the file's path without the trailing "/".`;
  const notADirectory = (requested: string) =>
    `ENOTDIR: ${JSON.stringify(requested)} names a directory (a path ending in "/" does), but it is not one (in the workspace ${box.ws}). Give the path without the trailing "/".`;

  it("write_file refuses \"a.txt/\" for an existing file and leaves it as it was", async () => {
    box.write("slash/a.txt", "kept\n");
    await expect(box.call(() => write_file("slash/a.txt/", "pwned\n"))).resolves.toBe(writeRefusal("slash/a.txt/"));
    expect(readFileSync(path.join(box.ws, "slash/a.txt"), "utf8")).toBe("kept\n");
  });

  it.each([["fresh/new.txt/"], ["fresh/new.txt/."], ["fresh/"]])("write_file refuses %j and creates nothing", async (requested) => {
    await expect(box.call(() => write_file(requested, "x\n"))).resolves.toBe(writeRefusal(requested));
    expect(existsSync(path.join(box.ws, "fresh"))).toBe(false);
  });

  it("edit_file refuses \"a.txt/\" for an existing file and leaves it as it was", async () => {
    box.write("slash/b.txt", "one\n");
    await expect(box.call(() => edit_file("slash/b.txt/", "one", "two"))).resolves.toBe(
      '"slash/b.txt/" names a directory (a path ending in "/" does), and edit_file changes files only, so nothing was changed. Give the file\'s path without the trailing "/".',
    );
    expect(readFileSync(path.join(box.ws, "slash/b.txt"), "utf8")).toBe("one\n");
  });

  it("read_file of \"a.txt/\" fails with ENOTDIR, as POSIX does, for a file and for a link to one", async () => {
    box.write("slash/c.txt", "text\n");
    symlinkSync("c.txt", path.join(box.ws, "slash/c-link"));
    expect(await rejected(box.call(() => read_file("slash/c.txt/")), "path")).toBe(notADirectory("slash/c.txt/"));
    expect(await rejected(box.call(() => read_file("slash/c-link/")), "path")).toBe(notADirectory("slash/c-link/"));
    expect(await rejected(box.call(() => read_file("slash/c.txt/.")), "path")).toBe(notADirectory("slash/c.txt/."));
  });

  it("list_files of \"a.txt/\" fails with ENOTDIR, and of \"dir/\" lists the directory", async () => {
    box.write("listed/d.txt", "d\n");
    expect(await rejected(box.call(() => list_files("listed/d.txt/")), "dir")).toBe(notADirectory("listed/d.txt/"));
    await expect(box.call(() => list_files("listed/"))).resolves.toBe("listed/d.txt");
  });

  it("a link to a directory with a trailing \"/\" is that directory: listed, and refused by write_file as any \"dir/\"", async () => {
    box.write("linked/e.txt", "e\n");
    symlinkSync("linked", path.join(box.ws, "linked-dir"));
    // Listed by its real path, as without the "/".
    await expect(box.call(() => list_files("linked-dir/"))).resolves.toBe("linked/e.txt");
    await expect(box.call(() => list_files("linked-dir"))).resolves.toBe("linked/e.txt");
    await expect(box.call(() => write_file("linked-dir/", "x\n"))).resolves.toBe(writeRefusal("linked-dir/"));
    await expect(box.call(() => write_file("linked/e.txt//", "x\n"))).resolves.toBe(writeRefusal("linked/e.txt//"));
    expect(readFileSync(path.join(box.ws, "linked/e.txt"), "utf8")).toBe("e\n");
  });
});

describe("a symbolic link whose target ends in \"/\" names a directory", () => {
  const linkNotADirectory = (requested: string) =>
    `ENOTDIR: ${JSON.stringify(requested)} is a symbolic link whose target ends in "/", so it names a directory, but what it leads to is not one (in the workspace ${box.ws}).`;

  beforeAll(() => {
    box.write("slashed/f.txt", "file\n");
    box.write("slashed/dir/g.txt", "g\n");
    symlinkSync("f.txt/", path.join(box.ws, "slashed/to-file"));
    symlinkSync("to-file", path.join(box.ws, "slashed/to-link"));
    symlinkSync("dir/", path.join(box.ws, "slashed/to-dir"));
    symlinkSync("nothing/", path.join(box.ws, "slashed/to-nothing"));
  });

  it("read_file of a link to \"f.txt/\" fails with ENOTDIR, as POSIX does, also through a link to that link", async () => {
    expect(await rejected(box.call(() => read_file("slashed/to-file")), "path")).toBe(linkNotADirectory("slashed/to-file"));
    expect(await rejected(box.call(() => read_file("slashed/to-link")), "path")).toBe(linkNotADirectory("slashed/to-link"));
  });

  it("a link to \"dir/\" is that directory, listed by its real path", async () => {
    await expect(box.call(() => list_files("slashed/to-dir"))).resolves.toBe("slashed/dir/g.txt");
    await expect(box.call(() => read_file("slashed/to-dir/g.txt"))).resolves.toContain("g");
  });

  it("write_file and edit_file through a link to \"f.txt/\" refuse it with ENOTDIR, as a fault of the path, and leave the file as it was", async () => {
    await expect(box.call(() => write_file("slashed/to-file", "pwned\n"))).resolves.toBe(linkNotADirectory("slashed/to-file"));
    await expect(box.call(() => edit_file("slashed/to-file", "file", "pwned"))).resolves.toBe(linkNotADirectory("slashed/to-file"));
    expect(readFileSync(path.join(box.ws, "slashed/f.txt"), "utf8")).toBe("file\n");
  });

  it("write_file through a dangling link to \"nothing/\" refuses it and creates nothing", async () => {
    await expect(box.call(() => write_file("slashed/to-nothing", "x\n"))).resolves.toBe(
      `EISDIR: "slashed/to-nothing" is a symbolic link whose target ends in "/", so it names a directory, and no file can be written there (in the workspace ${box.ws}). Give the file's own path.`,
    );
    expect(existsSync(path.join(box.ws, "slashed/nothing"))).toBe(false);
  });

  it("write_file through a file as if it were a directory refuses it with ENOTDIR, as a fault of the path", async () => {
    await expect(box.call(() => write_file("slashed/f.txt/new.txt", "x\n"))).resolves.toBe(
      `ENOTDIR: "slashed/f.txt/new.txt" goes through a file as if it were a directory (in the workspace ${box.ws}).`,
    );
    expect(readFileSync(path.join(box.ws, "slashed/f.txt"), "utf8")).toBe("file\n");
  });
});

describe("a replaced file's setuid and setgid bits", () => {
  it.each([
    ["4755", "755"],
    ["2755", "755"],
    ["6750", "750"],
    ["1755", "1755"],
  ])("a file of mode %s has mode %s once write_file replaced it", async (before, after) => {
    const file = box.write(`modes/w-${before}.sh`, "#!/bin/sh\n");
    chmodSync(file, Number.parseInt(before, 8));
    await box.call(() => write_file(`modes/w-${before}.sh`, "#!/bin/sh\necho new\n"));
    expect(readFileSync(file, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect((statSync(file).mode & 0o7777).toString(8)).toBe(after);
  });

  it("edit_file clears them too, keeping the permission bits", async () => {
    const file = box.write("modes/e.sh", "#!/bin/sh\necho old\n");
    chmodSync(file, 0o6711);
    await box.call(() => edit_file("modes/e.sh", "old", "new"));
    expect(statSync(file).mode & 0o7777).toBe(0o711);
    expect(readFileSync(file, "utf8")).toBe("#!/bin/sh\necho new\n");
  });
});

describe("huge files", () => {
  it("a sparse file above the limit is refused by edit_file without being read", async () => {
    const file = box.write("huge.txt", "");
    truncateSync(file, 2 * 1024 * 1024 * 1024);
    await expect(box.call(() => edit_file("huge.txt", "a", "b"))).resolves.toBe(
      '"huge.txt" is 2147483648 bytes, above edit_file\'s limit of 10 MB (10485760 bytes), so it cannot be edited.',
    );
  });
});

describe("names with control characters", () => {
  it("a file whose name holds a newline and an escape sequence is written, listed as one JSON line and read back", async () => {
    const name = "evil\n\u001b[2Kname.txt";
    await expect(box.call(() => write_file(`names/${name}`, "x\n"))).resolves.toBe(`created ${JSON.stringify(`names/${name}`)}: 2 bytes, 1 line.`);
    const listing = await box.call(() => list_files("names"));
    expect(listing).toBe(JSON.stringify(`names/${name}`));
    await expect(box.call(() => read_file(JSON.parse(listing) as string))).resolves.toBe("x\n");
  });
});

const projectRoot = path.resolve(import.meta.dirname, "../../..");
const CEILING_BYTES = 400 * 1024 ** 2;

/** Replaces every "a" of a 10 MB file of them in a child process and reports the result and the peak RSS. */
const CHILD = `
import { runWithToolContext } from ${JSON.stringify(pathToFileURL(path.join(projectRoot, "src/runtime/execution/tool-context.ts")).href)};
import { edit_file } from ${JSON.stringify(pathToFileURL(path.join(projectRoot, "tools/edit_file.ts")).href)};
const result = await runWithToolContext({ workspace: process.argv[2], signal: new AbortController().signal }, () => edit_file("many.txt", "a", "b", true));
process.stdout.write(JSON.stringify({ result, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
`;

function runChild(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", script, box.ws], { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("an edit with millions of matches", () => {
  const count = 10 * 1024 * 1024 - 1;

  it(`replaces ten million matches of a 10 MB file under ${CEILING_BYTES / 1024 ** 2} MB resident`, async () => {
    box.write("many.txt", `${"a".repeat(count)}\n`);
    const script = path.join(box.base, "edit-many.mts");
    writeFileSync(script, CHILD);
    const { code, stdout, stderr } = await runChild(script);
    expect(code, stderr).toBe(0);
    const { result, maxRssBytes } = JSON.parse(stdout) as { result: string; maxRssBytes: number };
    expect(result).toBe(`edited "many.txt": ${count} replacements, starting on lines ${Array(20).fill(1).join(", ")} (the first 20 of ${count}).`);
    expect(readFileSync(path.join(box.ws, "many.txt"), "utf8")).toBe(`${"b".repeat(count)}\n`);
    expect(maxRssBytes).toBeLessThan(CEILING_BYTES);
  }, 120_000);
});
