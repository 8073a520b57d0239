/**
 * The tools of the connected servers as one executor beside the local one. Each server tool is offered
 * under its fitted name (tool-names.ts) with its prepared schema (tool-schema.ts; in strict mode its
 * strict form, made once when the tools are listed), and every call goes through the local tools' checks
 * (check-arguments.ts) before anything is sent. A schema too large to compile without holding the agent
 * (tool-schema.ts `compileLimitProblem`) makes that tool an error result, one nested too deep to read at
 * all leaves it out, and one without a strict form (a member's schema that is a string included) is
 * offered lenient, each with a notice. `definitions` is the same array on every read until a server's
 * tools change after the first request has been sent (a `list_changed`, or a restart that lists other
 * tools): then the next read brings the new list, and one notice says so. A server's new list that is
 * the same as its last one changes nothing.
 */
import type { Ajv } from "ajv";
import type { JsonSchema, ToolAnnotations, ToolDefinition } from "../../shared/schemas-file.js";
import { strictToolDefinition } from "../../shared/dialects/strict-tool.js";
import { argumentsText, checkArguments, type CompiledValidator } from "../execution/check-arguments.js";
import { needsApproval, notApprovedMessage } from "../approval/needs-approval.js";
import { capContent } from "../execution/format-tool-result.js";
import { capTextItems } from "../execution/media-result.js";
import { callReports } from "../execution/tool-reports.js";
import { itemsAsText } from "../loop/tool-result-items.js";
import { DEFAULT_MAX_RESULT_CHARS, suggestName } from "../execution/tool-executor.js";
import { abortedMessage, internalErrorMessage, quoteName, timeoutMessage, toolFailedMessage, unknownToolMessage } from "../execution/tool-messages.js";
import { compileArguments, createAjv, type SchemaDialect } from "../execution/validate-arguments.js";
import { validationCost } from "../execution/validation-cost.js";
import type { ToolCall } from "../loop/messages.js";
import type { ToolContext, ToolExecutor, ToolInfo, ToolOrigin, ToolOutcome } from "../loop/types.js";
import { mapCallResult } from "./call-result.js";
import { describeError } from "./server-errors.js";
import { answerTooLargeMessage, notOfferedMessage, serverRefusedMessage, serverSchemaFailedMessage, serverStoppedMessage, serverUnavailableMessage } from "./mcp-messages.js";
import type { ServerConnection, ServerTool } from "./server-connection.js";
import { asDefinitionsSchema, compileLimitProblem, prepareToolSchema, type ToolSchemas } from "./tool-schema.js";
import { clashMessage, offeredToolName } from "./tool-names.js";

interface McpToolEntry {
  name: string;
  server: ServerConnection;
  tool: string;
  definition: ToolDefinition;
  schemas: ToolSchemas;
  annotations?: ToolAnnotations;
  validator?: CompiledValidator;
}

export interface McpToolSetOptions {
  local: ToolExecutor;
  strict: boolean;
  /** Leave out every server tool that needs approval, as `createToolExecutor({ readOnly })` does; a call to one reads as a call to an unknown tool. */
  readOnly?: boolean;
  /** Per call, a restart of its server included. Default 60 s, as for local tools. */
  timeoutMs?: number;
  maxResultChars?: number;
  /** One line of ours for stderr. */
  onNotice(line: string): void;
}

export interface McpToolSet extends ToolExecutor {
  /** Adds a started server's tools; an error (a clash) names the name and both origins. */
  add(server: ServerConnection, tools: readonly ServerTool[]): { ok: true } | { ok: false; error: string };
  /** A server that was configured but did not start: calls to names under it say so. */
  leftOut(server: string, why: string): void;
  /** A server's new list (`list_changed`). */
  replace(server: ServerConnection, tools: readonly ServerTool[]): void;
}

