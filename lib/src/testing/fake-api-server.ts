import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export type FakeHandler = (req: FakeRequest, res: ServerResponse) => void | Promise<void>;

export interface FakeApiServer {
  kc: KubeConfig;
  requests: FakeRequest[];
  close(): Promise<void>;
}

/** Answers JSON with a status code. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A `Status` body as the apiserver writes it. */
export function kubeStatus(code: number, reason: string, message = reason): unknown {
  return { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message };
}

/**
 * A plain-HTTP stand-in for the apiserver, for unit tests of code that talks through
 * client-node. The returned KubeConfig points at it (client-node 2.x refuses http:// unless
 * `skipTLSVerify` is set).
 */
export async function startFakeApiServer(handler: FakeHandler): Promise<FakeApiServer> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      Promise.resolve(handler(request, res)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, kubeStatus(500, 'InternalError', String(err)));
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'fake', token: 'fake-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
    currentContext: 'fake',
  });
  return {
    kc,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
