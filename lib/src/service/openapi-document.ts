import type { TSchema } from '@sinclair/typebox';
import { ORGANIZATION_HEADER } from '../auth/middleware.js';
import { ERROR_CODES, type ErrorCode } from '../errors/codes.js';
import { ErrorBody, ValidationErrorBody } from '../errors/schemas.js';
import type { DocumentedRoute, OperationSpec } from './operation.js';

type Json = Record<string, unknown>;

/** The parts of an OpenAPI 3.1 document this builder writes. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  tags: { name: string; description?: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, Json>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    parameters: Record<string, Json>;
  };
}

export interface DocumentOptions {
  title: string;
  version: string;
  description?: string;
  /** Tag descriptions; every tag an operation uses must be here. */
  tags: { name: string; description: string }[];
  /** The app's routes ({@link documentedRoutes}); each must be declared. */
  routes: DocumentedRoute[];
  /** Operations the app serves outside express routes (the WebSocket upgrade). */
  extra?: DocumentedRoute[];
}

/** The credentials every authenticated HTTP route accepts (spec: core-api.md, Authentication). */
export const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'A platform API key, `sk-svc-v1-…` (create one with `POST /v1/api-keys`).',
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A JWT of the identity provider, or a platform API key (`sk-svc-v1-…`) as the bearer token. When both headers are sent, X-Api-Key wins.',
  },
  WebSocketToken: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      'WebSocket upgrades only: a JWT or a platform API key in the `token` query parameter.',
  },
} as const;

/** The schemes an authenticated HTTP operation accepts: either one. */
const HTTP_SECURITY: Record<string, string[]>[] = [{ ApiKey: [] }, { Bearer: [] }];

const AUTHENTICATION_ERRORS: ErrorCode[] = [
  'authentication_required',
  'invalid_token',
  'invalid_api_key',
  'identity_provider_unavailable',
];
const ORGANIZATION_ERRORS: ErrorCode[] = [
  'organization_required',
  'organization_invalid',
  'organization_access_denied',
];

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Unavailable',
  504: 'Gateway timeout',
};

/** `/v1/agents/:config_id` → `/v1/agents/{config_id}`; other express path syntax is refused. */
export function openApiPath(expressPath: string): string {
  const path = expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  if (/[*?()[\]:]/.test(path) || /\{(?![A-Za-z_][A-Za-z0-9_]*\})/.test(path)) {
    throw new Error(`${expressPath}: only :name parameters can be documented`);
  }
  return path;
}

/** Named schemas: a schema (or a part of one) with a `title` is written once, then `$ref`'d. */
class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly seen = new Map<string, string>();

  /** The JSON Schema of `schema`, its titled parts replaced by references. */
  ref(schema: TSchema): Json {
    return this.hoist(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private hoist(node: Json): Json {
    const walked = this.walk(node) as Json;
    const title = walked.title;
    if (typeof title !== 'string') return walked;
    if (!/^[A-Za-z0-9._-]+$/.test(title)) throw new Error(`schema title "${title}" is no name`);
    const text = JSON.stringify(walked);
    const earlier = this.seen.get(title);
    if (earlier !== undefined && earlier !== text) {
      throw new Error(`two different schemas are titled ${title}`);
    }
    this.seen.set(title, text);
    this.schemas[title] = walked;
    return { $ref: `#/components/schemas/${title}` };
  }

  private walk(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (typeof value !== 'object' || value === null) return value;
    const out: Json = {};
    for (const [key, child] of Object.entries(value as Json)) {
      out[key] =
        // Keywords whose value is a map of names to schemas, or a schema, or a list of them.
        key === 'properties' || key === 'patternProperties' || key === '$defs'
          ? Object.fromEntries(
              Object.entries(child as Json).map(([k, v]) => [k, this.hoist(v as Json)]),
            )
          : SCHEMA_KEYWORDS.has(key) && typeof child === 'object' && child !== null
            ? Array.isArray(child)
              ? child.map((c) => this.hoist(c as Json))
              : this.hoist(child as Json)
            : child;
    }
    return out;
  }
}

const SCHEMA_KEYWORDS = new Set([
  'items',
  'prefixItems',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);

function errorCodesOf(route: DocumentedRoute, op: OperationSpec): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.authenticated) codes.push(...AUTHENTICATION_ERRORS);
  if (route.permissions.length > 0) codes.push('permission_denied');
  if (op.platformAdmin) codes.push(op.platformAdmin);
  if (op.organization) codes.push(...ORGANIZATION_ERRORS);
  if (op.body || op.serviceBody || op.binaryBody) {
    codes.push('request_too_large', 'unsupported_media_type');
  }
  codes.push(...(op.errors ?? []));
  return [...new Set(codes)];
}

