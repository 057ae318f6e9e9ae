import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { repoRoot } from '@aiplane/hack';
import { helmInstallArgs, helmSetValue, type HelmInstallOptions } from './helm-args.js';

const CHART = join(repoRoot, 'charts', 'aiplane');
const OPTIONS: HelmInstallOptions = {
  release: 'aiplane',
  chart: CHART,
  namespace: 'aiplane-system',
  image: { repository: 'ghcr.io/aiplane/aiplane', tag: 'e2e' },
  gatewayPublicUrl: 'http://127.0.0.1:41234',
  tenantDatabaseSecret: 'aiplane-tenant-database',
  timeout: '10m',
};

/** The `--set-string` pairs of an argument list, unescaped. */
function setValues(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  args.forEach((a, i) => {
    if (a !== '--set-string') return;
    const pair = args[i + 1] ?? '';
    const eq = pair.indexOf('=');
    out.set(pair.slice(0, eq), pair.slice(eq + 1).replace(/\\(.)/g, '$1'));
  });
  return out;
}

/** `values` with `path` (dotted) set to `value`. */
function setPath(values: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = values;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1) as string] = value;
}

describe('helm install arguments of the e2e release', function () {
  it('installs release aiplane from the chart into aiplane-system and waits for it', function () {
    const args = helmInstallArgs(OPTIONS);
    assert.deepEqual(args.slice(0, 8), [
      'install',
      'aiplane',
      CHART,
      '--namespace',
      'aiplane-system',
      '--wait',
      '--timeout',
      '10m',
    ]);
  });

  it('sets the e2e image (never pulled), the tenant database Secret and its fully qualified host, and the gateway public URL', function () {
    assert.deepEqual(Object.fromEntries(setValues(helmInstallArgs(OPTIONS))), {
      'image.repository': 'ghcr.io/aiplane/aiplane',
      'image.tag': 'e2e',
      'image.pullPolicy': 'IfNotPresent',
      'tenantDatabase.existingSecret': 'aiplane-tenant-database',
      'tenantDatabase.host': 'postgres.aiplane-system.svc.cluster.local',
      'gateway.publicUrl': 'http://127.0.0.1:41234',
    });
  });

  it('passes every value as a string, so a numeric tag stays a string', function () {
    const args = helmInstallArgs({ ...OPTIONS, image: { repository: 'r.example/x', tag: '1' } });
    assert.ok(args.includes('image.tag=1'));
    assert.equal(args[args.indexOf('image.tag=1') - 1], '--set-string');
    assert.ok(!args.includes('--set'), 'no --set, which would turn "1" into a number');
  });

  it("escapes commas and backslashes, which helm's --set syntax would split or eat", function () {
    assert.equal(helmSetValue('a,b'), 'a\\,b');
    assert.equal(helmSetValue('a\\b'), 'a\\\\b');
    assert.equal(helmSetValue('http://127.0.0.1:1/x'), 'http://127.0.0.1:1/x');
  });

  it('sets only keys of the chart values contract, and the result passes values.schema.json', function () {
    const defaults = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    const values = structuredClone(defaults);
    for (const [key, value] of setValues(helmInstallArgs(OPTIONS))) {
      const parent = key.split('.').slice(0, -1);
      let node: unknown = defaults;
      for (const k of parent) node = (node as Record<string, unknown>)[k];
      const leaf = key.split('.').at(-1) as string;
      assert.ok(
        node !== null && typeof node === 'object' && leaf in node,
        `${key} is not in charts/aiplane/values.yaml`,
      );
      setPath(values, key, value);
    }
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as object;
    // The schema names draft-07 by its https URI, which ajv does not know; draft-07 is its default.
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    const validate = ajv.compile(schema);
    assert.ok(validate(values), JSON.stringify(validate.errors));
  });
});
