// CI, in a fresh project where the packed sigloop is installed (cwd): a scripted `sigloop agent` run against
// the package's own scripted server. The model reads package.json with the re-exported read_file, then answers.
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const serverModule = path.resolve("node_modules/sigloop/dist/src/scripted-server/scripted-server.js");
const { startScriptedServer } = await import(pathToFileURL(serverModule).href);
const answer = "It is a fresh project.";
const server = await startScriptedServer({
  script: [
    { toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"package.json","limit":3}' }] },
    { content: answer },
  ],
});
const child = spawn(path.resolve("node_modules/.bin/sigloop"), ["agent", "What is this project?"], {
  env: { ...process.env, OPENAI_API_KEY: "sk-ci-dummy", OPENAI_BASE_URL: server.baseURL, NO_COLOR: "1" },
  stdio: ["ignore", "pipe", "inherit"],
});
let stdout = "";
child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
const code = await new Promise((resolve) => child.on("close", resolve));
const toolResult = server.requests.at(-1)?.body?.messages?.find((message) => message.role === "tool")?.content ?? "";
await server.close();
if (code !== 0 || stdout !== `${answer}\n` || !toolResult.includes('"name"')) {
  console.error(`CI: the installed sigloop agent run failed (exit ${code}, stdout ${JSON.stringify(stdout)}, tool result ${JSON.stringify(toolResult)})`);
  process.exit(1);
}
console.log("CI: installed package: sigloop agent ran a built-in tool against the scripted server and answered");
