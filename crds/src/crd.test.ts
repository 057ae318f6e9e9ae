import assert from 'node:assert/strict';
import { compileCel } from './cel.js';
import { crdManifests, KINDS, toJson } from './crd.js';
import { API_VERSION, GROUP, VERSION } from './meta.js';
import type { CelRule } from './schema-helpers.js';

type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  'x-kubernetes-validations'?: CelRule[];
  [key: string]: unknown;
};

interface Node {
  path: string;
  schema: Schema;
}

/** Every schema node below the root, with a readable path. */
function nodes(schema: Schema, path = ''): Node[] {
  const out: Node[] = [{ path, schema }];
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    out.push(...nodes(sub, `${path}.${name}`));
  }
  if (schema.items) out.push(...nodes(schema.items, `${path}[]`));
  return out;
}

const crds = crdManifests() as {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[]; categories: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: object };
      additionalPrinterColumns: { name: string; type: string; jsonPath: string }[];
      schema: { openAPIV3Schema: Schema };
    }[];
  };
}[];

const expected = [
  {
    kind: 'TenantLifecycle',
    plural: 'tenantlifecycles',
    short: 'tl',
    scope: 'Cluster',
    columns: ['Slug', 'Phase', 'Identity', 'Database', 'Ready', 'Age'],
  },
  {
    kind: 'McpServer',
    plural: 'mcpservers',
    short: 'mcps',
    scope: 'Namespaced',
    columns: ['Runtime', 'Ready', 'URL', 'Age'],
  },
];

describe('generated CustomResourceDefinitions', function () {
  it('uses the aiplane.io/v1alpha1 group and version', function () {
    assert.equal(API_VERSION, `${GROUP}/${VERSION}`);
    assert.equal(API_VERSION, 'aiplane.io/v1alpha1');
  });

  it('are plain JSON, without TypeBox symbol keys', function () {
    for (const crd of crds) assert.deepEqual(crd, toJson(crd));
    const symbols = (value: unknown): number =>
      value !== null && typeof value === 'object'
        ? Object.getOwnPropertySymbols(value).length +
          Object.values(value).reduce((n: number, v) => n + symbols(v), 0)
        : 0;
    assert.equal(symbols(crds), 0);
  });

  for (const [i, want] of expected.entries()) {
    describe(want.kind, function () {
      const crd = crds[i]!;
      const version = crd.spec.versions[0]!;
      const root = version.schema.openAPIV3Schema;
      const all = nodes(root);

      it(`is named ${want.plural}.aiplane.io, ${want.scope}, short name ${want.short}, category aiplane`, function () {
        assert.equal(crd.metadata.name, `${want.plural}.${GROUP}`);
        assert.equal(crd.spec.group, GROUP);
        assert.equal(crd.spec.scope, want.scope);
        assert.equal(crd.spec.names.kind, want.kind);
        assert.deepEqual(crd.spec.names.shortNames, [want.short]);
        assert.deepEqual(crd.spec.names.categories, ['aiplane']);
        assert.equal(KINDS[i]!.kind, want.kind);
      });

      it('serves and stores one version with a status subresource', function () {
        assert.equal(crd.spec.versions.length, 1);
        assert.deepEqual([version.name, version.served, version.storage], [VERSION, true, true]);
        assert.deepEqual(version.subresources, { status: {} });
      });

      it(`prints ${want.columns.join(', ')} in kubectl get`, function () {
        const columns = version.additionalPrinterColumns;
        assert.deepEqual(
          columns.map((c) => c.name),
          want.columns,
        );
        const age = columns.find((c) => c.name === 'Age');
        assert.deepEqual(age, {
          name: 'Age',
          type: 'date',
          jsonPath: '.metadata.creationTimestamp',
        });
      });

      it('prints only fields its schema declares', function () {
        for (const column of version.additionalPrinterColumns) {
          if (column.jsonPath.startsWith('.metadata.')) continue;
          const path = column.jsonPath.replace(/\[\?\(.*\)\]/, '[]').replace(/\[\]\./, '[].');
          assert.ok(
            all.some((n) => n.path === path),
            `${column.name}: ${column.jsonPath} is not in the schema`,
          );
        }
      });

      it('requires spec and leaves metadata to the apiserver', function () {
        assert.deepEqual(root.required, ['spec']);
        assert.deepEqual(root.properties?.metadata, { type: 'object' });
      });

      it('gives every string a maxLength and every array a maxItems, for CEL cost estimation', function () {
        for (const { path, schema } of all) {
          if (path === '.apiVersion' || path === '.kind') continue;
          if (schema.type === 'string')
            assert.equal(typeof schema.maxLength, 'number', `${path} has no maxLength`);
          if (schema.type === 'array')
            assert.equal(typeof schema.maxItems, 'number', `${path} has no maxItems`);
        }
      });

      it('is structural: one type per node, integers sized, no $id, $schema, anyOf or additionalProperties', function () {
        for (const { path, schema } of all) {
          assert.equal(typeof schema.type, 'string', `${path} has no single type`);
          for (const banned of [
            '$id',
            '$schema',
            'anyOf',
            'oneOf',
            'allOf',
            'additionalProperties',
            'const',
          ]) {
            assert.equal(banned in schema, false, `${path} uses ${banned}`);
          }
          if (schema.type === 'integer') assert.match(String(schema.format), /^int(32|64)$/, path);
        }
      });

      it('keeps status conditions as a map keyed by a required type', function () {
        const conditions = root.properties?.status?.properties?.conditions;
        assert.ok(conditions, 'status.conditions is missing');
        assert.equal(conditions['x-kubernetes-list-type'], 'map');
        assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
        assert.ok(conditions.items?.required?.includes('type'));
      });

      it('writes CEL rules that parse and only name fields the schema declares', function () {
        const rules = all.flatMap(({ path, schema }) =>
          (schema['x-kubernetes-validations'] ?? []).map((rule) => ({ path, schema, rule })),
        );
        assert.ok(rules.length > 0);
        for (const { path, schema, rule } of rules) {
          assert.doesNotThrow(() => compileCel(rule.rule), `${path}: ${rule.rule}`);
          assert.ok(rule.message.length > 0, `${path}: ${rule.rule} has no message`);
          for (const [, field] of rule.rule.matchAll(/\bself\.(\w+)/g)) {
            assert.ok(
              field && schema.properties?.[field],
              `${path}: ${rule.rule} names unknown field ${field}`,
            );
          }
          if (rule.fieldPath) {
            assert.ok(
              schema.properties?.[rule.fieldPath.slice(1)],
              `${path}: bad fieldPath ${rule.fieldPath}`,
            );
          }
        }
      });
    });
  }

  it('puts no schema default on a field that a CEL rule forbids (the default would trip it)', function () {
    for (const crd of crds) {
      for (const { path, schema } of nodes(crd.spec.versions[0]!.schema.openAPIV3Schema)) {
        for (const rule of schema['x-kubernetes-validations'] ?? []) {
          for (const [, field] of rule.rule.matchAll(/!has\(self\.(\w+)\)/g)) {
            assert.equal(
              'default' in (schema.properties?.[field!] ?? {}),
              false,
              `${path}.${field}`,
            );
          }
        }
      }
    }
  });
});
