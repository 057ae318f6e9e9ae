import { Type } from '@sinclair/typebox';
import type { IRouter, RequestHandler } from 'express';
import { type OpenApiDocument, operation } from '@aiplane/lib/service';
import { assetFiles, type DocsPage } from './assets.js';

/**
 * What the documentation pages may do: scripts and styles from this origin only (the two
 * libraries inject style elements and attributes, hence 'unsafe-inline' for styles), calls to
 * this origin only (try-it requests, the document), nothing framed, no form posts.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The document's address from a page's own (`…/docs` → `…/openapi.json`), any mount prefix kept. */
const DOCUMENT_URL = "location.pathname.replace(/\\/(docs|scalar)\\/?$/, '') + '/openapi.json'";

const SWAGGER_INIT = `// Swagger UI on the aiplane OpenAPI document (api/src/docs/routes.ts).
window.ui = SwaggerUIBundle({
  url: ${DOCUMENT_URL},
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  displayOperationId: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const SCALAR_INIT = `// Scalar API reference on the aiplane OpenAPI document (api/src/docs/routes.ts).
window.Scalar.createApiReference('#app', {
  url: ${DOCUMENT_URL},
  withDefaultFonts: false,
  telemetry: false,
  persistAuth: false,
  showDeveloperTools: 'never',
  mcp: { disabled: true },
  authentication: { preferredSecurityScheme: 'ApiKey' },
});
`;

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

const PAGES: Record<DocsPage, { path: string; html: string; init: string }> = {
  'swagger-ui': {
    path: '/docs',
    html: page(
      'aiplane API · Swagger UI',
      '<link rel="stylesheet" href="/docs/assets/swagger-ui.css">',
      '<div id="swagger-ui"></div>\n<script src="/docs/assets/swagger-ui-bundle.js"></script>\n<script src="/docs/assets/init.js"></script>',
    ),
    init: SWAGGER_INIT,
  },
  scalar: {
    path: '/scalar',
    html: page(
      'aiplane API · Scalar',
      '',
      '<div id="app"></div>\n<script src="/scalar/assets/standalone.js"></script>\n<script src="/scalar/assets/init.js"></script>',
    ),
    init: SCALAR_INIT,
  },
};

/** Serves exactly the named files (a file path, or the text of `init.js`), nothing else. */
function assets(files: Record<string, string>, init: string): RequestHandler {
  return (req, res, next) => {
    const name = req.path.replace(/^\//, '');
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.set('Content-Security-Policy', DOCS_CSP).set('X-Content-Type-Options', 'nosniff');
    if (name === 'init.js') {
      res.type('text/javascript').set('Cache-Control', 'no-cache').send(init);
      return;
    }
    const file = Object.hasOwn(files, name) ? files[name] : undefined;
    if (file === undefined) return next();
    res.set('Cache-Control', 'public, max-age=3600');
    res.sendFile(file, (err) => {
      if (err) next(err);
    });
  };
}

/**
 * `GET /openapi.json`, `/docs` (Swagger UI) and `/scalar` (Scalar), public: the calls the
 * pages make go to the API and are authenticated like any other (docs/adr/0021).
 */
export function docsRoutes(router: IRouter, document: () => OpenApiDocument): void {
  const tags = ['documentation'];
  operation(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags,
      public: true,
      responses: {
        200: {
          description: 'The document.',
          schema: Type.Object({}, { description: 'an OpenAPI 3.1 document' }),
        },
      },
    },
    (_req, res) => {
      res.set('Cache-Control', 'no-cache').json(document());
    },
  );
  for (const [name, p] of Object.entries(PAGES) as [DocsPage, (typeof PAGES)[DocsPage]][]) {
    operation(
      router,
      {
        method: 'get',
        path: p.path,
        operationId: name === 'scalar' ? 'scalarPage' : 'swaggerUiPage',
        summary: `The interactive documentation (${name === 'scalar' ? 'Scalar' : 'Swagger UI'})`,
        description: 'A public page; its try-it calls carry the API key or token given to it.',
        tags,
        public: true,
        responses: { 200: { description: 'The page.', contentType: 'text/html' } },
      },
      (_req, res) => {
        res
          .set('Content-Security-Policy', DOCS_CSP)
          .set('X-Content-Type-Options', 'nosniff')
          .set('Cache-Control', 'no-cache')
          .type('html')
          .send(p.html);
      },
    );
    router.use(`${p.path}/assets`, assets(assetFiles(name), p.init));
  }
}
