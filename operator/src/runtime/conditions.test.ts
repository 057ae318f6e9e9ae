import assert from 'node:assert/strict';
import {
  capMessage,
  type Condition,
  conditionsEqual,
  findCondition,
  setCondition,
  statusEqual,
} from './conditions.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const T1 = new Date('2026-01-01T00:05:00.456Z');

function ready(status: Condition['status'], reason = 'Provisioned'): Condition {
  return {
    type: 'Ready',
    status,
    reason,
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    observedGeneration: 1,
  };
}

describe('setCondition', () => {
  it('appends a new condition stamped with the time and generation', () => {
    const result = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting' },
      3,
      T1,
    );
    assert.deepEqual(result, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Pending',
        message: 'waiting',
        lastTransitionTime: '2026-01-01T00:05:00Z',
        observedGeneration: 3,
      },
    ]);
  });

  it('keeps lastTransitionTime when the status stays the same, even if reason and message change', () => {
    const result = setCondition(
      [ready('True')],
      { type: 'Ready', status: 'True', reason: 'StillGood', message: 'fine' },
      2,
      T1,
    );
    assert.equal(result[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(result[0]?.reason, 'StillGood');
    assert.equal(result[0]?.message, 'fine');
    assert.equal(result[0]?.observedGeneration, 2);
  });

  const flips: Array<[Condition['status'], Condition['status']]> = [
    ['True', 'False'],
    ['False', 'True'],
    ['Unknown', 'True'],
    ['True', 'Unknown'],
  ];
  for (const [from, to] of flips) {
    it(`moves lastTransitionTime when the status flips from ${from} to ${to}`, () => {
      const result = setCondition(
        [ready(from)],
        { type: 'Ready', status: to, reason: 'X', message: '' },
        1,
        T1,
      );
      assert.equal(result[0]?.lastTransitionTime, '2026-01-01T00:05:00Z');
      assert.equal(result[0]?.status, to);
    });
  }

  it('keeps the order of the other conditions and does not mutate its input', () => {
    const input: Condition[] = [
      { ...ready('True'), type: 'NamespaceReady' },
      { ...ready('False'), type: 'IdentityReady' },
      ready('False'),
    ];
    const snapshot = structuredClone(input);
    const result = setCondition(
      input,
      { type: 'IdentityReady', status: 'True', reason: 'Created', message: '' },
      4,
      T1,
    );
    assert.deepEqual(
      result.map((c) => c.type),
      ['NamespaceReady', 'IdentityReady', 'Ready'],
    );
    assert.deepEqual(input, snapshot);
    assert.equal(findCondition(result, 'IdentityReady')?.status, 'True');
    assert.equal(
      findCondition(result, 'NamespaceReady')?.observedGeneration,
      1,
      'others untouched',
    );
  });

  it('omits observedGeneration when none is given', () => {
    const [condition] = setCondition(
      [],
      { type: 'Ready', status: 'True', reason: 'R', message: '' },
      undefined,
      T0,
    );
    assert.equal(condition !== undefined && 'observedGeneration' in condition, false);
  });

  it('returns an equal array when nothing changed, so no status write follows', () => {
    const current = [ready('True')];
    const next = setCondition(
      current,
      { type: 'Ready', status: 'True', reason: 'Provisioned', message: '' },
      1,
      T1,
    );
    assert.notEqual(next, current);
    assert.equal(conditionsEqual(current, next), true);
  });
});

describe('condition messages', () => {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  const cases: { name: string; message: string; kept: number }[] = [
    { name: 'a short message', message: 'ready', kept: 5 },
    { name: 'exactly 1024 bytes', message: 'a'.repeat(1024), kept: 1024 },
    { name: 'ASCII past 1024 bytes', message: 'a'.repeat(10_240), kept: 1021 },
    // 'é' is 2 bytes: 510 of them (1020 bytes) fit before the 3-byte ellipsis, 511 do not.
    { name: 'two-byte characters', message: 'é'.repeat(5_000), kept: 510 },
    // '😀' is 4 bytes (a surrogate pair): never cut in half.
    { name: 'four-byte characters', message: `x${'😀'.repeat(1_000)}`, kept: 256 },
  ];
  for (const c of cases) {
    it(`keeps ${c.name} within 1024 bytes, cut on a character boundary with an ellipsis`, () => {
      const [condition] = setCondition(
        [],
        { type: 'Ready', status: 'False', reason: 'R', message: c.message },
        1,
        T0,
      );
      const message = condition?.message ?? '';
      assert.ok(bytes(message) <= 1024, `${bytes(message)} bytes`);
      const cut = bytes(c.message) > 1024;
      assert.equal(message.endsWith('…'), cut);
      const kept = cut ? message.slice(0, -1) : message;
      assert.equal([...kept].length, c.kept);
      assert.ok(c.message.startsWith(kept), 'a prefix of the original');
      assert.doesNotMatch(kept, /[\uD800-\uDFFF]$/u, 'no half of a surrogate pair');
    });
  }

  it('caps to another budget when asked', () => {
    assert.equal(capMessage('abcdefgh', 6), 'abc…');
  });
});

describe('conditionsEqual', () => {
  const cases: Array<{
    name: string;
    a: Condition[] | undefined;
    b: Condition[] | undefined;
    equal: boolean;
  }> = [
    { name: 'both empty or absent', a: undefined, b: [], equal: true },
    {
      name: 'the same conditions in another order',
      a: [ready('True'), { ...ready('True'), type: 'A' }],
      b: [{ ...ready('True'), type: 'A' }, ready('True')],
      equal: true,
    },
    { name: 'a different status', a: [ready('True')], b: [ready('False')], equal: false },
    {
      name: 'a different observedGeneration',
      a: [ready('True')],
      b: [{ ...ready('True'), observedGeneration: 2 }],
      equal: false,
    },
    {
      name: 'a different lastTransitionTime',
      a: [ready('True')],
      b: [{ ...ready('True'), lastTransitionTime: '2026-02-01T00:00:00Z' }],
      equal: false,
    },
    {
      name: 'an extra condition',
      a: [ready('True')],
      b: [ready('True'), { ...ready('True'), type: 'A' }],
      equal: false,
    },
  ];
  for (const { name, a, b, equal } of cases) {
    it(`says ${equal ? 'equal' : 'different'} for ${name}`, () => {
      assert.equal(conditionsEqual(a, b), equal);
    });
  }
});

describe('statusEqual', () => {
  const cases: Array<{ name: string; a: unknown; b: unknown; equal: boolean }> = [
    {
      name: 'key order',
      a: { phase: 'Ready', ready: true },
      b: { ready: true, phase: 'Ready' },
      equal: true,
    },
    {
      name: 'an undefined or null key against a missing one',
      a: { phase: 'Ready', database: undefined, url: null },
      b: { phase: 'Ready' },
      equal: true,
    },
    {
      name: 'a nested change',
      a: { services: { identity: { ready: true } } },
      b: { services: { identity: { ready: false } } },
      equal: false,
    },
    { name: 'array order', a: { list: [1, 2] }, b: { list: [2, 1] }, equal: false },
    {
      name: 'a number against a string',
      a: { observedGeneration: 1 },
      b: { observedGeneration: '1' },
      equal: false,
    },
    { name: 'a missing status against an empty one', a: undefined, b: {}, equal: false },
  ];
  for (const { name, a, b, equal } of cases) {
    it(`treats ${name} as ${equal ? 'equal' : 'different'}`, () => {
      assert.equal(statusEqual(a, b), equal);
    });
  }
});
