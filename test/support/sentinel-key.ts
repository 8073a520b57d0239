/**
 * The API key every test sends. It must never appear in any output, error, log or transcript: the tests
 * that can see an output assert so, and `.ci/run` scans the whole suite's output for it. CI passes a fresh
 * random one per run (SIGLOOP_SENTINEL_KEY), so a key baked into a snapshot or message cannot pass by luck.
 */
export const SENTINEL_API_KEY = process.env.SIGLOOP_SENTINEL_KEY ?? "sk-sentinel-7f3a9c1e5b2d4086-DO-NOT-LEAK";
