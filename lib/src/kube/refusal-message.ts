/**
 * The apiserver's own explanation of a refusal: the `message` of the `Status` body that
 * `kubeRequest` (an `ApiException` with a parsed body) carries, cut to `maxLength` characters
 * (500 unless said). It names resources, verbs and limits, never a value of ours. `undefined`
 * when the error has no such message (no answer, a body that is not an object); callers say
 * what stands instead.
 */
export function refusalMessage(err: unknown, maxLength = 500): string | undefined {
  const body = (err as { body?: { message?: unknown } } | null | undefined)?.body;
  return typeof body?.message === 'string' ? body.message.slice(0, maxLength) : undefined;
}
