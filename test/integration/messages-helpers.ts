import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { call, ORG_SCOPE, tokenFor } from './api-helpers.js';
import { rememberSecret } from './secrets.js';

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

/** A platform API key of the dev user `member` (organization-scoped), remembered as a secret. */
export async function memberApiKey(apiUrl: string, name: string): Promise<string> {
  const key = await call(`${apiUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor('member', ORG_SCOPE)}` },
    body: { name },
  });
  assert.equal(key.status, 201, key.text);
  const value = (key.json() as { key: string }).key;
  rememberSecret(value);
  return value;
}
