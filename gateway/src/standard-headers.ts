import type { JsonRpcMessage } from './json-rpc.js';

/**
 * The body field `Mcp-Name` mirrors, per method (revision 2026-07-28, SEP-2243 and SEP-2663;
 * the official SDK's MCP_NAME_HEADER_SOURCE).
 */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as the revision encodes it: plain, or `=?base64?…?=`; undefined if invalid. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * How the `Mcp-Method` / `Mcp-Name` headers disagree with the body, or undefined when they
 * agree (or are absent: the upstream answers for a missing one). The gateway checks the body,
 * an upstream or intermediary may route by the headers: they must name the same thing, or a
 * call the allowlist refuses could be delivered under another name. A batch has no such
 * headers (the revision that defines them has no batches).
 */
export function standardHeaderMismatch(
  messages: JsonRpcMessage[],
  batch: boolean,
  header: (name: string) => string | undefined,
): string | undefined {
  const method = header('mcp-method');
  const name = header('mcp-name');
  if (method === undefined && name === undefined) return undefined;
  const [message] = messages;
  if (batch || message === undefined) return 'a batch carries Mcp-Method or Mcp-Name';
  if (method !== undefined && decodeHeaderValue(method) !== message.method) {
    return 'the Mcp-Method header does not name the body’s method';
  }
  if (name === undefined || typeof message.method !== 'string') return undefined;
  const field = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method] : '';
  if (!field) return undefined;
  const params = message.params;
  const value =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? (params as Record<string, unknown>)[field]
      : undefined;
  if (decodeHeaderValue(name) !== value) {
    return `the Mcp-Name header does not name the body’s params.${field}`;
  }
  return undefined;
}
