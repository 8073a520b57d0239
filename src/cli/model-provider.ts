/**
 * Which model API the agent talks to (`--provider`), with which key, endpoint and default model, and the
 * requester for it. Each provider's SDK is imported only when that provider is chosen, so the others cost
 * nothing at start-up.
 */
import type { AgentArgs, ProviderName } from "./parse-agent-args.js";
import type { TurnRequester } from "../runtime/loop/types.js";
import type { TurnRequesterSettings } from "../runtime/model/resending-requester.js";
import { isOpenAIEndpoint } from "../runtime/model/openai-endpoint.js";
import { isHttpUrl } from "../shared/http-url.js";
import { withoutCredentials } from "../runtime/model/url-credentials.js";
import { malformedProxy } from "../runtime/model/proxies.js";

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  chat: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  responses: "gpt-5-mini",
};

export interface ProviderSetup {
  provider: ProviderName;
  apiKey: string;
  baseURL?: string;
  /** The default of `--strict`: on for OpenAI's own endpoint (chat, responses), off for Anthropic (`--strict` turns it on). */
  strictByDefault: boolean;
  /** Why, for the tools line. */
  strictReason: string;
}

export type ProviderChoice = { ok: true; setup: ProviderSetup } | { ok: false; error: string };

/**
 * Default: `chat`, except `anthropic` when only ANTHROPIC_API_KEY is set. The environment is checked here,
 * before anything starts: the key, the base URL, and the proxy variables (proxies.ts), each a setup error.
 */
export function chooseProvider(args: AgentArgs, env: NodeJS.ProcessEnv): ProviderChoice {
  const provider = args.provider ?? (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY ? "anthropic" : "chat");
  if (args.thinking !== undefined && provider !== "anthropic") return { ok: false, error: "--thinking is Anthropic's extended thinking: use it with --provider anthropic (for responses, --reasoning-effort)" };
  if (args.reasoningEffort !== undefined && provider !== "responses") return { ok: false, error: "--reasoning-effort applies to --provider responses (for anthropic, --thinking TOKENS)" };
  const keyVariable = provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const baseVariable = provider === "anthropic" ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
  const apiKey = env[keyVariable] ?? "";
  if (apiKey === "") {
    return { ok: false, error: `${keyVariable} is not set. Set it (in the environment or in .env) to your key; for a local server that needs none, any value works.` };
  }
  const baseURL = env[baseVariable] || undefined;
  if (baseURL !== undefined && !isHttpUrl(baseURL)) {
    const example = provider === "anthropic" ? "http://localhost:8080 (without /v1)" : "http://localhost:8080/v1";
    return { ok: false, error: `${baseVariable} must be an http(s) URL of the API root, such as ${example}; got ${JSON.stringify(withoutCredentials(baseURL))}` };
  }
  // Before any request: undici would fail each one with an invalid URL, retried and blamed on the endpoint.
  const proxy = malformedProxy(env);
  if (proxy !== undefined) return { ok: false, error: proxy.message };
  if (args.thinking !== undefined) {
    if (args.thinking < 1024) return { ok: false, error: `--thinking needs a budget of at least 1024 tokens (Anthropic's minimum), got ${args.thinking}` };
    if (args.maxTokens !== undefined && args.maxTokens <= args.thinking) return { ok: false, error: `--max-tokens (${args.maxTokens}) must be more than the --thinking budget (${args.thinking})` };
  }
  const openAIs = provider !== "anthropic" && isOpenAIEndpoint(baseURL);
  return {
    ok: true,
    setup: {
      provider,
      apiKey,
      ...(baseURL !== undefined ? { baseURL } : {}),
      strictByDefault: openAIs,
      strictReason:
        provider === "anthropic" ? "Anthropic's strict tool use is off by default; --strict turns it on" : openAIs ? "the endpoint is OpenAI's; --no-strict turns it off" : "the endpoint is not OpenAI's; --strict turns it on",
    },
  };
}

export interface RequesterExtras {
  onReasoningSummary?: (summary: string) => void;
}

export async function providerRequester(setup: ProviderSetup, args: AgentArgs, settings: TurnRequesterSettings, extras: RequesterExtras = {}): Promise<TurnRequester> {
  const target = { apiKey: setup.apiKey, ...(setup.baseURL !== undefined ? { baseURL: setup.baseURL } : {}) };
  const maxTokens = args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {};
  switch (setup.provider) {
    case "chat": {
      const { createTurnRequester } = await import("../runtime/model/model-client.js");
      return createTurnRequester({ ...target, ...settings, ...maxTokens });
    }
    case "anthropic": {
      const { createAnthropicTurnRequester } = await import("../runtime/model/anthropic/anthropic-client.js");
      return createAnthropicTurnRequester({ ...target, ...settings, ...maxTokens, ...(args.thinking !== undefined ? { thinkingBudget: args.thinking } : {}) });
    }
    case "responses": {
      const { createResponsesTurnRequester } = await import("../runtime/model/responses/responses-client.js");
      return createResponsesTurnRequester({
        ...target,
        ...settings,
        ...maxTokens,
        ...(args.reasoningEffort !== undefined ? { reasoningEffort: args.reasoningEffort } : {}),
        ...(extras.onReasoningSummary ? { onReasoningSummary: extras.onReasoningSummary } : {}),
      });
    }
  }
}

