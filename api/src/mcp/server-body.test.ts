import assert from 'node:assert/strict';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { parseCreateServer, parseUpdateServer } from './server-body.js';

const managed = {
  runtime: 'managed',
  name: 'files',
  display_name: 'Files',
  image: 'ghcr.io/a/b:1',
  port: 8080,
};
const remote = {
  runtime: 'remote',
  name: 'docs',
  display_name: 'Docs',
  address: 'https://mcp.example.com/mcp',
};

function fieldsOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ValidationFailed, `expected 422, got ${String(err)}`);
    return err.fields;
  }
  assert.fail('accepted');
}

describe('parseCreateServer', () => {
  it('accepts the smallest managed and remote bodies', () => {
    assert.equal(parseCreateServer(managed).runtime, 'managed');
    assert.equal(parseCreateServer(remote).runtime, 'remote');
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ['runtime is missing', { ...managed, runtime: undefined }, 'runtime'],
    ['runtime is unknown', { ...managed, runtime: 'local' }, 'runtime'],
    ['name is missing', { ...managed, name: undefined }, 'name'],
    ['name is not a DNS label', { ...managed, name: 'Files_1' }, 'name'],
    ['name ends with a dash', { ...managed, name: 'files-' }, 'name'],
    ['name has 64 characters', { ...managed, name: 'a'.repeat(64) }, 'name'],
    ['display_name is empty', { ...managed, display_name: '' }, 'display_name'],
    [
      'display_name has 201 characters',
      { ...managed, display_name: 'a'.repeat(201) },
      'display_name',
    ],
    ['description has 501 characters', { ...managed, description: 'a'.repeat(501) }, 'description'],
    ['tool_allowlist is not a list', { ...managed, tool_allowlist: 'echo' }, 'tool_allowlist'],
    ['a tool_allowlist entry is empty', { ...managed, tool_allowlist: [''] }, 'tool_allowlist[0]'],
    ['image is missing', { ...managed, image: undefined }, 'image'],
    ['image has 513 characters', { ...managed, image: `ghcr.io/${'a'.repeat(505)}` }, 'image'],
    ['port is 0', { ...managed, port: 0 }, 'port'],
    ['port is 65536', { ...managed, port: 65536 }, 'port'],
    ['port is a string', { ...managed, port: '8080' }, 'port'],
    ['port is fractional', { ...managed, port: 80.5 }, 'port'],
    ['path does not start with /', { ...managed, path: 'mcp' }, 'path'],
    ['arguments holds a number', { ...managed, arguments: [1] }, 'arguments[0]'],
    ['env holds a number', { ...managed, env: { A: 1 } }, 'env.A'],
    ['an env name starts with a digit', { ...managed, env: { '1A': 'x' } }, 'env.1A'],
    ['an env name has a dash', { ...managed, env: { 'A-B': 'x' } }, 'env.A-B'],
    ['resources has an unknown key', { ...managed, resources: { gpu: '1' } }, 'resources.gpu'],
    [
      'a resource is not a quantity',
      { ...managed, resources: { cpu_limit: 'lots' } },
      'resources.cpu_limit',
    ],
    [
      'security has an unknown key',
      { ...managed, security: { privileged: true } },
      'security.privileged',
    ],
    [
      'run_as_user is negative',
      { ...managed, security: { run_as_user: -1 } },
      'security.run_as_user',
    ],
    ['a managed body carries address', { ...managed, address: 'https://x.example/mcp' }, 'address'],
    ['an unknown field is sent', { ...managed, replicas: 2 }, 'replicas'],
    ['address is missing', { ...remote, address: undefined }, 'address'],
    [
      'address has 2049 characters',
      { ...remote, address: `https://x.example/${'a'.repeat(2031)}` },
      'address',
    ],
    ['a remote body carries image', { ...remote, image: 'ghcr.io/a/b:1' }, 'image'],
    ['a remote body carries env', { ...remote, env: {} }, 'env'],
    ['a remote body carries port', { ...remote, port: 80 }, 'port'],
  ];
  for (const [what, body, field] of refused) {
    it(`answers 422 naming ${field} when ${what}`, () => {
      const fields = fieldsOf(() => parseCreateServer(JSON.parse(JSON.stringify(body))));
      assert.ok(
        fields.some((f) => f.field === field),
        `no error names ${field}: ${JSON.stringify(fields)}`,
      );
    });
  }

  it('says that a field belongs to the other runtime', () => {
    const fields = fieldsOf(() => parseCreateServer({ ...remote, image: 'ghcr.io/a/b:1' }));
    assert.match(fields.find((f) => f.field === 'image')?.message ?? '', /managed runtime/);
  });

  it('accepts every managed field at its limits', () => {
    const body = parseCreateServer({
      ...managed,
      name: 'a'.repeat(63),
      display_name: 'd'.repeat(200),
      description: 'x'.repeat(500),
      port: 65535,
      path: '/',
      arguments: ['--port', '8080'],
      env: { _A: '1', b9: '' },
      resources: {
        cpu_request: '100m',
        memory_request: '128Mi',
        cpu_limit: null,
        memory_limit: '1.5Gi',
      },
      security: {
        run_as_non_root: true,
        run_as_user: 65532,
        run_as_group: null,
        read_only_root_filesystem: false,
      },
      tool_allowlist: ['echo'],
    });
    assert.equal(body.runtime, 'managed');
  });
});

describe('parseUpdateServer', () => {
  it('refuses name with 422 and points to display_name', () => {
    const fields = fieldsOf(() => parseUpdateServer({ name: 'other' }, 'managed'));
    assert.equal(fields[0]?.field, 'name');
    assert.match(fields[0]?.message ?? '', /display_name/);
  });

  const mismatches: [string, Record<string, unknown>, 'managed' | 'remote'][] = [
    ['runtime names the other runtime', { runtime: 'remote' }, 'managed'],
    ['a managed server gets an address', { address: 'https://x.example/mcp' }, 'managed'],
    ['a remote server gets an image', { image: 'ghcr.io/a/b:1' }, 'remote'],
    ['a remote server gets env', { env: { A: 'b' } }, 'remote'],
  ];
  for (const [what, body, stored] of mismatches) {
    it(`answers 400 mcp_server_runtime_mismatch when ${what}`, () => {
      assert.throws(
        () => parseUpdateServer(body, stored),
        (err: unknown) => err instanceof ApiError && err.code === 'mcp_server_runtime_mismatch',
      );
    });
  }

  it('answers 422 for a body mixing both runtimes’ fields, naming the foreign one', () => {
    const fields = fieldsOf(() =>
      parseUpdateServer({ image: 'ghcr.io/a/b:1', address: 'https://x.example/mcp' }, 'managed'),
    );
    assert.equal(
      fields.find((f) => f.field === 'address')?.message,
      'belongs to the remote runtime, not managed',
    );
  });

  it('answers 422 for an unknown runtime on update', () => {
    assert.equal(
      fieldsOf(() => parseUpdateServer({ runtime: 'bogus' }, 'managed'))[0]?.field,
      'runtime',
    );
  });

  it('accepts an empty update and keeps the stored runtime', () => {
    assert.deepEqual(parseUpdateServer({}, 'remote'), { runtime: 'remote' });
  });

  it('accepts env null, {} and entries', () => {
    assert.equal(parseUpdateServer({ env: null }, 'managed').runtime, 'managed');
    assert.deepEqual((parseUpdateServer({ env: {} }, 'managed') as { env?: unknown }).env, {});
  });

  it('refuses an unknown field with 422', () => {
    assert.equal(
      fieldsOf(() => parseUpdateServer({ colour: 'red' }, 'remote'))[0]?.field,
      'colour',
    );
  });
});
