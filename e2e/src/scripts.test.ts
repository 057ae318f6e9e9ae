import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '@aiplane/hack';
import { CLUSTER, MCP_PORT, NAMESPACE, PLATFORM_IMAGE, MCP_IMAGE } from './config.js';

const read = (...path: string[]) => readFileSync(join(repoRoot, ...path), 'utf8');
const PLATFORM = `${PLATFORM_IMAGE.repository}:${PLATFORM_IMAGE.tag}`;

/** `NAME=value` assignments at the start of a line of a shell script. */
function shellVars(text: string): Record<string, string> {
  const pairs = [...text.matchAll(/^([A-Z_]+)=(\S+)$/gm)].map((m): [string, string] => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
  return Object.fromEntries(pairs);
}

describe('the kind run script, the workflow and the MCP server image agree with the suite', function () {
  const script = read('e2e', 'run-kind.sh');
  const vars = shellVars(script);

  it('run-kind.sh is valid bash that stops on the first error', function () {
    execFileSync('bash', ['-n', join(repoRoot, 'e2e', 'run-kind.sh')]);
    assert.match(script, /^set -euo pipefail$/m);
  });

  it('run-kind.sh builds and loads the images the suite deploys, into the cluster it expects', function () {
    assert.equal(vars.PLATFORM_IMAGE, PLATFORM);
    assert.equal(vars.MCP_IMAGE, MCP_IMAGE);
    assert.equal(vars.CLUSTER, CLUSTER);
    assert.equal(vars.SYSTEM_NAMESPACE, NAMESPACE);
  });

  it('run-kind.sh pins a kind release and says clearly that it needs Docker', function () {
    assert.match(vars.KIND_VERSION ?? '', /^v\d+\.\d+\.\d+$/);
    assert.match(script, /make e2e-kind needs Docker/);
  });

  it('run-kind.sh builds helm exactly as hack/lib/build-binaries.sh does', function () {
    const build = read('hack', 'lib', 'build-binaries.sh');
    for (const piece of [
      'helm.sh/helm/v3/internal/version.version=$HELM_VERSION',
      'helm.sh/helm/v3/cmd/helm',
      'GOTOOLCHAIN=local',
      'GOFLAGS=-mod=mod',
    ]) {
      assert.ok(build.includes(piece), `build-binaries.sh: ${piece}`);
      assert.ok(script.includes(piece), `run-kind.sh: ${piece}`);
    }
  });

  it('the workflow builds the same images, then runs run-kind.sh without rebuilding them', function () {
    const workflow = parse(read('.github', 'workflows', 'e2e.yml')) as {
      on: { push: { branches: string[] }; pull_request: unknown };
      jobs: Record<
        string,
        {
          'runs-on': string;
          'timeout-minutes': number;
          steps: { run?: string; uses?: string; env?: Record<string, string> }[];
        }
      >;
    };
    assert.deepEqual(workflow.on.push.branches, ['main']);
    assert.ok('pull_request' in workflow.on);
    const job = only(Object.values(workflow.jobs));
    assert.equal(job['runs-on'], 'ubuntu-latest');
    assert.equal(job['timeout-minutes'], 45);
    const runs = job.steps.map((s) => s.run ?? '').join('\n');
    assert.match(runs, new RegExp(`docker build -t ${escape(PLATFORM)} \\.$`, 'm'));
    assert.match(runs, new RegExp(`docker build -t ${escape(MCP_IMAGE)} e2e/mcp-server$`, 'm'));
    const suite = job.steps.find((s) => s.run === 'e2e/run-kind.sh');
    assert.equal(suite?.env?.E2E_SKIP_BUILD, '1');
    assert.ok(job.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@')));
  });

  it('the MCP server image runs as a numeric non-root user on the port the suite registers', function () {
    const dockerfile = read('e2e', 'mcp-server', 'Dockerfile');
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)$/gm)].map((m) => m[1]);
    assert.deepEqual(users, ['1000:1000']);
    assert.match(dockerfile, new RegExp(`^EXPOSE ${MCP_PORT}$`, 'm'));
    assert.match(dockerfile, new RegExp(`PORT=${MCP_PORT}\\b`));
  });
});

function only<T>(items: T[]): T {
  assert.equal(items.length, 1);
  return items[0] as T;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
