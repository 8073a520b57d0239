#!/usr/bin/env node
/**
 * The `sigloop` bin of the installed package. It imports its work (`run-sigloop.ts`) only when run, so that
 * nothing the bin needs is linked before this module's own code.
 */
await import("./run-sigloop.js");
