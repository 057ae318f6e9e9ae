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
