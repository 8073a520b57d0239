import { defineConfig } from "vitest/config";

// CI asks for a JSON report beside the usual output, to print a one-line summary.
const jsonReport = process.env.VITEST_JSON;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: jsonReport ? ["default", "json"] : ["default"],
    outputFile: jsonReport ? { json: jsonReport } : undefined,
  },
});
