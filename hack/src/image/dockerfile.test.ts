import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { COMPONENTS } from './components.js';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const workspaces = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }
).workspaces;

describe('Dockerfile (no Docker here: its build stage is checked against the workspaces)', () => {
  it('copies every workspace’s package.json, as npm ci needs them all', () => {
    for (const w of workspaces) {
      assert.ok(dockerfile.includes(`COPY ${w}/package.json ${w}/`), `${w}/package.json`);
    }
  });

  it('installs and copies the package of every component the image bundles', () => {
    for (const [name, { main }] of Object.entries(COMPONENTS)) {
      const pkg = main.split('/')[0] ?? '';
      assert.ok(dockerfile.includes(`--workspace=${pkg}`), `${name}: npm ci --workspace=${pkg}`);
      assert.ok(dockerfile.includes(`COPY ${pkg}/ ${pkg}/`), `${name}: COPY ${pkg}/`);
    }
  });
});
