/**
 * The package's JavaScript (dist/), bundled with esbuild by `npm pack`'s build (scripts/build-package.ts):
 * entry points `src/index.ts`, `src/tools.ts`, `src/testing.ts` (package.json "exports"), `src/bin/sigloop.ts` (the bin) and
 * `src/scripted-server/scripted-server.ts`,
 * written where tsc would write them (`dist/src/index.js`, …); what more than one of them (or one of the
 * bin's lazy `import()`s) needs goes to chunks in `dist/src/chunks/`, so every module has one instance.
 *
 * `import.meta.url` names the file a module's code landed in, which is all `createRequire` needs, and
 * what a module that stamps its own file wants. One module finds the package's files by its own place in
 * the tree (`src/shared/package-layout.ts`: the package root is three folders up from
 * `dist/src/shared/`): there it is the URL of the file tsc would have written, wherever its code lands.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

/**
 * The public entry points, the bin, and the scripted server: CI's run of the installed package
 * (`.ci/installed-package-run.mjs`) starts it from its place in dist/, as the demo ships it.
 */
const ENTRY_POINTS = [
  "src/index.ts", "src/tools.ts", "src/testing.ts", "src/bin/sigloop.ts", "src/scripted-server/scripted-server.ts",
  // Started by path as a worker thread (src/runtime/execution/stoppable-validation.ts).
  "src/runtime/execution/validation-worker.ts",
];
/**
 * The one package carried inside the bundle: the `openai` SDK is on the way to every agent's first request,
 * and Node loads its 455 modules more slowly than one file (about 90 ms of the bin's start-up,
 * docs/package.md). A program's own client comes from its own copy, whose errors
 * `src/runtime/model/other-openai-copy.ts` makes sigloop's. The package still depends on `openai` (its
 * types are the library's), and carries its licences (`BUNDLED_LICENSES`). Every other package stays an
 * import.
 */
const BUNDLED_PACKAGE = "openai";
/** A bare specifier: a package or a `node:` module. */
const BARE = /^[^./]/;
const PLACED_BY_OWN_PATH = "src/shared/package-layout.ts";
/** Stands for that module's own URL in the bundle until the file it landed in is known. */
const OWN_URL = "__sigloopOwnUrl__";

export async function bundlePackage(root: string, dist: string): Promise<void> {
  const placedByOwnPath = path.join(root, PLACED_BY_OWN_PATH);
  const ownUrl: Plugin = {
    name: "own-url",
    setup(builder) {
      builder.onLoad({ filter: /package-layout\.ts$/ }, (args) => {
        if (args.path !== placedByOwnPath) return undefined;
        return { contents: readFileSync(args.path, "utf8").replaceAll("import.meta.url", OWN_URL), loader: "ts" };
      });
    },
  };
  const packagesOutside: Plugin = {
    name: "packages-outside",
    setup(builder) {
      builder.onResolve({ filter: BARE }, (args) => (args.path === BUNDLED_PACKAGE || args.path.startsWith(`${BUNDLED_PACKAGE}/`) ? undefined : { path: args.path, external: true }));
    },
  };
  const result = await build({
    entryPoints: ENTRY_POINTS.map((entry) => path.join(root, entry)),
    outbase: root,
    outdir: dist,
    chunkNames: "src/chunks/[name]-[hash]",
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    plugins: [ownUrl, packagesOutside],
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "warning",
  });
  const compiled = path.join(dist, PLACED_BY_OWN_PATH.replace(/\.ts$/, ".js"));
  let placed = 0;
  for (const output of result.outputFiles) {
    const relative = path.relative(path.dirname(output.path), compiled).split(path.sep).join("/");
    const text = output.text.replaceAll(OWN_URL, () => {
      placed++;
      return `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
    });
    mkdirSync(path.dirname(output.path), { recursive: true });
    writeFileSync(output.path, text);
  }
  if (placed === 0) throw new Error(`${PLACED_BY_OWN_PATH} no longer reads import.meta.url: see scripts/bundle-package.ts`);
  writeBundledLicenses(root, dist);
}

/** Where the bundled package's licenses go: its code is redistributed inside the package's chunks. */
const BUNDLED_LICENSES = "src/THIRD-PARTY-LICENSES.txt";

/**
 * The licence of the bundled package (the `openai` SDK: Apache 2.0) and of the code it vendors (each a
 * `LICENSE` file under its `src/`), one after the other, as the Apache licence asks of a redistribution.
 */
function writeBundledLicenses(root: string, dist: string): void {
  const packageDir = path.join(root, "node_modules", BUNDLED_PACKAGE);
  const { version, repository } = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string; repository: string };
  const named = `${BUNDLED_PACKAGE} ${version}`;
  const vendored = readdirSync(path.join(packageDir, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => /^LICENSE/i.test(path.basename(file)))
    .sort();
  const sections = [
    `${named} (${repository.replace(/^github:/, "https://github.com/")}), bundled into the chunks of dist/src/\n\n${readFileSync(path.join(packageDir, "LICENSE"), "utf8")}`,
    ...vendored.map((file) => `${named}: ${path.dirname(file).split(path.sep).join("/")}\n\n${readFileSync(path.join(packageDir, "src", file), "utf8")}`),
  ];
  writeFileSync(path.join(dist, BUNDLED_LICENSES), sections.join(`\n${"=".repeat(78)}\n\n`));
}
