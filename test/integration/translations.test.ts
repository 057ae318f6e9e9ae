import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  queryRows,
  startTestApi,
  type DevUser,
  type TestApi,
} from './api-helpers.js';
import { caller, type Call } from './fixtures/index.js';

describe('translations: per-organization overrides (GET, PATCH, reset)', function () {
  let api: TestApi;
  let acme: string;
  // A platform admin may act in any organization named by id: a second one for isolation.
  const other = randomUUID();
  const as = (user: DevUser, organizationId = acme): Call => caller(api.url, user, organizationId);

  before(async function () {
    api = await startTestApi('translations');
    acme = keycloak().organization.id;
  });

  after(async function () {
    await api?.close();
  });

  beforeEach(async function () {
    for (const org of [acme, other]) {
      assert.equal((await as('admin', org)('POST', '/v1/translations/reset')).status, 204);
    }
  });

  it('merges a partial update per language, removes a key sent as null, and reads back the nested mapping', async function () {
    const admin = as('admin');
    let r = await admin('PATCH', '/v1/translations/de', {
      common: { save: 'Speichern', cancel: 'Abbrechen' },
      chat: { title: 'Unterhaltung' },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json(), {
      chat: { title: 'Unterhaltung' },
      common: { cancel: 'Abbrechen', save: 'Speichern' },
    });
    r = await admin('PATCH', '/v1/translations/de', {
      common: { save: 'Sichern', cancel: null },
      chat: { gone: null },
    });
    assert.deepEqual(r.json(), { chat: { title: 'Unterhaltung' }, common: { save: 'Sichern' } });
    await admin('PATCH', '/v1/translations/fr', { common: { save: 'Enregistrer' } });
    // Reading needs no permission beyond can_access_api: the member reads what the admin wrote.
    r = await as('member')('GET', '/v1/translations');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json(), {
      de: { chat: { title: 'Unterhaltung' }, common: { save: 'Sichern' } },
      fr: { common: { save: 'Enregistrer' } },
    });
  });

  it('keeps each organization’s overrides apart', async function () {
    await as('admin')('PATCH', '/v1/translations/en', { common: { save: 'Save it' } });
    await as('admin', other)('PATCH', '/v1/translations/en', { common: { save: 'Keep' } });
    assert.deepEqual((await as('member')('GET', '/v1/translations')).json(), {
      en: { common: { save: 'Save it' } },
    });
    assert.deepEqual((await as('admin', other)('GET', '/v1/translations')).json(), {
      en: { common: { save: 'Keep' } },
    });
  });

  it('stores a language under its canonical BCP 47 tag', async function () {
    const r = await as('admin')('PATCH', '/v1/translations/PT-br', { common: { save: 'Salvar' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await as('admin')('GET', '/v1/translations')).json(), {
      'pt-BR': { common: { save: 'Salvar' } },
    });
  });

  it('needs can_edit_config to change or reset, and answers 403 permission_denied without it', async function () {
    const member = as('member');
    assertCode(
      await member('PATCH', '/v1/translations/de', { common: { save: 'x' } }),
      403,
      'permission_denied',
    );
    assertCode(await member('POST', '/v1/translations/reset'), 403, 'permission_denied');
    // The outsider lacks can_access_api: refused before anything else, reading included.
    assertCode(await as('outsider')('GET', '/v1/translations'), 403, 'permission_denied');
    assert.deepEqual((await as('admin')('GET', '/v1/translations')).json(), {});
  });

  it('resets one language with ?language=, or everything', async function () {
    const admin = as('admin');
    await admin('PATCH', '/v1/translations/de', { common: { save: 'Speichern' } });
    await admin('PATCH', '/v1/translations/fr', { common: { save: 'Enregistrer' } });
    assert.equal((await admin('POST', '/v1/translations/reset?language=DE')).status, 204);
    assert.deepEqual((await admin('GET', '/v1/translations')).json(), {
      fr: { common: { save: 'Enregistrer' } },
    });
    assert.equal((await admin('POST', '/v1/translations/reset')).status, 204);
    assert.deepEqual((await admin('GET', '/v1/translations')).json(), {});
    assertValidationFailed(await admin('POST', '/v1/translations/reset?lang=de'), 'lang');
    assertValidationFailed(
      await admin('POST', '/v1/translations/reset?language=not_a_tag'),
      'language',
    );
  });

  it('refuses what is not a string map with field errors, and stores nothing of a refused update', async function () {
    const admin = as('admin');
    await admin('PATCH', '/v1/translations/de', { common: { save: 'Speichern' } });
    const refusals: [Record<string, unknown> | unknown[], string][] = [
      [{ common: { save: 5 } }, 'common.save'],
      [{ common: { save: { nested: 'x' } } }, 'common.save'],
      [{ common: ['x'] }, 'common'],
      [{ 'bad namespace': { k: 'v' } }, 'bad namespace'],
      [{ common: { ['k'.repeat(257)]: 'v' } }, `common.${'k'.repeat(257)}`],
      [{ common: { save: 'x'.repeat(4097) } }, 'common.save'],
      [['not', 'an', 'object'], ''],
    ];
    for (const [body, field] of refusals) {
      // A valid change beside the invalid one: all or nothing.
      const withValid = Array.isArray(body) ? body : { ...body, other: { k: 'written?' } };
      assertValidationFailed(await admin('PATCH', '/v1/translations/de', withValid), field);
    }
    assertValidationFailed(
      await admin('PATCH', '/v1/translations/not_a_language', { common: { k: 'v' } }),
      'language',
    );
    assert.deepEqual((await admin('GET', '/v1/translations')).json(), {
      de: { common: { save: 'Speichern' } },
    });
  });

  it('refuses an update over the per-organization total as a whole, keeping what was stored', async function () {
    const admin = as('admin');
    // 10 requests of 1000 keys reach the limit of 10 000; one more key is refused.
    for (let batch = 0; batch < 10; batch++) {
      const keys = Object.fromEntries(
        Array.from({ length: 1000 }, (_, i) => [`k${batch}-${i}`, `v${i}`]),
      );
      const r = await admin('PATCH', '/v1/translations/en', { bulk: keys });
      assert.equal(r.status, 200, r.text.slice(0, 200));
    }
    const over = await admin('PATCH', '/v1/translations/de', {
      extra: { one: 'too many', two: 'too' },
    });
    assertValidationFailed(over, '');
    assert.match(over.text, /at most 10000 overrides/);
    // Changing stored keys and removing some stays possible at the limit.
    const r = await admin('PATCH', '/v1/translations/en', {
      bulk: { 'k0-0': 'changed', 'k0-1': null },
    });
    assert.equal(r.status, 200);
    const rows = await queryRows<{ n: string }>(
      api.databaseUrl,
      'select count(*) as n from translation_overrides where organization_id = $1',
      [acme],
    );
    assert.equal(Number(rows[0]?.n), 9999);
    assertValidationFailed(
      await admin('PATCH', '/v1/translations/en', {
        bulk: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`x${i}`, 'v'])),
      }),
      '',
    );
  });
});
