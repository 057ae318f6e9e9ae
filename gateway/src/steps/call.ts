import type { Request, Response } from 'express';
import {
  firstId,
  headerMismatch,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  messagesOf,
  parseError,
  type JsonRpcId,
  type JsonRpcMessage,
} from '../json-rpc.js';
import { standardHeaderMismatch } from '../standard-headers.js';

/** What the gateway reads of one request to `/servers/{id}/mcp` before deciding anything. */
export interface McpCall {
  method: string;
  serverId: string;
  /** The POST body as JSON (undefined: not a POST, or not JSON the gateway can read). */
  parsed: unknown;
  /** Its JSON-RPC messages: one, or a (2025-03-26) batch. */
  messages: JsonRpcMessage[] | undefined;
  /** The first request id, which every refusal of the whole request answers. */
  requestId: JsonRpcId;
}

const parsedBodies = new WeakMap<Buffer, unknown>();

/**
 * A body as JSON, when it is UTF-8 without a byte-order mark that parses and nests at most
 * MAX_JSON_DEPTH levels; else undefined.
 */
export function jsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return undefined;
  // Admission and the proxy both read the body: it is parsed once.
  if (parsedBodies.has(body)) return parsedBodies.get(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body));
    // Deeper than any JSON-RPC request: unreadable, like bytes that are not JSON.
    if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) parsed = undefined;
  } catch {
    parsed = undefined;
  }
  parsedBodies.set(body, parsed);
  return parsed;
}

/** The request's first JSON-RPC id, kept for refusals made after the handler threw. */
export function setRequestRpcId(res: Response, id: JsonRpcId): void {
  (res.locals as { rpcId?: JsonRpcId }).rpcId = id;
}

/** The id {@link readCall} found in the request (null when it read none). */
export function requestRpcId(res: Response): JsonRpcId {
  return (res.locals as { rpcId?: JsonRpcId }).rpcId ?? null;
}

/**
 * Step 1: read the request. Read first, so that every refusal answers the request's id (the
 * error handler finds it in res.locals).
 */
export function readCall(req: Request, res: Response): McpCall {
  const method = req.method;
  const parsed = method === 'POST' ? jsonBody(req.body) : undefined;
  const messages = messagesOf(parsed);
  const requestId = firstId(messages);
  setRequestRpcId(res, requestId);
  return { method, serverId: String(req.params.server_id ?? ''), parsed, messages, requestId };
}

/** A refusal answered here as HTTP 400 with a JSON-RPC body; `metric` names it in the refusal count. */
export interface BodyRefusal {
  metric: 'parse_error' | 'header_mismatch';
  body: string;
}

/**
 * Step 3: a POST body must be JSON-RPC the gateway itself can read: what it cannot check (a
 * BOM, a foreign charset, a batch with a non-object) is refused, never forwarded. Revision
 * 2026-07-28: an upstream may route by Mcp-Method / Mcp-Name; they must name what the gateway
 * checks in the body. Answers the body to forward (the gateway's own serialisation of what it
 * checked), or the refusal.
 */
export function checkBody(
  call: McpCall,
  header: (name: string) => string | undefined,
): { forward: string | undefined } | { refusal: BodyRefusal } {
  if (call.method !== 'POST') return { forward: undefined };
  if (!call.messages) return { refusal: { metric: 'parse_error', body: parseError() } };
  const mismatch = standardHeaderMismatch(call.messages, Array.isArray(call.parsed), header);
  if (mismatch !== undefined) {
    return {
      refusal: { metric: 'header_mismatch', body: headerMismatch(call.requestId, mismatch) },
    };
  }
  return { forward: JSON.stringify(call.parsed) };
}
