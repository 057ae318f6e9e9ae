import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { Validator } from '@seriousme/openapi-schema-validator';
import express, { type Express, type RequestHandler } from 'express';
import { errorMiddleware } from '../errors/middleware.js';
import { createLogger } from '../logger.js';
import { openApiDocument, openApiPath } from './openapi-document.js';
import { authenticatedRouter, documentedRoutes, operation } from './operation.js';

const Widget = Type.Object(
  { id: Type.String(), colour: Type.Object({ hex: Type.String() }, { title: 'Colour' }) },
  { title: 'Widget' },
);
const CreateWidget = Type.Object(
  { name: Type.String({ minLength: 1 }) },
  { additionalProperties: false, title: 'CreateWidget' },
);
const TAGS = [{ name: 'widgets', description: 'Widgets.' }];

/** A principal with the given roles, as authenticate() would leave it. */
const fakeAuth =
  (roles: string[]): RequestHandler =>
  (_req, res, next) => {
    res.locals.principal = {
      userId: 'u',
      roles: new Set(roles),
      organizations: [{ id: 'org-1', alias: 'org', permissions: [] }],
      via: 'jwt',
    };
    next();
  };

function widgetsApp(roles: string[] = ['can_access_api', 'can_edit_config']): Express {
  const app = express();
  operation(
    app,
    {
      method: 'get',
      path: '/ping',
      operationId: 'ping',
      summary: 'Ping',
      tags: ['widgets'],
      public: true,
      responses: { 200: { description: 'Pong.' } },
    },
    (_req, res) => {
      res.end();
    },
  );
  const v1 = authenticatedRouter(express.Router(), fakeAuth(roles), 'can_access_api');
  v1.use(express.json());
  const widgets = express.Router();
  operation(
    widgets,
    {
      method: 'post',
      path: '/',
      operationId: 'createWidget',
      summary: 'Create a widget',
      tags: ['widgets'],
      permission: 'can_edit_config',
      organization: true,
      body: CreateWidget,
      responses: { 201: { description: 'Created.', schema: Widget } },
    },
    (_req, res, { body, organizationId }) => {
      res.status(201).json({ id: `${organizationId}/${body.name}`, colour: { hex: '#fff' } });
    },
  );
  operation(
    widgets,
    {
      method: 'get',
      path: '/:widget_id',
      operationId: 'getWidget',
      summary: 'One widget',
      tags: ['widgets'],
      responses: { 200: { description: 'The widget.', schema: Widget } },
      errors: ['route_not_found'],
    },
    (req, res) => {
      res.json({ id: req.params.widget_id, colour: { hex: '#000' } });
    },
  );
  v1.use('/widgets', widgets);
  app.use('/v1', v1);
  app.use(errorMiddleware(createLogger({ level: 'silent' })));
  return app;
}

const documentOf = (app: Express) =>
  openApiDocument({ title: 't', version: 'v1', tags: TAGS, routes: documentedRoutes(app) });

