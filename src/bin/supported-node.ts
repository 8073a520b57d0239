/**
 * The Node lines sigloop runs on, checked by the bin before it links anything else: on an older Node the
 * first module that names a newer API (`module.enableCompileCache`, Node 22.1) would stop the bin with a
 * `SyntaxError` and a stack trace instead of a sentence. The minimum is package.json's `engines.node`
 * (a test keeps the two equal); npm only warns about `engines` when it installs.
 */

/** The oldest Node the bin runs on, as `engines.node` says it (`>=22.19`). */
export const MINIMUM_NODE = { major: 22, minor: 19 } as const;

/** The sentence for a Node older than `MINIMUM_NODE`, or `undefined` when `version` (`process.versions.node`) is supported. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const supported = major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor);
  if (supported) return undefined;
  return `sigloop: Node ${version} is not supported; sigloop needs Node ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or later (22 or 24). Install one (for example \`nvm install 22\`) and run the command again.`;
}