export function createMcpToolSet(options: McpToolSetOptions): McpToolSet {
  const { local, strict, timeoutMs = 60_000, maxResultChars = DEFAULT_MAX_RESULT_CHARS } = options;
  const localNames = new Set(local.definitions.map((tool) => tool.function.name));
  let entries: McpToolEntry[] = [];
  const byName = new Map<string, McpToolEntry>();
  const missing = new Map<string, string>();
  /** Each server's last list as it sent it (JSON): a `list_changed` that brings the same list is no change. */
  const listed = new Map<ServerConnection, string | undefined>();
  /** Names left out by `readOnly`: a call to one is answered as a call to a tool that does not exist. */
  const withheld = new Set<string>();
  const ajvs = new Map<SchemaDialect, Promise<Ajv>>();
  let offered: readonly ToolDefinition[] = local.definitions;
  let sent = false;

  function originOf(name: string): ToolOrigin | undefined {
    if (localNames.has(name)) return { kind: "local" };
    const entry = byName.get(name);
    return entry === undefined ? undefined : { kind: "mcp", server: entry.server.name, tool: entry.tool };
  }

  function entriesOf(server: ServerConnection, tools: readonly ServerTool[], taken: (name: string) => ToolOrigin | undefined): { ok: true; entries: McpToolEntry[] } | { ok: false; error: string } {
    const made: McpToolEntry[] = [];
    const names = new Map<string, ToolOrigin>();
    for (const tool of tools) {
      const name = offeredToolName(server.name, tool.name);
      const annotations = tool.annotations !== undefined ? annotationsOf(tool.annotations) : undefined;
      // Left out before the clash check: a tool that is never offered takes no name.
      if (options.readOnly === true && needsApproval(annotations, "external")) {
        withheld.add(name);
        continue;
      }
      const origin: ToolOrigin = { kind: "mcp", server: server.name, tool: tool.name };
      const earlier = taken(name) ?? names.get(name);
      if (earlier !== undefined) return { ok: false, error: clashMessage(name, earlier, origin) };
      names.set(name, origin);
      let schemas: ToolSchemas;
      try {
        schemas = prepareToolSchema(tool.inputSchema);
      } catch (error) {
        // Nested deeper than the stack allows (thousands of levels): it can be neither offered nor checked.
        options.onNotice(`mcp: tool ${JSON.stringify(name)} of server ${JSON.stringify(server.name)} is left out: its inputSchema could not be read (${describeError(error)})`);
        continue;
      }
      const description = tool.description ?? tool.title ?? tool.annotations?.title ?? "";
      made.push({
        name,
        server,
        tool: tool.name,
        schemas,
        definition: offeredDefinition(name, description, schemas),
        ...(annotations !== undefined ? { annotations } : {}),
      });
    }
    return { ok: true, entries: made };
  }

  function offeredDefinition(name: string, description: string, schemas: ToolSchemas): ToolDefinition {
    const lenient: ToolDefinition = { type: "function", function: { name, description, parameters: schemas.offered } };
    if (!strict) return lenient;
    const open = openTopLevel(schemas.checked);
    const converted = open === undefined ? strictToolDefinition({ type: "function", function: { name, description, parameters: asDefinitionsSchema(schemas.checked) } }) : undefined;
    if (converted !== undefined && converted.lenient === undefined) return converted.definition;
    const message = converted?.lenient?.message ?? `tool "${name}" is offered with strict: false in strict mode: its parameters ${open}; the model's arguments are still validated`;
    options.onNotice(`mcp: ${message}`);
    return { type: "function", function: { ...lenient.function, strict: false } };
  }

  function rebuild(): void {
    byName.clear();
    for (const entry of entries) byName.set(entry.name, entry);
    offered = [...local.definitions, ...entries.map((entry) => entry.definition)];
  }

  async function validatorFor(entry: McpToolEntry): Promise<CompiledValidator> {
    if (entry.validator !== undefined) return entry.validator;
    const { dialect } = entry.schemas;
    let ajv = ajvs.get(dialect);
    if (ajv === undefined) {
      ajv = createAjv(dialect);
      ajvs.set(dialect, ajv);
    }
    const instance = await ajv;
    if (entry.validator !== undefined) return entry.validator;
    const tooLarge = compileLimitProblem(entry.schemas.checked);
    if (tooLarge !== undefined) {
      entry.validator = { ok: false, error: new Error(tooLarge) };
      return entry.validator;
    }
    try {
      entry.validator = { ok: true, validate: compileArguments(instance, entry.schemas.checked), cost: validationCost(entry.schemas.checked) };
    } catch (error) {
      entry.validator = { ok: false, error };
    }
    return entry.validator;
  }

  async function callServerTool(entry: McpToolEntry, call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
    const { name } = entry;
    const server = entry.server.name;
    const checked = await checkArguments({
      name,
      text: argumentsText(call.function.arguments),
      schema: entry.schemas.checked,
      validator: () => validatorFor(entry),
      schemaFailed: (error) => ({ status: "tool_error", content: serverSchemaFailedMessage(name, server, error instanceof Error ? error.message : String(error)) }),
      stoppable: { dialect: entry.schemas.dialect, timeoutMs, signal: context.signal },
    });
    if (!checked.ok) return checked.outcome;
    if (context.signal.aborted) return { status: "aborted", content: abortedMessage(name) };
    if (context.approve !== undefined && needsApproval(entry.annotations, "external")) {
      const validated: ToolCall = { ...call, function: { name, arguments: JSON.stringify(checked.args) } };
      const verdict = await context.approve({ call: validated, annotations: entry.annotations ?? {} });
      if (context.signal.aborted) return { status: "aborted", content: abortedMessage(name) };
      if (!verdict.approved) return { status: "denied", content: notApprovedMessage(name, verdict.reason) };
    }
    // The server's progress for this call goes through the same filter as a local tool's.
    const reports = context.onReport !== undefined ? callReports(context.onReport) : undefined;
    const outcome = await entry.server.call(entry.tool, checked.args, { signal: context.signal, timeoutMs, ...(reports !== undefined ? { onProgress: reports.progress } : {}) });
    reports?.close();
    switch (outcome.kind) {
      case "result": {
        await entry.server.toolsSettled({ signal: context.signal, timeoutMs });
        const mapped = mapCallResult(outcome.result);
        if (mapped.isError) return { status: "tool_error", content: toolFailedMessage(name, { name: "Error", message: mapped.text }) };
        const content = [...checked.notes, mapped.text].join("\n");
        if (mapped.items === undefined) return { status: "ok", content };
        return { status: "ok", content, items: [...(checked.notes.length > 0 ? [{ type: "text" as const, text: checked.notes.join("\n") }] : []), ...mapped.items] };
      }
      case "unavailable":
        return { status: "tool_error", content: serverUnavailableMessage(name, server, outcome.why) };
      case "stopped":
        return { status: "tool_error", content: serverStoppedMessage(name, server, outcome.restarts) };
      case "timeout":
        return { status: "timeout", content: timeoutMessage(name, timeoutMs) };
      case "aborted":
        return { status: "aborted", content: abortedMessage(name) };
      case "error":
        return { status: "tool_error", content: serverRefusedMessage(name, server, outcome.message) };
      case "too_large":
        return { status: "tool_error", content: answerTooLargeMessage(name, server, outcome.bytes, outcome.limit) };
    }
  }

  function notFound(name: string): ToolOutcome {
    const names = offered.map((tool) => tool.function.name);
    if (withheld.has(name)) return { status: "unknown_tool", content: unknownToolMessage(name, names, suggestName(name, names)) };
    for (const [server, why] of missing) {
      if (name.startsWith(offeredToolName(server, ""))) return { status: "unknown_tool", content: serverUnavailableMessage(quoteName(name), server, why) };
    }
    for (const entry of entries) {
      if (name.startsWith(offeredToolName(entry.server.name, ""))) return { status: "unknown_tool", content: notOfferedMessage(name, entry.server.name, names) };
    }
    return { status: "unknown_tool", content: unknownToolMessage(name, names, suggestName(name, names)) };
  }

  async function execute(call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
    const name = typeof call?.function?.name === "string" ? call.function.name : "";
    if (localNames.has(name)) return local.execute(call, context);
    let outcome: ToolOutcome;
    try {
      const entry = byName.get(name);
      outcome = entry === undefined ? notFound(name) : await callServerTool(entry, call, context);
    } catch (error) {
      outcome = { status: "tool_error", content: internalErrorMessage(quoteName(name), error) };
    }
    const cut = Math.min(maxResultChars, context.maxResultChars ?? maxResultChars);
    if (outcome.items !== undefined) {
      const items = capTextItems(outcome.items, cut, cut < maxResultChars);
      return { ...outcome, content: itemsAsText(items), items };
    }
    return { ...outcome, content: capContent(outcome.content, cut, cut < maxResultChars) };
  }

  return {
    get definitions() {
      sent = true;
      return offered;
    },
    execute,
    sharesIdenticalCalls: (name) => localNames.has(name) && local.sharesIdenticalCalls?.(name) === true,
    needsApproval(name) {
      if (localNames.has(name)) return local.needsApproval?.(name) === true;
      const entry = byName.get(name);
      return entry !== undefined && needsApproval(entry.annotations, "external");
    },
    describe(name): ToolInfo | undefined {
      if (localNames.has(name)) return local.describe?.(name) ?? { origin: { kind: "local" } };
      const entry = byName.get(name);
      if (entry === undefined) return undefined;
      return { origin: { kind: "mcp", server: entry.server.name, tool: entry.tool }, ...(entry.annotations !== undefined ? { annotations: entry.annotations } : {}) };
    },
    add(server, tools) {
      const made = entriesOf(server, tools, originOf);
      if (!made.ok) return made;
      entries = [...entries, ...made.entries];
      listed.set(server, listText(tools));
      rebuild();
      return { ok: true };
    },
    leftOut(server, why) {
      missing.set(server, why);
    },
    replace(server, tools) {
      const text = listText(tools);
      // The same list again (a clash it brought included) is no change and no new line.
      if (text !== undefined && listed.get(server) === text) return;
      listed.set(server, text);
      const others = entries.filter((entry) => entry.server !== server);
      const otherNames = new Map<string, ToolOrigin>(others.map((entry) => [entry.name, { kind: "mcp", server: entry.server.name, tool: entry.tool }]));
      const made = entriesOf(server, tools, (name) => (localNames.has(name) ? { kind: "local" } : otherNames.get(name)));
      if (!made.ok) {
        options.onNotice(`mcp: server ${JSON.stringify(server.name)} changed its tools, but ${made.error} Its earlier tools are kept.`);
        return;
      }
      // Each server's tools stay where they were in the list, so the other servers' part of the prefix keeps its bytes.
      const at = entries.findIndex((entry) => entry.server === server);
      const before = at === -1 ? others : entries.slice(0, at);
      const after = at === -1 ? [] : entries.slice(at).filter((entry) => entry.server !== server);
      entries = [...before, ...made.entries, ...after];
      rebuild();
      if (sent) options.onNotice(`mcp: server ${JSON.stringify(server.name)} changed its tools (${made.entries.length} now); the new list is offered from the next request on`);
    },
  };
}

/**
 * Why a server's top-level schema has no strict form the converter could see: it reads the top level as
 * gen writes it (a closed object of named parameters), so keys left open or combined there are caught here.
 */
function openTopLevel(schema: JsonSchema): string | undefined {
  if (schema.additionalProperties !== false || "patternProperties" in schema) return "are an open object (keys not named in advance), which strict mode cannot express";
  const combined = ["anyOf", "oneOf", "allOf", "not", "if", "$ref"].find((key) => key in schema);
  return combined === undefined ? undefined : `combine schemas at the top level (${combined}), which strict mode cannot express there`;
}

/** Only the four boolean hints: what else a server sends there is not ours to pass on. */
function annotationsOf(annotations: NonNullable<ServerTool["annotations"]>): ToolAnnotations {
  const hints: ToolAnnotations = {};
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    const value = annotations[key];
    if (typeof value === "boolean") hints[key] = value;
  }
  return hints;
}

/** A list as JSON, to tell whether it changed; undefined for one nested too deep to write (never the same). */
function listText(tools: readonly ServerTool[]): string | undefined {
  try {
    return JSON.stringify(tools);
  } catch {
    return undefined;
  }
}
