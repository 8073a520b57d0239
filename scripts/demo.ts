/** `npm run demo`: the real agent CLI against a scripted model that makes every classic mistake once. */
import { runDemo } from "../src/demo/run-demo.js";

process.exit(await runDemo(process.argv.slice(2)));
