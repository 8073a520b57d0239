/** `npm run gen`: typed, JSDoc-commented functions in tools/ → generated/schemas.json. See docs/gen.md. */
import { processIo, runGen } from "../src/gen/command/run-gen.js";

const result = runGen(process.argv.slice(2), processIo());
if (typeof result === "number") process.exitCode = result;
