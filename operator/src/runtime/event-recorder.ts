import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';

export interface EventRecorder {
  /** Records a Kubernetes Event about `obj`; never throws (a failed event is only logged). */
  record(obj: KubernetesObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/**
 * core/v1 Events, where `kubectl describe` finds them: in the object's namespace, or in
 * `default` for cluster-scoped objects. Messages must not carry secrets.
 */
export function kubeEventRecorder(
  kc: KubeConfig,
  component: string,
  instance: string,
  logger: Logger,
): EventRecorder {
  const core = kc.makeApiClient(CoreV1Api);
  return {
    record(obj, type, reason, message) {
      const namespace = obj.metadata?.namespace ?? 'default';
      const now = new Date();
      core
        .createNamespacedEvent({
          namespace,
          body: {
            metadata: {
              name: `${obj.metadata?.name ?? 'object'}.${randomBytes(8).toString('hex')}`,
              namespace,
            },
            involvedObject: {
              apiVersion: obj.apiVersion,
              kind: obj.kind,
              name: obj.metadata?.name,
              namespace: obj.metadata?.namespace,
              uid: obj.metadata?.uid,
            },
            type,
            reason,
            message: message.slice(0, 1024),
            count: 1,
            firstTimestamp: now,
            lastTimestamp: now,
            source: { component },
            reportingComponent: component,
            reportingInstance: instance,
          },
        })
        .catch((err: unknown) => logger.warn({ err, reason }, 'could not record an event'));
    },
  };
}
