import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import {
  GROUP,
  MCP_SERVER_KIND,
  MCP_SERVER_PLURAL,
  MCP_WORKLOAD_LABELS,
  VERSION,
  workloadResolver,
  type McpServer,
} from '@aiplane/crds';
import { ResilientInformer } from '@aiplane/lib';
import type { OperatorDeps } from '../../operator.js';
import {
  Controller,
  labelSelector,
  OwnWrites,
  ownerKeys,
  StatusMemory,
} from '../../runtime/index.js';
import { childFacts, deploymentFacts, factsChanged } from './child-facts.js';
import type { McpServerControllerDeps } from './deps.js';
import { sdkHandshake } from './handshake.js';
import { reconcileMcpServer } from './reconcile.js';

/** The Deployments and Services of every managed server, and nothing else. */
const CHILDREN = labelSelector(MCP_WORKLOAD_LABELS);

/** The McpServer controller: managed servers' Deployment and Service, and their readiness. */
export function mcpServerController(deps: OperatorDeps): Controller<McpServer> {
  const { kc, config, logger, registry, events } = deps;
  const m = config.mcp;
  // The reconcile reads a child's metadata (the applied hash) and a Deployment's status, never
  // a spec: the cache keeps none (ensure() applies from the server, not from the cache).
  const informer = <T extends V1Deployment | V1Service>(path: string, resource: string) =>
    new ResilientInformer<T>({
      kc,
      path,
      resource,
      labelSelector: CHILDREN,
      logger,
      slim: (child) => {
        delete child.spec;
      },
    });
  const deployments = informer<V1Deployment>('/apis/apps/v1/deployments', 'deployments');
  const services = informer<V1Service>('/api/v1/services', 'services');
  const statusMemory = new StatusMemory();
  const applied = { deployments: new OwnWrites(), services: new OwnWrites() };
  const d: McpServerControllerDeps = {
    kc,
    statusMemory,
    logger,
    events,
    now: () => new Date(),
    handshake: sdkHandshake({ timeoutMs: m.handshakeTimeoutMs }),
    resolveWorkload: workloadResolver(m.workloadHost),
    timing: { recheckMs: m.recheckMs, minBackoffMs: 2_000, maxBackoffMs: 60_000 },
    handshakes: new Map(),
    children: {
      deployment: (namespace, name) => deployments.get(`${namespace}/${name}`),
      service: (namespace, name) => services.get(`${namespace}/${name}`),
      applied,
    },
  };
  const toKeys = ownerKeys({ group: GROUP, kind: MCP_SERVER_KIND, namespaced: true });
  return new Controller<McpServer>({
    name: 'mcpserver',
    primary: new ResilientInformer<McpServer>({
      kc,
      path: `/apis/${GROUP}/${VERSION}/${MCP_SERVER_PLURAL}`,
      resource: MCP_SERVER_PLURAL,
      logger,
    }),
    watches: [
      {
        informer: deployments,
        toKeys,
        changed: factsChanged(deploymentFacts),
        ownWrites: applied.deployments,
      },
      {
        informer: services,
        toKeys,
        changed: factsChanged(childFacts),
        ownWrites: applied.services,
      },
    ],
    statusMemory,
    reconcile: (_key, ctx) => reconcileMcpServer(d, ctx),
    concurrency: 8,
    registry,
    logger,
  });
}
