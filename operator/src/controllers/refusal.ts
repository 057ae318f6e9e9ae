import { httpStatusOf, kubeStatusReason, refusalMessage } from '@aiplane/lib';

/**
 * The apiserver refused the request (403 Forbidden, 422 Invalid, 400 BadRequest): retrying it
 * as it is cannot succeed, so a controller reports it in a condition instead.
 */
export function isRefusal(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status === 403 || status === 422 || status === 400;
}

/**
 * A refusal by the apiserver for a condition message: its HTTP status (or `no answer`), the
 * Status reason and the apiserver's own words (bounded), e.g. `HTTP 403 (Forbidden): …`.
 */
export function refusalText(err: unknown): string {
  const status = httpStatusOf(err);
  const reason = kubeStatusReason(err);
  const words = refusalMessage(err, 300);
  return `${status ? `HTTP ${status}` : 'no answer'}${reason ? ` (${reason})` : ''}${words === undefined ? '' : `: ${words}`}`;
}
