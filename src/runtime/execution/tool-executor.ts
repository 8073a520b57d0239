import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Ajv, ValidateFunction } from "ajv";
import type { SchemasFile, ToolAnnotations, ToolBinding, ToolDefinition } from "../../shared/schemas-file.js";
import { previewFileChange, type Preview } from "../approval/file-change-preview.js";
import { needsApproval, notApprovedMessage } from "../approval/needs-approval.js";
import type { ToolCall } from "../loop/messages.js";
import type { ShownChange } from "../workspace/shown-change.js";
import { bindArguments } from "./bind-arguments.js";
import { callWithTimeout } from "./call-with-timeout.js";
import { argumentsText, checkArguments, type CompiledValidator } from "./check-arguments.js";
import { importToolModule } from "./import-tool-module.js";
import { SHOWN_CHANGE, TOOL_NAME } from "./tool-context.js";
import { capContent, renderReturnValue } from "./format-tool-result.js";
import { mediaResult, type MediaResult } from "./media-result.js";
import { MAX_MEDIA_BYTES } from "./tool-media.js";
import { callReports, SILENT_REPORTS } from "./tool-reports.js";
import { itemsAsText } from "../loop/tool-result-items.js";
import {
  abortedMessage,
  internalErrorMessage,
  loadFailedMessage,
  mediaTooLargeMessage,
  quoteName,
  schemaFailedMessage,
  timeoutMessage,
  toolFailedMessage,
  toolRejectedArgumentMessage,
  unknownToolMessage,
  unrenderableResultMessage,
} from "./tool-messages.js";
import { toolInputProblem } from "./tool-input-error.js";
import type { ToolCallContext, ToolContext, ToolExecutor, ToolOutcome } from "../loop/types.js";
import { compileArguments, createAjv } from "./validate-arguments.js";
import { validationCost } from "./validation-cost.js";

export interface ToolExecutorOptions {
  schemas: SchemasFile;
  /** The directory of the schemas file: binding files are relative to it. */
  schemasDir: string;
  /** Per call; the tool's abort signal fires when it passes. Default 60 s. */
  timeoutMs?: number;
  /** A result longer than this is cut to it, plus a note giving the original length. Default 50,000. */
  maxResultChars?: number;
  /**
   * Imports a tool module by file URL, given the URLs of all the schemas file's tool files; tests
   * substitute it. Default: `importToolModule` (TypeScript tools, compiled or not).
   */
  importModule?: (url: string, toolFiles: readonly string[]) => Promise<unknown>;
  /**
   * Offer the schemas file's `strictTools` (OpenAI's strict dialect, docs/agent.md) instead of `tools`;
   * arguments are validated against `tools` either way. Default false. A file without `strictTools`
   * (written before strict mode existed) offers `tools`.
   */
  strict?: boolean;
  /** Offer no tool that needs approval (`--read-only`): a call to one is a call to an unknown tool. */
  readOnly?: boolean;
}

export { MAX_ARGUMENT_CHARS } from "./check-arguments.js";

/** The default of `maxResultChars`. */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/**
 * One call's outcome as `execute` gives it and, when the tool returned, its value and the notes put
 * before it, so a caller can send the value itself (MCP's `structuredContent`) rather than capped text.
 */
export interface ToolRun extends ToolOutcome {
  returned?: { value: unknown; notes: string[] };
  /** Beside `returned`: the value as text, rendered once (a `toJSON` may work only once), uncapped. */
  rendered?: string;
}

export interface ToolRunner extends ToolExecutor {
  /** `execute`, keeping what the tool returned. Never rejects. */
  run(call: ToolCall, context: ToolContext): Promise<ToolRun>;
}

type ToolFunction = (...args: unknown[]) => unknown;

