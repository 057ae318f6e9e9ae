import assert from 'node:assert/strict';
import { compileCel, toCelValue } from './cel.js';

describe('CEL evaluation with apiserver semantics', function () {
  it('hides null-valued fields from has(), as the apiserver does for nullable fields', function () {
    const run = compileCel('!has(self.image)');
    assert.deepEqual(run({ image: null }), { ok: true });
    assert.deepEqual(run({ image: 'x' }), { ok: false });
  });

  it('presents JSON integers as CEL ints', function () {
    assert.deepEqual(toCelValue({ port: 80, ratio: 0.5, list: [1] }), {
      port: 80n,
      ratio: 0.5,
      list: [1n],
    });
    assert.deepEqual(compileCel('self.port == 80')({ port: 80 }), { ok: true });
  });

  it('compares a value with the old one for transition rules', function () {
    const run = compileCel('self == oldSelf');
    assert.deepEqual(run('managed', 'managed'), { ok: true });
    assert.deepEqual(run('remote', 'managed'), { ok: false });
  });

  it('throws on a rule that does not parse', function () {
    assert.throws(() => compileCel("self.runtime == 'managed' ||"), /Unexpected/);
  });

  it('reports a rule that fails to evaluate instead of passing it', function () {
    const outcome = compileCel("self.runtime == 'managed'")({});
    assert.equal(outcome.ok, false);
    assert.match((!outcome.ok && outcome.error) || '', /No such key: runtime/);
  });
});
