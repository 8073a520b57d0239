/**
 * The context window of common models, in tokens, for when the user gives none (`--context-window`).
 * A model name matches the longest entry it starts with, after any `provider/` prefix (OpenRouter's
 * `openai/gpt-4o`); an unknown model has an unknown window, and only the endpoint's refusal tells.
 * To add a model, add a line.
 */
const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "gpt-3.5-turbo": 16_385,
  "gpt-4": 8_192,
  "gpt-4-32k": 32_768,
  "gpt-4-turbo": 128_000,
  "gpt-4o": 128_000,
  "gpt-4.1": 1_047_576,
  "gpt-5": 400_000,
  o1: 200_000,
  "o1-mini": 128_000,
  o3: 200_000,
  "o4-mini": 200_000,
  "deepseek-chat": 131_072,
  "deepseek-reasoner": 131_072,
};

/** The known window of `model`, or `undefined`. */
export function contextWindowFor(model: string): number | undefined {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best: string | undefined;
  for (const entry of Object.keys(CONTEXT_WINDOWS)) {
    const matches = name === entry || name.startsWith(`${entry}-`) || name.startsWith(`${entry}:`);
    if (matches && (best === undefined || entry.length > best.length)) best = entry;
  }
  return best === undefined ? undefined : CONTEXT_WINDOWS[best];
}
