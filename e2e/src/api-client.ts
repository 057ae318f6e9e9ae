import { secrets } from './redact.js';

/** Header a platform admin (or a member of several organizations) picks the organization with. */
export const ORGANIZATION_HEADER = 'X-Aiplane-Organization';

export interface Reply {
  status: number;
  text: string;
  json: <T>() => T;
}

/** A bearer token, and the organization the call acts in (when it acts in one). */
export interface Caller {
  token: string;
  organizationId?: string;
}

/** JSON calls of the aiplane API over its port-forward. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, caller: Caller, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${caller.token}`,
      accept: 'application/json',
    };
    if (caller.organizationId !== undefined) headers[ORGANIZATION_HEADER] = caller.organizationId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return {
      status: res.status,
      text,
      json: <T>() => JSON.parse(text) as T,
    };
  }
}

/** "POST /v1/x answered 500: <body>" with secrets hidden, for assertion messages. */
export function describeReply(method: string, path: string, r: Reply): string {
  return secrets.redact(`${method} ${path} answered ${r.status}: ${r.text.slice(0, 1500)}`);
}
