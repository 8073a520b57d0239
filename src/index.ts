/**
 * The library: embed the agent loop in a program. `createAgent` joins a model (`createTurnRequester`, over
 * a key and endpoint or the program's own `openai` client) and tools (`createToolExecutor` over a schemas
 * file from `npm run gen`); docs/agent.md shows a whole program.
 */
export { createAgent, type Agent, type AgentOptions, type AfterToolCall, type BeforeToolCall, type MessageSink, type RunOptions, type ToolCallInfo } from "./runtime/agent.js";
export type { AgentEvent, ApiFailure, RunResult, ToolCallResult } from "./runtime/agent-events.js";
export { createTurnRequester, type RetryInfo, type TurnRequesterOptions } from "./runtime/model-client.js";
export { ModelRequestError, type ModelErrorKind } from "./runtime/model-errors.js";
export { createToolExecutor, type ToolExecutorOptions } from "./runtime/tool-executor.js";
export { loadSchemas, type LoadSchemasResult } from "./runtime/load-schemas.js";
export { openTranscript, readTranscript } from "./runtime/transcript.js";
export { toolContext } from "./runtime/tool-context.js";
export type { ChatMessage, ToolCall } from "./runtime/messages.js";
export type { ModelTurn, ToolContext, ToolExecutor, ToolOutcome, TurnRequest, TurnRequester } from "./runtime/types.js";
export type { SchemasFile, ToolDefinition } from "./shared/schemas-file.js";
