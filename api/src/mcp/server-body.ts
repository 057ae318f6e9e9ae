import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { McpRuntime } from '@aiplane/crds';
import { ApiError, type FieldError, ValidationFailed } from '@aiplane/lib/errors';
import { Nullable, validator } from '@aiplane/lib/service';

/**
 * Request bodies of `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{id}` (spec: MCP Server
 * field tables; limits beyond the spec's are in docs/adr/0008-mcp-servers.md). Ranges,
 * patterns and unknown fields answer 422; the runtime-shape rule of an update answers 400
 * `mcp_server_runtime_mismatch`. Image and address rules are checked by the route (400).
 */

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A Kubernetes resource quantity without a sign (`500m`, `1.5`, `256Mi`, `1e3`). */
export const QUANTITY =
  '^(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?$';
export const MAX_ENV_VARIABLES = 100;
export const MAX_ENV_VALUE = 32768;

export const MANAGED_FIELDS = [
  'image',
  'port',
  'path',
  'arguments',
  'env',
  'resources',
  'security',
] as const;
export const REMOTE_FIELDS = ['address'] as const;

const fieldsOf = (runtime: McpRuntime): readonly string[] =>
  runtime === 'managed' ? MANAGED_FIELDS : REMOTE_FIELDS;
const other = (runtime: McpRuntime): McpRuntime => (runtime === 'managed' ? 'remote' : 'managed');

const quantity = () => Type.Optional(Nullable(Type.String({ maxLength: 64, pattern: QUANTITY })));
const userId = () => Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2147483647 })));

const common = {
  display_name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  tool_allowlist: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256 }),
  ),
};
const managed = {
  image: Type.String({ minLength: 1, maxLength: 512 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: '^/' })),
  arguments: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64 })),
  env: Type.Optional(
    Nullable(
      Type.Record(Type.String(), Type.String({ maxLength: MAX_ENV_VALUE }), {
        maxProperties: MAX_ENV_VARIABLES,
      }),
    ),
  ),
  resources: Type.Optional(
    Type.Object(
      {
        cpu_request: quantity(),
        memory_request: quantity(),
        cpu_limit: quantity(),
        memory_limit: quantity(),
      },
      { additionalProperties: false },
    ),
  ),
  security: Type.Optional(
    Type.Object(
      {
        run_as_non_root: Type.Optional(Nullable(Type.Boolean())),
        run_as_user: userId(),
        run_as_group: userId(),
        read_only_root_filesystem: Type.Optional(Nullable(Type.Boolean())),
      },
      { additionalProperties: false },
    ),
  ),
};
const remote = { address: Type.String({ minLength: 1, maxLength: 2048 }) };
const NAME = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
});

const CreateManaged = Type.Object(
  { runtime: Type.Literal('managed'), name: NAME, ...common, ...managed },
  { additionalProperties: false, title: 'CreateManagedMcpServer' },
);
const CreateRemote = Type.Object(
  { runtime: Type.Literal('remote'), name: NAME, ...common, ...remote },
  { additionalProperties: false, title: 'CreateRemoteMcpServer' },
);
const partial = <P extends Record<string, TSchema>>(props: P, title: string) =>
  Type.Partial(Type.Object(props), { additionalProperties: false, title });
const UpdateManaged = partial(
  { runtime: Type.Literal('managed'), ...common, ...managed },
  'UpdateManagedMcpServer',
);
const UpdateRemote = partial(
  { runtime: Type.Literal('remote'), ...common, ...remote },
  'UpdateRemoteMcpServer',
);

/** The create body as documented: one shape per runtime (parseCreateServer checks it). */
export const CreateServerSchema = Type.Union([CreateManaged, CreateRemote], {
  title: 'CreateMcpServer',
});
/**
 * The update body as documented: the stored server's runtime picks the shape, every field
 * optional (parseUpdateServer checks it).
 */
export const UpdateServerSchema = Type.Union([UpdateManaged, UpdateRemote], {
  title: 'UpdateMcpServer',
});
const RuntimeOnly = Type.Object({
  runtime: Type.Union([Type.Literal('managed'), Type.Literal('remote')]),
});

