import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * The messages API's metrics (docs/adr/0024): requests, time to first token, tokens in and
 * out, per model and organization. Labels carry catalogue names and organization ids, never
 * prompt or completion text.
 */
export interface InferenceMetrics {
  requests: Counter<'model' | 'organization' | 'stream' | 'outcome'>;
  timeToFirstToken: Histogram<'model' | 'organization'>;
  tokens: Counter<'model' | 'organization' | 'direction'>;
  retries: Counter<'model'>;
  agentToolCalls: Counter<'model' | 'organization' | 'outcome'>;
}

export function inferenceMetrics(registry: Registry): InferenceMetrics {
  return {
    requests: new Counter({
      name: 'aiplane_inference_requests_total',
      help: 'Messages API requests by catalogue model, organization, streaming and outcome (ok, client_error, backend_error, aborted).',
      labelNames: ['model', 'organization', 'stream', 'outcome'],
      registers: [registry],
    }),
    timeToFirstToken: new Histogram({
      name: 'aiplane_inference_time_to_first_token_seconds',
      help: 'From the request to the first generated content sent to the client.',
      labelNames: ['model', 'organization'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'aiplane_inference_tokens_total',
      help: 'Tokens the backends reported, by catalogue model, organization and direction (input, output).',
      labelNames: ['model', 'organization', 'direction'],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'aiplane_inference_backend_retries_total',
      help: 'Retried backend calls (connect error, 429, 502, 503, 504) by catalogue model.',
      labelNames: ['model'],
      registers: [registry],
    }),
    agentToolCalls: new Counter({
      name: 'aiplane_agent_tool_calls_total',
      help: 'MCP tool calls agents made through the gateway, by catalogue model, organization and outcome (ok, error).',
      labelNames: ['model', 'organization', 'outcome'],
      registers: [registry],
    }),
  };
}
