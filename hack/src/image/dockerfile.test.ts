import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { COMPONENTS } from './components.js';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
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

  it('carries the speech programs: built and collected on the target, copied into the runtime, configured', () => {
    assert.match(dockerfile, /^FROM debian:bookworm-slim AS speech$/m);
    assert.ok(dockerfile.includes('bash hack/lib/build-speech-helper.sh /opt/aiplane'));
    assert.ok(dockerfile.includes('bash hack/lib/collect-speech-runtime.sh /speech-root'));
    assert.ok(dockerfile.includes('COPY --from=speech /speech-root/ /'));
    assert.ok(
      dockerfile.includes(
        'AIPLANE_STT_POCKETSPHINX_HELPER=/usr/local/bin/aiplane-stt-pocketsphinx',
      ),
    );
    assert.ok(dockerfile.includes('AIPLANE_STT_FFMPEG=/usr/bin/ffmpeg'));
  });

  it('keeps in the build context every hack/lib script a stage runs (hack/lib is ignored but them)', () => {
    const scripts = new Set(
      [...dockerfile.matchAll(/hack\/lib\/([a-z-]+\.sh)/g)].map((m) => m[1] as string),
    );
    assert.ok(scripts.has('install-models.sh') && scripts.has('build-speech-helper.sh'));
    for (const script of scripts) {
      assert.ok(dockerignore.includes(`!hack/lib/${script}`), `.dockerignore keeps ${script}`);
    }
  });
});
