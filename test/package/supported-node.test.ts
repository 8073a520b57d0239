/**
 * Which Node versions the bin runs on: package.json's `engines.node` and nothing else. What the bin says on
 * an older one, as a process, is in sigloop-in-a-project.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import { MINIMUM_NODE, unsupportedNodeMessage } from "../../src/bin/supported-node.js";
import { repoRoot } from "./installed-sigloop.js";

it("the minimum is package.json's engines.node", () => {
  const engines = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  expect(engines).toBe(`>=${MINIMUM_NODE.major}.${MINIMUM_NODE.minor}`);
});

it.each([["20.20.2"], ["22.18.0"], ["21.7.3"], ["18.20.8"]])("Node %s is refused with the version it is and the one needed", (version) => {
  expect(unsupportedNodeMessage(version)).toBe(`sigloop: Node ${version} is not supported; sigloop needs Node 22.19 or later (22 or 24). Install one (for example \`nvm install 22\`) and run the command again.`);
});

it.each([["22.19.0"], ["22.23.5"], ["24.0.0"], ["24.22.3"], ["26.1.0"]])("Node %s runs", (version) => {
  expect(unsupportedNodeMessage(version)).toBeUndefined();
});

it("any major.minor.patch is refused exactly when it is older than 22.19", () => {
  fc.assert(
    fc.property(fc.nat(40), fc.nat(40), fc.nat(40), (major, minor, patch) => {
      const older = major < 22 || (major === 22 && minor < 19);
      expect(unsupportedNodeMessage(`${major}.${minor}.${patch}`) !== undefined).toBe(older);
    }),
  );
});
