/**
 * Whether a base URL is OpenAI's own endpoint (or Azure OpenAI's), where strict tool calling is known to
 * work: no base URL (the SDK's default, api.openai.com), the host `api.openai.com`, or a host ending in
 * `.openai.azure.com`. Elsewhere (gateways, local servers) a `strict` field may be refused or ignored, so
 * sigloop offers the lenient definitions there unless told otherwise.
 */
export function isOpenAIEndpoint(baseURL: string | undefined): boolean {
  if (baseURL === undefined || baseURL === "") return true;
  let host: string;
  try {
    host = new URL(baseURL).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "api.openai.com" || host.endsWith(".openai.azure.com");
}
