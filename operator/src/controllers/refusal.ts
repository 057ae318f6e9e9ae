import { httpStatusOf, kubeStatusReason, refusalMessage } from '@aiplane/lib';

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
