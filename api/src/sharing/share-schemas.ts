import { type Static, Type } from '@sinclair/typebox';
import { ROLES, TARGET_TYPES } from './roles.js';
import type { Share } from './share-store.js';

/** A role: viewer (use, read), editor (also change), owner (full control, the share panel). */
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));
const TargetTypeSchema = Type.Union(TARGET_TYPES.map((t) => Type.Literal(t)));

/** The body of a share panel's POST (files, folders, agents alike). */
export const ShareBody = Type.Object(
  {
    target_type: TargetTypeSchema,
    /** A user's id, or an organization group's id, in the identity provider. */
    target_id: Type.String({ format: 'uuid' }),
    role: RoleSchema,
  },
  { additionalProperties: false, title: 'Share' },
);
export type ShareInput = Static<typeof ShareBody>;

export const ShareSchema = Type.Object(
  {
    target_type: TargetTypeSchema,
    target_id: Type.String(),
    role: RoleSchema,
    created_by: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ShareRecord' },
);
export const ShareListSchema = Type.Object(
  { shares: Type.Array(ShareSchema), count: Type.Integer() },
  { title: 'ShareList' },
);

export function shareView(s: Share): Static<typeof ShareSchema> {
  return {
    target_type: s.target_type,
    target_id: s.target_id,
    role: s.role,
    created_by: s.created_by,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
