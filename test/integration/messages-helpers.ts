import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';

/**
 * The vendor's own SDK as a vendor client would use it, pointed at the platform's
 * `/anthropic` mount in one organization; no SDK retries (only the platform's own).
 */
export function vendorClient(
  apiUrl: string,
  organizationId: string,
  opts: { apiKey?: string; authToken?: string } = {},
): Anthropic {
  return new Anthropic({
    baseURL: `${apiUrl}/anthropic`,
    apiKey: opts.apiKey ?? null,
    authToken: opts.authToken ?? null,
    maxRetries: 0,
    defaultHeaders: { 'x-aiplane-organization': organizationId },
  });
}

/** The vendor error a promise rejects with (fails when it resolves or throws anything else). */
export async function vendorError(
  p: Promise<unknown>,
): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof Anthropic.APIError) return err;
    throw err;
  }
  throw new Error('no error');
}

/**
 * Adds a chat model `echo` of the organization to the catalogue as `who` (which must answer
 * 201): the OpenAI-compatible test backend at `baseUrl`, its `org/echo-7b`, with its key.
 */
export async function addEchoModel(
  who: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>,
  baseUrl: string,
  apiKey: string,
): Promise<void> {
  const model = await who('POST', '/v1/models', {
    name: 'echo',
    mode: 'chat',
    base_url: baseUrl,
    backend_model: 'org/echo-7b',
    api_key: apiKey,
  });
  assert.equal(model.status, 201, model.text);
}