async function serve(app: Express, run: (url: string) => Promise<void>): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the OpenAPI document builder', function () {
  it('writes a document an OpenAPI 3.1 validator accepts', async function () {
    const doc = documentOf(widgetsApp());
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('documents every declared route under its full path, :param as {param}', function () {
    const doc = documentOf(widgetsApp());
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/ping',
      '/v1/widgets',
      '/v1/widgets/{widget_id}',
    ]);
    const get = doc.paths['/v1/widgets/{widget_id}']?.get as { parameters: unknown[] };
    assert.deepEqual(get.parameters, [
      { name: 'widget_id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('makes titled schemas components, nested ones too, and refers to them', function () {
    const doc = documentOf(widgetsApp());
    assert.deepEqual(Object.keys(doc.components.schemas).sort(), [
      'Colour',
      'CreateWidget',
      'Error',
      'ValidationError',
      'Widget',
    ]);
    assert.deepEqual(doc.components.schemas.Widget?.properties, {
      id: { type: 'string' },
      colour: { $ref: '#/components/schemas/Colour' },
    });
    const post = doc.paths['/v1/widgets']?.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    assert.deepEqual(post.requestBody.content['application/json']?.schema, {
      $ref: '#/components/schemas/CreateWidget',
    });
  });

  it('gives authenticated routes the global security, public ones none, and names permissions', function () {
    const doc = documentOf(widgetsApp());
    assert.deepEqual(doc.security, [{ ApiKey: [] }, { Bearer: [] }]);
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      'ApiKey',
      'Bearer',
      'WebSocketToken',
    ]);
    const ping = doc.paths['/ping']?.get as Record<string, unknown>;
    assert.deepEqual(ping.security, []);
    const post = doc.paths['/v1/widgets']?.post as Record<string, unknown>;
    assert.equal(post.security, undefined);
    assert.deepEqual(post['x-aiplane-permissions'], ['can_access_api', 'can_edit_config']);
    assert.match(
      String(post.description),
      /Needs the `can_access_api` permission and the `can_edit_config` permission/,
    );
  });

  it('lists the refusals by status: authentication, permission, organization, validation and the route’s own', function () {
    const doc = documentOf(widgetsApp());
    const post = doc.paths['/v1/widgets']?.post as {
      responses: Record<string, { 'x-aiplane-error-codes'?: string[]; content?: unknown }>;
      parameters: unknown[];
    };
    assert.deepEqual(Object.keys(post.responses).sort(), [
      '201',
      '400',
      '401',
      '403',
      '413',
      '415',
      '422',
      '503',
    ]);
    assert.deepEqual(post.responses['403']?.['x-aiplane-error-codes'], [
      'permission_denied',
      'organization_access_denied',
    ]);
    assert.deepEqual(post.responses['422']?.content, {
      'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } },
    });
    assert.deepEqual(post.parameters, [{ $ref: '#/components/parameters/Organization' }]);
    const get = doc.paths['/v1/widgets/{widget_id}']?.get as { responses: Record<string, unknown> };
    assert.ok(get.responses['404'], 'the route’s own error');
    assert.equal(get.responses['422'], undefined, 'no body, no query: no validation failure');
  });

  it('refuses a route mounted without operation(), naming it', function () {
    const app = widgetsApp();
    app.get('/v1/undeclared', (_req, res) => {
      res.end();
    });
    assert.throws(() => documentOf(app), /GET \/v1\/undeclared is mounted without operation\(\)/);
  });

  it('refuses two different schemas under one title', function () {
    const app = widgetsApp();
    operation(
      app,
      {
        method: 'get',
        path: '/other',
        operationId: 'other',
        summary: 'Other',
        tags: ['widgets'],
        public: true,
        responses: { 200: { description: 'x', schema: Type.Object({}, { title: 'Widget' }) } },
      },
      (_req, res) => {
        res.end();
      },
    );
    assert.throws(() => documentOf(app), /two different schemas are titled Widget/);
  });

  it('refuses an operation that is neither public nor behind an authenticated router', function () {
    const app = express();
    operation(
      app,
      {
        method: 'get',
        path: '/open',
        operationId: 'open',
        summary: 'Open',
        tags: ['widgets'],
        responses: { 200: { description: 'x' } },
      },
      (_req, res) => {
        res.end();
      },
    );
    assert.throws(() => documentOf(app), /neither public nor behind an authenticated router/);
  });

  it('converts express paths and refuses syntax it cannot document', function () {
    assert.equal(openApiPath('/v1/a/:id/b/:other_id'), '/v1/a/{id}/b/{other_id}');
    assert.throws(() => openApiPath('/v1/*splat'), /only :name parameters/);
  });
});

describe('operation()', function () {
  it('checks the declared permission and body, and chooses the organization, before the handler', async function () {
    await serve(widgetsApp(), async (url) => {
      const post = (body: unknown) =>
        fetch(`${url}/v1/widgets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const ok = await post({ name: 'w' });
      assert.equal(ok.status, 201);
      assert.deepEqual(await ok.json(), { id: 'org-1/w', colour: { hex: '#fff' } });
      const bad = await post({ name: 'w', extra: 1 });
      assert.equal(bad.status, 422);
      assert.deepEqual(await bad.json(), {
        error: {
          message: 'request validation failed',
          fields: [{ field: 'extra', message: 'unknown field' }],
        },
      });
    });
  });

  it('answers 403 permission_denied without the declared permission', async function () {
    await serve(widgetsApp(['can_access_api']), async (url) => {
      const r = await fetch(`${url}/v1/widgets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'w' }),
      });
      assert.equal(r.status, 403);
      assert.equal(
        ((await r.json()) as { error: { code: string } }).error.code,
        'permission_denied',
      );
    });
  });
});
