/**
 * The library: embed the agent loop in a program. `createAgent` joins a model (`createTurnRequester`, over
 * a key and endpoint or the program's own `openai` client) and tools (`createToolExecutor` over a schemas
 * file from `npm run gen`, and `connectMcpServers` for the tools of MCP servers beside them);
 * docs/agent.md shows a whole program, docs/mcp-client.md the MCP servers.
 */
export {
  createAgent, type Agent, type AgentOptions, type AfterToolCall, type ApprovalAnswer, type ApprovalInfo, type ApproveCall, type BeforeToolCall,
  type MessageSink, type RunOptions, type ToolCallInfo,
} from "./runtime/loop/agent.js";
export { needsApproval, type ApprovalRequest, type ApprovalVerdict } from "./runtime/approval/needs-approval.js";
export type { ApprovalRecord, ApprovalState } from "./runtime/approval/approval-record.js";
export type { AgentEvent, ApiFailure, CompactionEvent, RunResult, ToolCallResult } from "./runtime/loop/agent-events.js";
export type { CompactionRecord } from "./runtime/compaction/compaction-record.js";
export { createTurnRequester, type RetryInfo, type TurnRequesterOptions } from "./runtime/model/model-client.js";
export { createAnthropicTurnRequester, type AnthropicRequesterOptions } from "./runtime/model/anthropic/anthropic-client.js";
export { createResponsesTurnRequester, type ResponsesRequesterOptions } from "./runtime/model/responses/responses-client.js";
export { ModelRequestError, type ModelErrorKind } from "./runtime/model/model-errors.js";
export { isOpenAIEndpoint } from "./runtime/model/openai-endpoint.js";
export { createToolExecutor, type ToolExecutorOptions } from "./runtime/execution/tool-executor.js";
export { loadSchemas, type LoadSchemasResult } from "./runtime/execution/load-schemas.js";
export { connectMcpServers, type ConnectMcpServersOptions, type ConnectMcpServersResult, type McpServers } from "./runtime/mcp-client/connect-mcp-servers.js";
export { parseMcpConfig, readMcpConfig, type McpConfig, type McpConfigResult, type McpServerConfig } from "./runtime/mcp-client/mcp-config.js";
export { openTranscript, readTranscript } from "./runtime/loop/transcript.js";
export { toolContext } from "./runtime/execution/tool-context.js";
export { MAX_MEDIA_BYTES, toolAudio, toolImage, type MediaBytes, type ToolAudio, type ToolImage, type ToolMedia } from "./runtime/execution/tool-media.js";
export { LOG_LEVELS, type LogLevel } from "./runtime/execution/tool-reports.js";
export { ToolInputError, type ToolInputErrorOptions } from "./runtime/execution/tool-input-error.js";
export type { ChatMessage, ProviderPart, ToolCall, ToolResultItem, ToolResultStatus } from "./runtime/loop/messages.js";
export type { ModelTurn, ToolCallContext, ToolContext, ToolExecutor, ToolInfo, ToolOrigin, ToolOutcome, ToolReport, TurnRequest, TurnRequester } from "./runtime/loop/types.js";
export type { SchemasFile, ToolDefinition } from "./shared/schemas-file.js";
