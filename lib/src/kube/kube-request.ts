import {
  ApiException,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  ServerConfiguration,
} from '@kubernetes/client-node';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/apis/aiplane.io/v1alpha1/tenantlifecycles`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to `application/json` when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
}

const transport = new IsomorphicFetchHttpLibrary();

/**
 * A raw apiserver request through client-node's own transport and authentication (TLS
 * dispatcher, bearer token, exec plugins), for paths no generated client covers generically.
 * Non-2xx answers throw client-node's `ApiException` (numeric `code`, `body` the parsed JSON
 * when possible), like the generated clients do.
 */
export async function kubeRequest<T>(kc: KubeConfig, request: KubeRequest): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const context = new ServerConfiguration(cluster.server, {}).makeRequestContext(
    request.path,
    HttpMethod[request.method],
  );
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) context.setQueryParam(name, String(value));
  }
  context.setHeaderParam('Accept', 'application/json');
  if (request.body !== undefined) {
    context.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
    context.setBody(JSON.stringify(request.body));
  }
  if (request.signal) context.setSignal(request.signal);
  await kc.applySecurityAuthentication(context);
  const response = await transport.send(context).toPromise();
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    // keep the raw text
  }
  if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
    throw new ApiException(
      response.httpStatusCode,
      `${request.method} ${request.path} failed`,
      parsed,
      response.headers,
    );
  }
  return parsed as T;
}

/** One page of a LIST as the apiserver answers it. */
interface ListPage<T> {
  apiVersion?: string;
  kind?: string;
  items?: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

export interface ListAllRequest {
  /** Collection path, e.g. `/apis/aiplane.io/v1alpha1/mcpservers`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per page (`limit`); default 500. */
  pageSize?: number;
  signal?: AbortSignal;
  /** Abort a page that takes longer than this (each page gets its own budget). */
  pageTimeoutMs?: number;
}

/**
 * Every item of a collection, following `continue` tokens (one consistent snapshot). Items
 * carry their `apiVersion` and `kind` (a LIST leaves them out of each item); `resourceVersion`
 * is the first page's, where a watch may start.
 */
export async function listAll<T extends { apiVersion?: string; kind?: string }>(
  kc: KubeConfig,
  request: ListAllRequest,
): Promise<{ items: T[]; resourceVersion: string | undefined }> {
  const { path, labelSelector, fieldSelector, pageSize = 500, signal, pageTimeoutMs } = request;
  const pageSignal = () => {
    const signals = [signal, pageTimeoutMs ? AbortSignal.timeout(pageTimeoutMs) : undefined];
    const given = signals.filter((s): s is AbortSignal => s !== undefined);
    return given.length > 0 ? AbortSignal.any(given) : undefined;
  };
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let token: string | undefined;
  do {
    const page = await kubeRequest<ListPage<T>>(kc, {
      method: 'GET',
      path,
      query: { labelSelector, fieldSelector, limit: pageSize, continue: token },
      signal: pageSignal(),
    });
    const kind = page.kind?.replace(/List$/, '');
    for (const item of page.items ?? []) items.push({ apiVersion: page.apiVersion, kind, ...item });
    resourceVersion ??= page.metadata?.resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token);
  return { items, resourceVersion };
}