export type CreateManagedBody = Static<typeof CreateManaged>;
export type CreateRemoteBody = Static<typeof CreateRemote>;
export type CreateServerBody = CreateManagedBody | CreateRemoteBody;
export type UpdateManagedBody = Static<typeof UpdateManaged>;
export type UpdateRemoteBody = Static<typeof UpdateRemote>;
export type UpdateServerBody =
  ({ runtime: 'managed' } & UpdateManagedBody) | ({ runtime: 'remote' } & UpdateRemoteBody);

const parse = {
  runtime: validator(RuntimeOnly),
  createManaged: validator(CreateManaged),
  createRemote: validator(CreateRemote),
  updateManaged: validator(UpdateManaged),
  updateRemote: validator(UpdateRemote),
};

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/** Re-words "unknown field" for a field of the other runtime, and adds env name errors. */
function refine(runtime: McpRuntime, err: ValidationFailed): ValidationFailed {
  const foreign = new Set(fieldsOf(other(runtime)));
  return new ValidationFailed(
    err.fields.map((f) =>
      f.message === 'unknown field' && foreign.has(f.field)
        ? { field: f.field, message: `belongs to the ${other(runtime)} runtime, not ${runtime}` }
        : f,
    ),
  );
}

function envNameErrors(body: Record<string, unknown>): FieldError[] {
  const env = body.env;
  if (!isObject(env)) return [];
  return Object.keys(env)
    .filter((name) => !ENV_NAME.test(name))
    .map((name) => ({ field: `env.${name}`, message: `name must match ${ENV_NAME.source}` }));
}

function run<T>(runtime: McpRuntime, body: Record<string, unknown>, check: (b: unknown) => T): T {
  let parsed: T;
  try {
    parsed = check(body);
  } catch (err) {
    if (err instanceof ValidationFailed) {
      const refined = refine(runtime, err);
      throw new ValidationFailed([...refined.fields, ...envNameErrors(body)]);
    }
    throw err;
  }
  const names = envNameErrors(body);
  if (names.length > 0) throw new ValidationFailed(names);
  return parsed;
}

/** A create body: its `runtime` picks the shape; everything else is checked against it. */
export function parseCreateServer(body: unknown): CreateServerBody {
  if (!isObject(body)) throw new ValidationFailed([{ field: '', message: 'must be an object' }]);
  const { runtime } = parse.runtime(body);
  return runtime === 'managed'
    ? run(runtime, body, parse.createManaged)
    : run(runtime, body, parse.createRemote);
}

/**
 * An update body for a server of `stored` runtime. `name` answers 422 (a rename is a new
 * `display_name`); a `runtime` other than the stored one, or any field of the other runtime,
 * answers 400 `mcp_server_runtime_mismatch`.
 */
export function parseUpdateServer(body: unknown, stored: McpRuntime): UpdateServerBody {
  if (!isObject(body)) throw new ValidationFailed([{ field: '', message: 'must be an object' }]);
  if ('name' in body) {
    throw new ValidationFailed([
      { field: 'name', message: 'cannot be changed after creation; change display_name instead' },
    ]);
  }
  // The other runtime's shape: `runtime` names it, or every runtime-specific field sent is
  // one of its fields. A body mixing both runtimes' fields is a plain 422 (the other
  // runtime's fields are unknown fields here), as is an unknown runtime.
  const foreign = fieldsOf(other(stored)).filter((f) => f in body);
  const own = fieldsOf(stored).filter((f) => f in body);
  const namesOther = body.runtime === other(stored);
  if (namesOther || (foreign.length > 0 && own.length === 0)) {
    const what = namesOther
      ? `runtime ${other(stored)}`
      : `${other(stored)} field${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')}`;
    throw new ApiError(
      'mcp_server_runtime_mismatch',
      `this server's runtime is ${stored}; the update uses ${what}`,
    );
  }
  const parsed =
    stored === 'managed'
      ? run(stored, body, parse.updateManaged)
      : run(stored, body, parse.updateRemote);
  return { ...parsed, runtime: stored };
}
