/** Whether text is an absolute http: or https: URL (an endpoint, an MCP server's address). */
export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
