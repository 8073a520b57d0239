/**
 * The scripted model of `npm run demo`: it makes each classic mistake once, in this order, then answers.
 * Each step is what the model sends; the loop's recovery is what the user watches on stderr.
 */
import type { ReplyStep } from "../scripted-server/scripted-server.js";

export const DEMO_PROMPT = "What is this project? Read its README and answer in one sentence.";

export const DEMO_ANSWER =
  "sigloop turns ordinary typed TypeScript functions into LLM tools (schemas generated from their signatures) and runs an agent loop that no model output can break.";

export interface DemoStep {
  /** What the narrator says before the step (stderr). */
  mistake: string;
  reply: ReplyStep;
}

const chunked = { chunkSize: 12 };

export const DEMO_STEPS: DemoStep[] = [
  {
    mistake: "arguments that are not valid JSON",
    reply: { content: "Let me read the README.", toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path": "README.md"' }], stream: chunked },
  },
  {
    mistake: "arguments that are JSON but not an object",
    reply: { toolCalls: [{ id: "call_2", name: "read_file", arguments: '["README.md"]' }], stream: chunked },
  },
  {
    mistake: "a tool that does not exist",
    reply: { toolCalls: [{ id: "call_3", name: "open_file", arguments: '{"path":"README.md"}' }], stream: chunked },
  },
  {
    mistake: "an extra argument and, in a parallel call, a missing one",
    reply: {
      toolCalls: [
        { id: "call_4", name: "read_file", arguments: '{"path":"README.md","verbose":true}' },
        { id: "call_5", name: "read_file", arguments: '{"limit":5}' },
      ],
      stream: chunked,
    },
  },
  {
    mistake: "a response cut off by the token limit",
    reply: { content: "sigloop is a toolchain that turns typed TypeScript functions into LLM too", finishReason: "length", stream: chunked },
  },
  {
    mistake: "a path the tool rejects as an argument problem (the file does not exist)",
    reply: { toolCalls: [{ id: "call_6", name: "read_file", arguments: '{"path":"docs/no-such-file.md"}' }], stream: chunked },
  },
  {
    mistake: "none: it answers",
    reply: { content: DEMO_ANSWER, usage: { prompt: 900, completion: 40, cached: 768 }, stream: chunked },
  },
];