function describe(route: DocumentedRoute, op: OperationSpec): string | undefined {
  const needs = [
    ...route.permissions.map((p) => `the \`${p}\` permission`),
    ...(op.platformAdmin ? ['the platform-admin role'] : []),
  ];
  const parts = [
    op.description,
    needs.length > 0 ? `Needs ${needs.join(' and ')}.` : undefined,
    op.organization
      ? 'Acts in the caller’s organization (the `X-Aiplane-Organization` header chooses one).'
      : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function operationObject(route: DocumentedRoute, op: OperationSpec, c: Components): Json {
  if (op.public && route.authenticated) {
    throw new Error(`${op.operationId}: a public operation is mounted behind authentication`);
  }
  if (!op.public && !route.authenticated) {
    throw new Error(`${op.operationId}: neither public nor behind an authenticated router`);
  }
  const parameters: Json[] = [];
  for (const m of route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = m[1] ?? '';
    const schema = op.params?.[name];
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: schema ? c.ref(schema) : { type: 'string' },
    });
  }
  const query = op.query as
    { properties?: Record<string, TSchema>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    const required = (query?.required ?? []).includes(name);
    const json = c.ref(schema);
    const { description, ...rest } = json;
    parameters.push({
      name,
      in: 'query',
      required,
      schema: rest,
      ...(typeof description === 'string' ? { description } : {}),
    });
  }
  if (op.organization) parameters.push({ $ref: '#/components/parameters/Organization' });
  for (const [name, h] of Object.entries(op.headers ?? {})) {
    parameters.push({
      name,
      in: 'header',
      required: h.required ?? false,
      description: h.description,
      schema: { type: 'string' },
    });
  }

  const responses: Json = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = {
      description: r.description,
      ...(r.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(r.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      ...(r.schema || r.contentType
        ? {
            content: {
              ...(r.schema ? { 'application/json': { schema: c.ref(r.schema) } } : {}),
              ...(r.contentType ? { [r.contentType]: { schema: { type: 'string' } } } : {}),
            },
          }
        : {}),
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route, op)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    if (responses[status])
      throw new Error(`${op.operationId}: ${status} is an answer and an error`);
    responses[status] = {
      description: `${REASONS[status] ?? 'Refused'}: ${codes
        .map((code) => `\`${code}\` (${ERROR_CODES[code].description})`)
        .join('; ')}.`,
      content: { 'application/json': { schema: c.ref(ErrorBody) } },
      'x-aiplane-error-codes': codes,
    };
  }
  if ((op.body || op.serviceBody || op.query || op.binaryBody?.form) && !op.websocket) {
    if (responses[422]) throw new Error(`${op.operationId}: 422 is the validation failure`);
    responses[422] = {
      description: 'The request breaks the schema or a rule; each offending field is named.',
      content: { 'application/json': { schema: c.ref(ValidationErrorBody) } },
    };
  }

  const bodySchema = op.body ?? op.serviceBody;
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(describe(route, op) ? { description: describe(route, op) } : {}),
    tags: [...op.tags],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(bodySchema
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: c.ref(bodySchema) } },
          },
        }
      : op.binaryBody
        ? {
            requestBody: {
              required: true,
              description: op.binaryBody.description,
              content: Object.fromEntries(
                op.binaryBody.mediaTypes.map((t) => [
                  t,
                  {
                    schema: op.binaryBody?.form
                      ? c.ref(op.binaryBody.form)
                      : { type: 'string', contentMediaType: t },
                  },
                ]),
              ),
            },
          }
        : {}),
    responses,
    ...(op.public ? { security: [] } : op.websocket ? { security: [{ WebSocketToken: [] }] } : {}),
    ...(route.permissions.length > 0 ? { 'x-aiplane-permissions': route.permissions } : {}),
    ...(op.platformAdmin ? { 'x-aiplane-platform-admin': true } : {}),
    ...(op.websocket ? { 'x-aiplane-websocket': true } : {}),
    ...op.extensions,
  };
}

/**
 * The OpenAPI 3.1 document of the routes: every route must be declared with `operation()`
 * (an undeclared one throws, naming it), and every tag described.
 */
export function openApiDocument(opts: DocumentOptions): OpenApiDocument {
  const c = new Components();
  c.ref(ErrorBody);
  c.ref(ValidationErrorBody);
  const paths: OpenApiDocument['paths'] = {};
  const ids = new Set<string>();
  const tags = new Set(opts.tags.map((t) => t.name));
  for (const route of [...opts.routes, ...(opts.extra ?? [])]) {
    const op = route.operation;
    if (!op) throw new Error(`${route.method} ${route.path} is mounted without operation()`);
    if (route.method.toLowerCase() !== op.method) {
      throw new Error(`${op.operationId}: mounted as ${route.method}, declared ${op.method}`);
    }
    if (ids.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice`);
    ids.add(op.operationId);
    for (const tag of op.tags) {
      if (!tags.has(tag)) throw new Error(`${op.operationId}: tag ${tag} is not described`);
    }
    const path = openApiPath(route.path);
    const item = (paths[path] ??= {});
    item[op.method] = operationObject(route, op, c);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: opts.title,
      version: opts.version,
      ...(opts.description ? { description: opts.description } : {}),
    },
    tags: opts.tags,
    security: HTTP_SECURITY,
    paths,
    components: {
      schemas: c.schemas,
      securitySchemes: SECURITY_SCHEMES,
      parameters: {
        Organization: {
          name: 'X-Aiplane-Organization',
          in: 'header',
          required: false,
          description: `The organization the request acts in (header \`${ORGANIZATION_HEADER}\`): its id, or the alias of one of the caller’s own. Needed when the caller belongs to several; a platform admin may name any organization by id.`,
          schema: { type: 'string', maxLength: 200 },
        },
      },
    },
  };
}
