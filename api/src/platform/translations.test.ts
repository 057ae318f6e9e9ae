import assert from 'node:assert/strict';
import { fieldsOf as fields } from '@aiplane/lib/testing';
import { canonicalLanguage, parseChanges, TRANSLATION_LIMITS } from './translations.js';

describe('translation overrides (pure rules)', () => {
  it('canonicalises BCP 47 tags and refuses what is not one', () => {
    assert.equal(canonicalLanguage('de'), 'de');
    assert.equal(canonicalLanguage('PT-br'), 'pt-BR');
    assert.equal(canonicalLanguage('zh-hant-tw'), 'zh-Hant-TW');
    for (const bad of ['', 'not_a_tag', 'e', 'x'.repeat(40), 'de DE']) {
      assert.deepEqual(
        fields(() => canonicalLanguage(bad)),
        ['language'],
        bad,
      );
    }
  });

  it('reads sets and removals, and names every offending field at once', () => {
    assert.deepEqual(parseChanges({ common: { save: 'Sichern', cancel: null } }), [
      { namespace: 'common', key: 'save', value: 'Sichern' },
      { namespace: 'common', key: 'cancel', value: null },
    ]);
    assert.deepEqual(
      fields(() =>
        parseChanges({
          common: { n: 1, o: {}, ok: 'v', [`bad\u0007`]: 'v' },
          '-x': { k: 'v' },
          list: [],
        }),
      ),
      ['common.n', 'common.o', 'common.bad\u0007', '-x', 'list'],
    );
    assert.deepEqual(
      fields(() => parseChanges(null)),
      [''],
    );
  });

  it('bounds values and the number of keys per request', () => {
    const long = 'x'.repeat(TRANSLATION_LIMITS.valueLength + 1);
    assert.deepEqual(
      fields(() => parseChanges({ a: { k: long } })),
      ['a.k'],
    );
    const many = Object.fromEntries(
      Array.from({ length: TRANSLATION_LIMITS.changesPerRequest + 1 }, (_, i) => [`k${i}`, 'v']),
    );
    assert.deepEqual(
      fields(() => parseChanges({ a: many })),
      [''],
    );
  });
});
