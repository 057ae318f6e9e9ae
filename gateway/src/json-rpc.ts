import { ErrorCode as RpcCode } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CODES, type ErrorCode } from '@aiplane/lib/errors';

/**
 * Codes the SDK does not name. The SDK's own Streamable HTTP server answers an unknown session
 * with -32001 (its `RequestTimeout` code), so the gateway does too; -32020 is revision
 * 2026-07-28's code for Mcp-Method / Mcp-Name headers that disagree with the body.
 */
const SESSION_NOT_FOUND = -32001;
const HEADER_MISMATCH = -32020;

export type JsonRpcId = string | number | null;

export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: JsonRpcId;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** The JSON-RPC messages of a POST body (one, or a 2025-03-26 batch); undefined if not JSON-RPC. */
export function messagesOf(body: unknown): JsonRpcMessage[] | undefined {
  const list = Array.isArray(body) ? (body as unknown[]) : [body];
  if (list.length === 0) return undefined;
  if (!list.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m)))
    return undefined;
  return list as JsonRpcMessage[];
}

/**
 * The most nesting of arrays and objects a request body may have (docs/adr/0042): JSON.parse
 * reads any depth, but serialising ten thousand levels overflows the stack.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether `value` nests arrays and objects deeper than `max` (walked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A JSON-RPC 2.0 error response, serialized: `data` only when given. */
export function rpcError(id: JsonRpcId, code: number, message: string, data?: unknown): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });
}

/** The spec's gateway refusal: JSON-RPC 2.0 with the platform code at `error.data.code`. */
export function platformError(id: JsonRpcId, code: ErrorCode, message: string): string {
  const entry = ERROR_CODES[code] as { jsonRpc?: number };
  return rpcError(id, entry.jsonRpc ?? RpcCode.ConnectionClosed, message, { code });
}

/**
 * The answer to a call of a tool that is not both allowed and offered: byte-identical whatever
 * the reason (spec: Errors, the allowlist exception), so the allowlist cannot be probed.
 */
export function unknownTool(id: JsonRpcId, name: string): string {
  return rpcError(id, RpcCode.InvalidParams, `Unknown tool: ${name}`);
}

/** A session id not issued to this user and server: like an ended session (HTTP 404). */
export function sessionNotFound(id: JsonRpcId): string {
  return rpcError(id, SESSION_NOT_FOUND, 'Session not found');
}

/** The first request id of a body, for refusals that answer the whole request. */
export function firstId(messages: JsonRpcMessage[] | undefined): JsonRpcId {
  const withId = messages?.find((m) => m.id !== undefined && m.method !== undefined);
  return withId?.id ?? null;
}

/** A POST body the gateway cannot read as JSON-RPC: refused, not forwarded. */
export function parseError(): string {
  return rpcError(null, RpcCode.ParseError, 'Parse error');
}

/** The other requests of a batch that carried a refused tool call: not forwarded. */
export function batchNotProcessed(id: JsonRpcId): string {
  return rpcError(id, RpcCode.InvalidRequest, 'Invalid Request: the batch calls an unknown tool');
}

/** Revision 2026-07-28: `Mcp-Method` / `Mcp-Name` disagree with the body (HTTP 400). */
export function headerMismatch(id: JsonRpcId, why: string): string {
  return rpcError(
    id,
    HEADER_MISMATCH,
    `Bad Request: the request headers and body disagree: ${why}`,
  );
}
