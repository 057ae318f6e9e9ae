import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { availability, workloadRevision } from './plan.js';
import { APPLIED_HASH } from './steps.js';

/**
 * What the McpServer reconcile reads of any child: whether it carries what was last applied
 * (the applied hash), and which object it is (a re-created child is another one).
 */
export function childFacts(child: KubernetesObject): string {
  const m = child.metadata;
  return JSON.stringify([m?.uid, m?.annotations?.[APPLIED_HASH], m?.deletionTimestamp]);
}

/**
 * What it reads of the Deployment besides: its availability (planStatus, the handshake gate)
 * and its revision (what a remembered handshake was made against). The Deployment controller
 * rewrites the status several times per rollout (conditions' times, observed generation);
 * the updates that change none of this requeue nothing.
 */
export function deploymentFacts(d: V1Deployment): string {
  return `${childFacts(d)}${workloadRevision(d)}${JSON.stringify(availability(d))}`;
}

/** An update matters when the facts before and after it differ. */
export function factsChanged<T>(facts: (o: T) => string): (obj: T, old: T) => boolean {
  return (obj, old) => facts(obj) !== facts(old);
}
