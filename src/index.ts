/**
 * The library: embed the agent loop in a program. `createAgent` joins a model (`createTurnRequester`, over
 * a key and endpoint or the program's own `openai` client) and tools (`createToolExecutor` over a schemas
 * file from `npm run gen`); docs/agent.md shows a whole program.
 */
export {
  createAgent, type Agent, type AgentOptions, type AfterToolCall, type ApprovalAnswer, type ApprovalInfo, type ApproveCall, type BeforeToolCall,
  type MessageSink, type RunOptions, type ToolCallInfo,
} from "./runtime/loop/agent.js";
export { needsApproval, type ApprovalRequest, type ApprovalVerdict, type ToolOrigin } from "./runtime/approval/needs-approval.js";
export type { ApprovalRecord, ApprovalState } from "./runtime/approval/approval-record.js";
export type { AgentEvent, ApiFailure, CompactionEvent, RunResult, ToolCallResult } from "./runtime/loop/agent-events.js";
export type { CompactionRecord } from "./runtime/compaction/compaction-record.js";
export { createTurnRequester, type RetryInfo, type TurnRequesterOptions } from "./runtime/model/model-client.js";
export { ModelRequestError, type ModelErrorKind } from "./runtime/model/model-errors.js";
export { isOpenAIEndpoint } from "./runtime/model/openai-endpoint.js";
export { createToolExecutor, type ToolExecutorOptions } from "./runtime/execution/tool-executor.js";
export { loadSchemas, type LoadSchemasResult } from "./runtime/execution/load-schemas.js";
export { openTranscript, readTranscript } from "./runtime/loop/transcript.js";
export { toolContext } from "./runtime/execution/tool-context.js";
export type { ChatMessage, ToolCall } from "./runtime/loop/messages.js";
export type { ModelTurn, ToolContext, ToolExecutor, ToolOutcome, TurnRequest, TurnRequester } from "./runtime/loop/types.js";
export type { SchemasFile, ToolDefinition } from "./shared/schemas-file.js";
