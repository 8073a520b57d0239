/** `npm run demo`: the real agent CLI against a scripted model that makes every classic mistake once. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runDemo } from "../src/demo/run-demo.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.exit(await runDemo(projectRoot));
