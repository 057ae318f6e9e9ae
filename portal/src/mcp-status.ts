import type { McpServer } from './types';

export type StatusKind = 'ready' | 'notReady' | 'notReported' | 'unknown';

/**
 * A server's status in the spec's words (tenants-and-mcp.md, MCP Server response): a remote
 * server never has one (`Not reported`); a managed server on which the cluster has not reported
 * yet has none either (`Status unknown`).
 */
export function statusKind(s: Pick<McpServer, 'runtime' | 'status'>): StatusKind {
  if (s.status === null) return s.runtime === 'remote' ? 'notReported' : 'unknown';
  return s.status.ready ? 'ready' : 'notReady';
}

/** The string key of each kind (English: Ready, Not ready, Not reported, Status unknown). */
export const STATUS_LABEL = {
  ready: 'mcp.status.ready',
  notReady: 'mcp.status.notReady',
  notReported: 'mcp.status.notReported',
  unknown: 'mcp.status.unknown',
} as const satisfies Record<StatusKind, string>;
