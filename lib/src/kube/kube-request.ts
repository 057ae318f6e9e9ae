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