/** The executor, plus what a program may do while its first request is in flight. */
export interface PreparedToolExecutor extends ToolExecutor {
  /**
   * Starts importing every tool module, then loads Ajv and compiles one tool's validator, which readies
   * Ajv's code generator (tens of ms the first time, where later validators take about one); the rest
   * still compile on first use. Call it once the first request is on its way, so that the model's latency
   * hides it. A module that fails to import is reported by the first call of one of its tools, as without
   * a warm-up, and tried again on the call after. Never rejects.
   */
  warmUp(): Promise<void>;
}

interface ToolEntry {
  definition: ToolDefinition;
  binding: ToolBinding;
  /** Compiled on first use: compiling hundreds of schemas at start-up would cost a second. */
  validator?: CompiledValidator;
  fn?: ToolFunction;
}

/**
 * Runs the model's tool calls: finds the tool, parses the arguments, reads `null` for an optional member
 * as "not given", validates them (repairing what can be repaired losslessly), imports the tool's module
 * on first use, calls the function with a timeout, and
 * turns whatever happens into one outcome whose content is capped. `execute` never rejects.
 */
export function createToolExecutor(options: ToolExecutorOptions): ToolRunner & PreparedToolExecutor {
  const { schemas, schemasDir, timeoutMs = 60_000, maxResultChars = DEFAULT_MAX_RESULT_CHARS } = options;
  const importModule = options.importModule ?? importToolModule;
  const annotationsOf = (name: string): ToolAnnotations => schemas.annotations?.[name] ?? {};
  const asksApproval = (name: string): boolean => needsApproval(annotationsOf(name), "local");
  const offered = (tool: ToolDefinition): boolean => options.readOnly !== true || !asksApproval(tool.function.name);
  const entries = new Map<string, ToolEntry>();
  schemas.tools.forEach((definition, index) => {
    const binding = schemas.bindings[index];
    if (binding !== undefined && offered(definition)) entries.set(definition.function.name, { definition, binding });
  });
  // The schemas file's own array when nothing is left out: the tools list is sent as the very same value.
  const offeredDefinitions = (tools: ToolDefinition[]): ToolDefinition[] => (options.readOnly === true ? tools.filter(offered) : tools);
  const toolNames = offeredDefinitions(schemas.tools).map((tool) => tool.function.name);
  const modules = new Map<string, Promise<unknown>>();
  const toolFiles = [...new Set(schemas.bindings.map((binding) => fileUrlOf(binding)))];
  let ajv: Promise<Ajv> | undefined;

  async function validatorFor(entry: ToolEntry): Promise<NonNullable<ToolEntry["validator"]>> {
    if (entry.validator === undefined) {
      ajv ??= createAjv();
      const instance = await ajv;
      // Another call may have compiled it while this one waited for Ajv.
      if (entry.validator !== undefined) return entry.validator;
      try {
        const { parameters } = entry.definition.function;
        entry.validator = { ok: true, validate: compileArguments(instance, parameters), cost: validationCost(parameters) };
      } catch (error) {
        entry.validator = { ok: false, error };
      }
    }
    return entry.validator;
  }

  function fileUrlOf(binding: ToolBinding): string {
    return pathToFileURL(path.resolve(schemasDir, binding.file)).href;
  }

  /** The import of a binding's module: started once per file, shared by its tools' calls and the warm-up. */
  function moduleImport(binding: ToolBinding): { url: string; loading: Promise<unknown> } {
    const url = fileUrlOf(binding);
    let loading = modules.get(url);
    if (loading === undefined) {
      loading = importModule(url, toolFiles);
      modules.set(url, loading);
    }
    return { url, loading };
  }

  async function loadFunction(entry: ToolEntry): Promise<ToolFunction | string> {
    if (entry.fn !== undefined) return entry.fn;
    const { binding } = entry;
    const { url, loading } = moduleImport(binding);
    let module: unknown;
    try {
      module = await loading;
    } catch (error) {
      // A module that failed to load may be fixed on disk; let the next call try again.
      if (modules.get(url) === loading) modules.delete(url);
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    const fn = exportedValue(module, binding.exportName);
    if (typeof fn !== "function") return `it has no exported function ${binding.exportName}`;
    entry.fn = fn as ToolFunction;
    return entry.fn;
  }

  async function attempt(call: ToolCall, context: ToolContext, name: string): Promise<ToolRun> {
    const entry = entries.get(name);
    if (entry === undefined) return { status: "unknown_tool", content: unknownToolMessage(name, toolNames, suggestName(name, toolNames)) };
    const checked = await checkArguments({
      name,
      text: argumentsText(call.function.arguments),
      schema: entry.definition.function.parameters,
      validator: () => validatorFor(entry),
      schemaFailed: (error) => ({ status: "tool_error", content: schemaFailedMessage(name, error) }),
      stoppable: { dialect: "draft-07", timeoutMs, signal: context.signal },
    });
    if (!checked.ok) return checked.outcome;

    if (context.signal.aborted) return { status: "aborted", content: abortedMessage(name) };
    let shown: ShownChange | undefined;
    if (context.approve !== undefined && asksApproval(name)) {
      const approval = await askApproval(context, context.approve, { ...call, function: { name, arguments: JSON.stringify(checked.args) } }, checked.args);
      if ("refused" in approval) return approval.refused;
      shown = approval.shown;
    }
    const fn = await loadFunction(entry);
    if (typeof fn === "string") return { status: "tool_error", content: loadFailedMessage(name, entry.binding.file, fn) };
    // The tool learns where its result will be cut, so it can stop there with a note of its own; it
    // reports through the filter, never to `onReport` itself.
    const { onReport, ...callContext } = context;
    const reports = onReport !== undefined ? callReports(onReport) : SILENT_REPORTS;
    const cut = resultCut(context);
    // The change the approval showed goes to this one run, which writes only if it is still that change.
    const toolContext: ToolCallContext = {
      ...callContext, maxResultChars: cut, progress: reports.progress, log: reports.log, [TOOL_NAME]: name, ...(shown !== undefined ? { [SHOWN_CHANGE]: shown } : {}),
    } as ToolCallContext;
    const result = await callWithTimeout(fn, bindArguments(entry.binding.call, checked.args), toolContext, timeoutMs);
    reports.close();
    switch (result.kind) {
      case "timeout":
        return { status: "timeout", content: timeoutMessage(name, timeoutMs) };
      case "aborted":
        return { status: "aborted", content: abortedMessage(name) };
      case "threw": {
        const rejected = toolInputProblem(result.error);
        if (rejected !== undefined) return { status: "invalid_arguments", content: toolRejectedArgumentMessage(name, rejected, entry.definition.function.parameters) };
        return { status: "tool_error", content: toolFailedMessage(name, result.error) };
      }
      case "returned": {
        const { notes } = checked;
        let media: MediaResult | undefined;
        let body: string;
        try {
          media = mediaResult(result.value, notes, cut, cut < maxResultChars);
          body = media === undefined ? renderReturnValue(result.value) : "";
        } catch (error) {
          return { status: "tool_error", content: unrenderableResultMessage(name, error) };
        }
        if (media !== undefined) {
          if (!media.ok) return { status: "tool_error", content: mediaTooLargeMessage(name, media.kind, media.bytes, MAX_MEDIA_BYTES) };
          return { status: "ok", content: itemsAsText(media.items), items: media.items, returned: { value: result.value, notes } };
        }
        return { status: "ok", content: [...notes, body].join("\n"), returned: { value: result.value, notes }, rendered: body };
      }
    }
  }

  /**
   * Asks for approval of a validated call, with the preview of a file tool's change. A file-tool call the
   * tool would refuse is answered with that refusal, without asking: it would change nothing. Returns the
   * outcome of a call that must not run, or, to run it, the change that was shown.
   */
  async function askApproval(
    context: ToolContext, approve: NonNullable<ToolContext["approve"]>, call: ToolCall, args: Record<string, unknown>,
  ): Promise<{ refused: ToolRun } | { shown: ShownChange | undefined }> {
    const name = call.function.name;
    let preview: Preview | undefined;
    try {
      preview = await previewFileChange(name, args, context.workspace);
    } catch (error) {
      return { refused: { status: "tool_error", content: toolFailedMessage(name, error) } };
    }
    if (preview !== undefined && "refusal" in preview) return { refused: { status: "ok", content: preview.refusal } };
    const verdict = await approve({ call, annotations: annotationsOf(name), ...(preview !== undefined ? { preview: preview.preview } : {}) });
    if (context.signal.aborted) return { refused: { status: "aborted", content: abortedMessage(name) } };
    if (!verdict.approved) return { refused: { status: "denied", content: notApprovedMessage(name, verdict.reason) } };
    return { shown: preview?.shown };
  }

  async function run(call: ToolCall, context: ToolContext): Promise<ToolRun> {
    let name = "";
    let outcome: ToolRun;
    try {
      name = typeof call?.function?.name === "string" ? call.function.name : "";
      outcome = await attempt(call, context, name);
    } catch (error) {
      outcome = { status: "tool_error", content: internalErrorMessage(quoteName(name), error) };
    }
    const cut = resultCut(context);
    // Items were cut as they were made (media-result.ts); their text follows them.
    if (outcome.items !== undefined) return outcome;
    return { ...outcome, content: capContent(outcome.content, cut, cut < maxResultChars) };
  }

  /** Where a call's result is cut: the executor's cap, or the call's share of its turn's budget when smaller. */
  function resultCut(context: ToolContext): number {
    return Math.min(maxResultChars, context.maxResultChars ?? maxResultChars);
  }

  return {
    definitions: offeredDefinitions(options.strict === true ? (schemas.strictTools ?? schemas.tools) : schemas.tools),
    describe(name) {
      if (!entries.has(name)) return undefined;
      const annotations = schemas.annotations?.[name];
      return { origin: { kind: "local" }, ...(annotations !== undefined ? { annotations } : {}) };
    },
    needsApproval: (name) => entries.has(name) && asksApproval(name),
    run,
    sharesIdenticalCalls(name) {
      const hints = Object.hasOwn(schemas.annotations ?? {}, name) ? schemas.annotations![name] : undefined;
      return hints?.readOnlyHint === true && hints.idempotentHint === true;
    },
    async execute(call, context) {
      const { status, content, items } = await run(call, context);
      return { status, content, ...(items !== undefined ? { items } : {}) };
    },
    async warmUp() {
      // Imports first: a TypeScript loader works on them in its own thread while Ajv loads on this one. A
      // failed import stays in `modules` for the first call of its tools to report.
      const imports = [...entries.values()].map((entry) => moduleImport(entry.binding).loading.catch(() => undefined));
      const first = entries.values().next();
      // A failure to load Ajv stays in `ajv` and is reported by the first call that needs it.
      if (first.done !== true) await validatorFor(first.value).catch(() => undefined);
      await Promise.all(imports);
    },
  };
}

/** Catches the usual near-misses: a `functions.` prefix, different case, stray whitespace. */
export function suggestName(name: string, toolNames: readonly string[]): string | undefined {
  const wanted = name.trim().replace(/^functions[.:]/, "").toLowerCase();
  return toolNames.find((candidate) => candidate.toLowerCase() === wanted);
}

/**
 * An export of an imported module. A CommonJS tool file (in a project without `"type": "module"`) arrives
 * as a namespace whose `default` is its `module.exports`; its exports are looked up there too.
 */
function exportedValue(module: unknown, name: string): unknown {
  if (typeof module !== "object" || module === null) return undefined;
  const namespace = module as Record<string, unknown>;
  // Own exports only: `constructor` or `toString` must not find Object.prototype's.
  if (Object.hasOwn(namespace, name)) return namespace[name];
  const commonJs = namespace.default;
  return typeof commonJs === "object" && commonJs !== null && Object.hasOwn(commonJs, name) ? (commonJs as Record<string, unknown>)[name] : undefined;
}
