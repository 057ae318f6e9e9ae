import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'method' | 'outcome'>;
  upstreamSeconds: Histogram<'method'>;
  refusals: Counter<'code'>;
}

export function gatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'aiplane_gateway_requests_total',
      help: 'Gateway requests by HTTP method and outcome (proxied, refused, failed).',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    }),
    upstreamSeconds: new Histogram({
      name: 'aiplane_gateway_upstream_seconds',
      help: 'Time until the upstream MCP server answered with headers.',
      labelNames: ['method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    refusals: new Counter({
      name: 'aiplane_gateway_refusals_total',
      help: 'Requests the gateway answered itself, by platform code (or unknown_tool).',
      labelNames: ['code'],
      registers: [registry],
    }),
  };
}
