import { ts } from "./compiler.js";

/**
 * Whether a file's code names one of Node's globals (`process`, `Buffer`, `setTimeout`, `URL`, …), which
 * only Node's typings declare under gen's ES2022 library. Read from the file's syntax tree: comments,
 * strings, template text and regular expressions are not code, and a name after a dot (`task.process`)
 * or naming a property, member, parameter or key (`{ process: 1 }`, `(fetch?: string)`) is not the
 * global. The word "process" in a JSDoc comment must not cost a tools folder the load of all of Node's
 * typings.
 */
export function mentionsNodeGlobal(sourceFile: ts.SourceFile): boolean {
  // Most files never spell any of the names: a regular expression settles those without a walk.
  if (!ANY_NAME.test(sourceFile.text)) return false;
  // Parents are passed down: the trees are not bound yet, so their nodes do not know their parents.
  const visit = (node: ts.Node, parent: ts.Node): boolean => {
    // `import x = require("…")` names Node's `require`, which its syntax tree holds as no identifier.
    if (ts.isIdentifier(node) ? NODE_GLOBALS.has(node.text) && !namesMember(node, parent) : ts.isExternalModuleReference(node)) return true;
    return ts.forEachChild(node, (child) => visit(child, node)) === true;
  };
  return ts.forEachChild(sourceFile, (child) => visit(child, sourceFile)) === true;
}

/**
 * Every name Node's typings add to the global scope under gen's ES2022 library, values and types alike
 * (`BufferEncoding`, `NodeJS`, `EventTarget`, `global`): a file naming any of them needs those typings,
 * or the compiler reports "Cannot find name". `test/gen/node-typings-decision.test.ts` compares the list
 * with what the installed typings declare, so a new global in an upgraded `@types/node` fails a test
 * instead of a user's gen.
 */
export const NODE_GLOBALS: ReadonlySet<string> = new Set([
  "AbortController", "AbortSignal", "AllowSharedBuffer", "AsyncDisposable", "Blob", "BroadcastChannel", "Buffer",
  "BufferConstructor", "BufferEncoding", "ByteLengthQueuingStrategy", "CompressionStream", "Console",
  "CountQueuingStrategy", "CustomEvent", "DOMException", "DecompressionStream", "Disposable", "Event",
  "EventListenerOptions", "EventSource", "EventSourceInit", "EventTarget", "File", "FormData", "Global", "Headers",
  "MessageChannel", "MessageEvent", "MessageEventInit", "MessagePort", "Navigator", "NodeJS", "NodeModule",
  "NodeRequire", "NonSharedBuffer", "PerformanceEntry", "PerformanceMark", "PerformanceMeasure", "PerformanceObserver",
  "PerformanceObserverEntryList", "PerformanceResourceTiming", "QueuingStrategy", "ReadableByteStreamController",
  "ReadableStream", "ReadableStreamBYOBReader", "ReadableStreamBYOBRequest", "ReadableStreamDefaultController",
  "ReadableStreamDefaultReader", "ReadableWritablePair", "RelativeIndexable", "Request", "RequestInit",
  "RequireResolve", "Response", "ResponseInit", "Storage", "TextDecoder", "TextDecoderStream", "TextEncoder",
  "TextEncoderStream", "TransformStream", "TransformStreamDefaultController", "URL", "URLSearchParams", "WebSocket",
  "WebSocketInit", "WritableStream", "WritableStreamDefaultController", "WritableStreamDefaultWriter", "_Blob",
  "_ByteLengthQueuingStrategy", "_CountQueuingStrategy", "_File", "_QueuingStrategy", "_ReadableByteStreamController",
  "_ReadableStream", "_ReadableStreamBYOBReader", "_ReadableStreamBYOBRequest", "_ReadableStreamDefaultController",
  "_ReadableStreamDefaultReader", "_ReadableWritablePair", "_TextDecoderStream", "_TextEncoderStream",
  "_TransformStream", "_TransformStreamDefaultController", "_WritableStream", "_WritableStreamDefaultController",
  "_WritableStreamDefaultWriter", "__dirname", "__filename", "atob", "btoa", "clearImmediate", "clearInterval",
  "clearTimeout", "console", "crypto", "exports", "fetch", "gc", "global", "localStorage", "module", "navigator",
  "performance", "process", "queueMicrotask", "require", "sessionStorage", "setImmediate", "setInterval",
  "setTimeout", "structuredClone",
]);

const ANY_NAME = new RegExp(`\\b(?:${[...NODE_GLOBALS].join("|")})\\b`);

/** A name after a dot, or the name of a property, member, parameter, key or label: not the global. */
function namesMember(name: ts.Identifier, parent: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(parent)) return parent.name === name;
  if (ts.isQualifiedName(parent)) return parent.right === name;
  if (ts.isBindingElement(parent)) return parent.propertyName === name;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return true;
  return (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isAccessor(parent) ||
      ts.isEnumMember(parent) ||
      ts.isParameter(parent)) &&
    parent.name === name
  );
}
