/**
 * Status conditions, shaped like `metav1.Condition`. `setCondition` is the one way conditions
 * change, so `lastTransitionTime` moves only when a status flips.
 */

import type { Condition, ConditionStatus } from '@aiplane/crds';
import { formatKubeTime } from '@aiplane/lib';

/** The one definition of a condition is `@aiplane/crds`' (its CRD schema); re-exported here. */
export type { Condition, ConditionStatus };

/** What a controller says about a condition; `setCondition` adds the time and generation. */
export type ConditionInput = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/** The most a condition message holds (UTF-8 bytes); a peer's words can be longer. */
export const MAX_CONDITION_MESSAGE_BYTES = 1024;

const ELLIPSIS = '…';

/**
 * `message` cut to at most `maxBytes` UTF-8 bytes on a character (code point) boundary, ending
 * with an ellipsis when cut.
 */
export function capMessage(message: string, maxBytes = MAX_CONDITION_MESSAGE_BYTES): string {
  if (Buffer.byteLength(message, 'utf8') <= maxBytes) return message;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS, 'utf8');
  let out = '';
  let bytes = 0;
  for (const ch of message) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > budget) break;
    out += ch;
    bytes += size;
  }
  return out + ELLIPSIS;
}

/**
 * Returns a new array with `input` applied: an existing condition of the same type keeps its
 * position and its `lastTransitionTime` unless its status changes; a new type is appended.
 * Every written condition carries `observedGeneration` (when given), and a message of at most
 * {@link MAX_CONDITION_MESSAGE_BYTES}. The input is not mutated.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  const current = conditions ?? [];
  const existing = current.find((c) => c.type === input.type);
  const lastTransitionTime =
    existing && existing.status === input.status
      ? existing.lastTransitionTime
      : formatKubeTime(now);
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: capMessage(input.message),
    lastTransitionTime,
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  if (!existing) return [...current.map((c) => ({ ...c })), next];
  return current.map((c) => (c.type === input.type ? next : { ...c }));
}

/** The condition of `type`, if present. */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of `type` is present with status `True`. */
export function isConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Same conditions, compared per type (order is not meaningful): every field counts, including
 * `lastTransitionTime` and `observedGeneration`.
 */
export function conditionsEqual(
  a: readonly Condition[] | undefined,
  b: readonly Condition[] | undefined,
): boolean {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length !== right.length) return false;
  return left.every((c) => {
    const other = right.find((o) => o.type === c.type);
    return other !== undefined && statusEqual(c, other);
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Deep equality with JSON merge-patch semantics: a key that is `undefined` or `null` is the same
 * as a missing key (neither can be stored by a merge patch), key order is ignored, array order
 * counts.
 */
export function statusEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined) return b === null || b === undefined;
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) && a.length === b.length && a.every((item, i) => statusEqual(item, b[i]))
    );
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      if (!statusEqual(a[key], b[key])) return false;
    }
    return true;
  }
  // Anything else that is an object (e.g. a Date) compares by its JSON form.
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}
