import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { formatKubeTime, kubeRequest } from '@aiplane/lib';
import { waitFor } from '@aiplane/hack';
import { kubeConfig } from './harness.js';

/**
 * The local environment has no scheduler and no kubelet: the ReplicaSet controller creates
 * Pods that never run. This plays the kubelet for one workload: it reports the Pods matching
 * `selector` as running and ready (status subresource), so the ReplicaSet and Deployment
 * controllers count them available, exactly as they would on a node.
 */
export async function markPodsReady(namespace: string, selector: string): Promise<V1Pod[]> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  let pods: V1Pod[] = [];
  await waitFor(`a pod for ${selector} in ${namespace}`, async () => {
    pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.filter(
      (p) => !p.metadata?.deletionTimestamp,
    );
    return pods.length > 0;
  });
  const now = formatKubeTime(new Date());
  for (const pod of pods) {
    const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: now });
    await kubeRequest(kubeConfig(), {
      method: 'PATCH',
      path: `/api/v1/namespaces/${namespace}/pods/${pod.metadata?.name ?? ''}/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          phase: 'Running',
          startTime: now,
          conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(condition),
          containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
            name: c.name,
            image: c.image,
            imageID: '',
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          })),
        },
      },
    });
  }
  return pods;
}
