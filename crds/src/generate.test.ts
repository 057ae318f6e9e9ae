import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './generate.js';
import { firstDifference, staleFiles } from './stale-files.js';
import { crdManifests } from './crd.js';
import { GENERATED_NOTICE, generatedFiles } from './render.js';

describe('CRD generator', function () {
  it('committed CRD files match the schemas byte for byte', async function () {
    const stale = await staleFiles(REPO_ROOT, generatedFiles());
    assert.deepEqual(
      stale,
      [],
      `generated files are out of date; run \`npm run crds:generate\`:\n${stale.map((s) => `  ${s.path}: ${s.hint}`).join('\n')}`,
    );
  });

  it('writes two files per kind, each starting with the do-not-edit notice', function () {
    const files = generatedFiles();
    assert.deepEqual(
      files.map((f) => f.path),
      [
        'crds/generated/tenantlifecycles.aiplane.io.yaml',
        'charts/aiplane/templates/crd-tenantlifecycles.yaml',
        'crds/generated/mcpservers.aiplane.io.yaml',
        'charts/aiplane/templates/crd-mcpservers.yaml',
      ],
    );
    for (const file of files)
      assert.ok(file.content.split('\n')[0]?.includes(GENERATED_NOTICE), file.path);
  });

  it('writes plain YAML that parses back to exactly the manifests', function () {
    const plain = generatedFiles().filter((f) => f.path.startsWith('crds/'));
    assert.deepEqual(
      plain.map((f) => parse(f.content) as unknown),
      crdManifests(),
    );
    for (const f of plain) assert.equal(parseAllDocuments(f.content).length, 1);
  });

  const chart = generatedFiles().filter((f) => f.path.startsWith('charts/'));
  for (const file of chart) {
    it(`guards ${file.path} with crds.enabled and keeps it on uninstall under crds.keep`, function () {
      const lines = file.content.trimEnd().split('\n');
      assert.equal(lines[1], '{{- if .Values.crds.enabled }}');
      assert.equal(lines.at(-1), '{{- end }}');
      const keep = lines.indexOf('{{- if .Values.crds.keep }}');
      assert.deepEqual(lines.slice(keep, keep + 4), [
        '{{- if .Values.crds.keep }}',
        '  annotations:',
        '    helm.sh/resource-policy: keep',
        '{{- end }}',
      ]);
      assert.match(lines[keep - 1] ?? '', /^ {2}name: \w+\.aiplane\.io$/);
      // With the directives removed (both switches on), it is the same manifest plus the annotation.
      const rendered = lines.filter((l) => !l.startsWith('{{')).join('\n');
      const manifest = parse(rendered) as { metadata: Record<string, unknown> };
      assert.deepEqual(manifest.metadata.annotations, { 'helm.sh/resource-policy': 'keep' });
    });
  }

  it('reports a stale or missing file with the first differing line', async function () {
    const root = await mkdtemp(join(tmpdir(), 'crds-'));
    const files = [
      { path: 'a/one.yaml', content: 'x: 1\ny: 2\n' },
      { path: 'a/two.yaml', content: 'z: 3\n' },
    ];
    await mkdir(dirname(join(root, 'a/one.yaml')), { recursive: true });
    await writeFile(join(root, 'a/one.yaml'), 'x: 1\ny: 3\n');
    assert.deepEqual(await staleFiles(root, files), [
      { path: 'a/one.yaml', hint: 'line 2: expected "y: 2", found "y: 3"' },
      { path: 'a/two.yaml', hint: 'missing' },
    ]);
    assert.equal(firstDifference('a\n', 'a\n'), 'identical');
  });
});
