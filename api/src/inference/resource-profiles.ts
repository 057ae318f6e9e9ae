import { type Static, Type } from '@sinclair/typebox';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable, validator } from '@aiplane/lib/service';
import type { ResourceProfileStore, StoredProfile } from './resource-profile-store.js';

/** A Kubernetes label key (optional DNS-subdomain prefix, then a name of up to 63 characters). */
const LABEL_KEY =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
const LabelValue = Type.String({
  maxLength: 63,
  pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$',
});

/** Definition fields of a resource profile (docs/adr/0023): what a create or a replace sends. */
const Definition = {
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  resources: Type.Object(
    {
      // Kubernetes quantities, in the forms a person writes: "500m", "2", "1.5"; "512Mi", "64Gi".
      cpu: Type.String({
        pattern: '^([1-9][0-9]{0,6}m|[1-9][0-9]{0,3}(\\.[0-9]{1,3})?|0\\.[0-9]{1,3})$',
      }),
      memory: Type.String({ pattern: '^([1-9][0-9]{0,14}|[1-9][0-9]{0,5}(Ki|Mi|Gi|Ti|k|M|G|T))$' }),
      gpu: Type.Optional(
        Type.Object(
          {
            count: Type.Integer({ minimum: 1, maximum: 16 }),
            // The extended resource name of the device plugin.
            resource: Type.Optional(
              Type.String({
                maxLength: 253,
                pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$',
              }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  node_selector: Type.Optional(
    // additionalProperties: a key that misses the pattern is refused, not let through.
    Type.Record(Type.String({ pattern: LABEL_KEY, maxLength: 316 }), LabelValue, {
      maxProperties: 20,
      additionalProperties: false,
    }),
  ),
  tolerations: Type.Optional(
    Type.Array(
      Type.Object(
        {
          key: Type.Optional(Type.String({ pattern: LABEL_KEY, maxLength: 316 })),
          operator: Type.Optional(Type.Union([Type.Literal('Equal'), Type.Literal('Exists')])),
          value: Type.Optional(LabelValue),
          effect: Type.Optional(
            Type.Union([
              Type.Literal('NoSchedule'),
              Type.Literal('PreferNoSchedule'),
              Type.Literal('NoExecute'),
            ]),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
  ),
  enabled: Type.Optional(Type.Boolean()),
};

export const PROFILE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

export const ResourceProfileCreate = Type.Object(
  { name: Type.String({ pattern: PROFILE_NAME_PATTERN }), ...Definition },
  { additionalProperties: false, title: 'CreateResourceProfile' },
);
export const ResourceProfileReplace = Type.Object(Definition, {
  additionalProperties: false,
  title: 'ReplaceResourceProfile',
});
type Create = Static<typeof ResourceProfileCreate>;
type Replace = Static<typeof ResourceProfileReplace>;
const parseCreate = validator(ResourceProfileCreate);
const parseReplace = validator(ResourceProfileReplace);

export const DEFAULT_GPU_RESOURCE = 'nvidia.com/gpu';

/** What a profile is, as the API answers it. */
export const ResourceProfileSchema = Type.Object(
  {
    name: Type.String(),
    display_name: Type.String(),
    description: Type.String(),
    resources: Type.Object({
      cpu: Type.String(),
      memory: Type.String(),
      gpu: Nullable(Type.Object({ count: Type.Integer(), resource: Type.String() })),
    }),
    node_selector: Type.Record(Type.String(), Type.String()),
    tolerations: Type.Array(
      Type.Object({
        key: Type.Optional(Type.String()),
        operator: Type.Union([Type.Literal('Equal'), Type.Literal('Exists')]),
        value: Type.Optional(Type.String()),
        effect: Type.Optional(Type.String()),
      }),
    ),
    enabled: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ResourceProfile' },
);
export type ResourceProfile = Static<typeof ResourceProfileSchema>;

export type ProfileDefinition = Omit<
  ResourceProfile,
  'name' | 'enabled' | 'created_at' | 'updated_at'
>;

/** The stored definition of a request body, defaults filled in; 422 for what breaks a rule. */
export function definitionOf(name: string, body: Replace): ProfileDefinition {
  const tolerations = (body.tolerations ?? []).map((t) => ({
    ...t,
    operator: t.operator ?? 'Equal',
  }));
  const errors = tolerations.flatMap((t, i) => {
    if (t.operator === 'Exists' && t.value !== undefined) {
      return [
        { field: `tolerations[${i}].value`, message: 'must be absent when operator is Exists' },
      ];
    }
    // Exists without a key tolerates every taint (control-plane and NoExecute ones included).
    if (t.operator === 'Exists' && t.key === undefined) {
      return [
        {
          field: `tolerations[${i}].key`,
          message: 'is required: a toleration without a key tolerates every taint',
        },
      ];
    }
    if (t.operator === 'Equal' && t.key === undefined) {
      return [{ field: `tolerations[${i}].key`, message: 'is required when operator is Equal' }];
    }
    return [];
  });
  if (errors.length > 0) throw new ValidationFailed(errors);
  const gpu = body.resources.gpu;
  return {
    display_name: body.display_name ?? name,
    description: body.description ?? '',
    resources: {
      cpu: body.resources.cpu,
      memory: body.resources.memory,
      gpu: gpu ? { count: gpu.count, resource: gpu.resource ?? DEFAULT_GPU_RESOURCE } : null,
    },
    node_selector: body.node_selector ?? {},
    tolerations,
  };
}

/**
 * What a model deployment on this profile gets in its pod spec: requests equal to limits (a
 * model server's memory is not elastic; GPUs cannot be overcommitted), the node selector and
 * the tolerations.
 */
export function podSchedulingOf(p: ProfileDefinition) {
  const quantities: Record<string, string> = { cpu: p.resources.cpu, memory: p.resources.memory };
  if (p.resources.gpu) quantities[p.resources.gpu.resource] = String(p.resources.gpu.count);
  return {
    resources: { requests: quantities, limits: quantities },
    nodeSelector: p.node_selector,
    tolerations: p.tolerations,
  };
}

const answer = (s: StoredProfile): ResourceProfile => ({
  name: s.name,
  ...s.profile,
  enabled: s.enabled,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at.toISOString(),
});

const notFound = (name: string) =>
  new ApiError('resource_profile_not_found', `no resource profile named ${name.slice(0, 63)}`);

/** Resource profiles of organizations (docs/adr/0023). */
export class ResourceProfiles {
  constructor(private readonly store: ResourceProfileStore) {}

  async list(organizationId: string, enabled?: boolean): Promise<ResourceProfile[]> {
    return (await this.store.list(organizationId, enabled)).map(answer);
  }

  async get(organizationId: string, name: string): Promise<ResourceProfile> {
    const found = await this.store.get(organizationId, name);
    if (!found) throw notFound(name);
    return answer(found);
  }

  async create(organizationId: string, body: unknown): Promise<ResourceProfile> {
    const input: Create = parseCreate(body);
    const { name, enabled, ...rest } = input;
    const created = await this.store.insert(
      organizationId,
      name,
      definitionOf(name, rest),
      enabled ?? false,
    );
    if (!created) {
      throw new ApiError('resource_profile_exists', `a resource profile named ${name} exists`);
    }
    return answer(created);
  }

  /** Replaces the definition; `enabled` changes only when sent. */
  async replace(organizationId: string, name: string, body: unknown): Promise<ResourceProfile> {
    const input = parseReplace(body);
    const { enabled, ...rest } = input;
    const updated = await this.store.update(organizationId, name, {
      profile: definitionOf(name, rest),
      enabled,
    });
    if (!updated) throw notFound(name);
    return answer(updated);
  }

  async setEnabled(
    organizationId: string,
    name: string,
    enabled: boolean,
  ): Promise<ResourceProfile> {
    const updated = await this.store.update(organizationId, name, { enabled });
    if (!updated) throw notFound(name);
    return answer(updated);
  }

  async remove(organizationId: string, name: string): Promise<void> {
    if (!(await this.store.remove(organizationId, name))) throw notFound(name);
  }
}
