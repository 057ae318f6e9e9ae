import assert from 'node:assert/strict';
import { isImageProblem, parseImageReference, type ImageRule } from './image-reference.js';

const SHA = 'a'.repeat(64);

describe('parseImageReference', () => {
  const accepted: [string, Record<string, string>][] = [
    [
      'ghcr.io/acme/mcp-server:1.0.0',
      { registry: 'ghcr.io', repository: 'acme/mcp-server', tag: '1.0.0' },
    ],
    [
      'registry.example.com:5000/team/server:v2',
      { registry: 'registry.example.com:5000', tag: 'v2' },
    ],
    ['localhost/server:dev', { registry: 'localhost', repository: 'server' }],
    ['localhost:5000/server:dev', { registry: 'localhost:5000' }],
    [`ghcr.io/acme/server@sha256:${SHA}`, { digest: `sha256:${SHA}` }],
    [`ghcr.io/acme/server:1.0@sha256:${SHA}`, { tag: '1.0', digest: `sha256:${SHA}` }],
    ['docker.io/library/nginx:1.27', { repository: 'library/nginx' }],
    ['quay.io/a/b__c/d-e.f_g:latest', { repository: 'a/b__c/d-e.f_g', tag: 'latest' }],
    ['[::1]:5000/server:1', { registry: '[::1]:5000' }],
  ];
  for (const [image, expected] of accepted) {
    it(`accepts ${image}`, () => {
      const r = parseImageReference(image);
      assert.ok(!isImageProblem(r), JSON.stringify(r));
      for (const [k, v] of Object.entries(expected)) {
        assert.equal((r as unknown as Record<string, string>)[k], v);
      }
    });
  }

  const refused: [string, ImageRule][] = [
    ['nginx:1.27', 'registry'],
    ['acme/server:1.0', 'registry'],
    ['nginx', 'registry'],
    ['ghcr.io/acme/server', 'tag_or_digest'],
    ['ghcr.io/Acme/server:1.0', 'repository'],
    ['ghcr.io/acme//server:1.0', 'repository'],
    ['ghcr.io/acme/server-:1.0', 'repository'],
    ['ghcr.io/:1.0', 'repository'],
    ['ghcr.io/acme/server:', 'tag'],
    ['ghcr.io/acme/server:.hidden', 'tag'],
    [`ghcr.io/acme/server:${'a'.repeat(129)}`, 'tag'],
    ['ghcr.io/acme/server@sha256:abc', 'digest'],
    [`ghcr.io/acme/server@md5:${SHA}`, 'digest'],
    ['ghcr.io/acme/server :1.0', 'characters'],
    ['ghcr.io/acme/server:1.0\n', 'characters'],
    ['-bad.io/acme/server:1.0', 'registry'],
    [`ghcr.io/${'a'.repeat(250)}:1`, 'name_too_long'],
  ];
  for (const [image, rule] of refused) {
    it(`refuses ${JSON.stringify(image.slice(0, 60))} by rule ${rule}`, () => {
      const r = parseImageReference(image);
      assert.ok(isImageProblem(r), `accepted: ${JSON.stringify(r)}`);
      assert.equal(r.rule, rule);
      assert.match(r.message, new RegExp(`\\(rule: ${rule}\\)$`));
    });
  }
});
