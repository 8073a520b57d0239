#!/usr/bin/env node
/**
 * The `sigloop` bin of the installed package. It checks the Node line first and imports its work
 * (`run-sigloop.ts`) only then, so that nothing the bin needs is linked on a Node it cannot run on:
 * there it prints one sentence and exits 2, the exit code of a setup mistake.
 */
import { unsupportedNodeMessage } from "./supported-node.js";

const unsupported = unsupportedNodeMessage(process.versions.node);
if (unsupported === undefined) await import("./run-sigloop.js");
else {
  process.stderr.write(`${unsupported}\n`);
  process.exitCode = 2;
}
