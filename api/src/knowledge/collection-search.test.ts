import assert from 'node:assert/strict';
import { ValidationFailed } from '@aiplane/lib/errors';
import { parseSearchRequest } from './collection-search.js';

const fieldsOf = (body: unknown): string[] => {
  try {
    parseSearchRequest(body);
  } catch (err) {
    if (err instanceof ValidationFailed) return err.fields.map((f) => f.field);
    throw err;
  }
  return [];
};

describe('collection search request (spec: Collection search filter, Errors)', function () {
  it('takes a query and filters with == and a string, in and a list of strings', function () {
    assert.deepEqual(
      parseSearchRequest({
        query: 'tides',
        filters: [
          { field: 'lang', operator: '==', value: 'en' },
          { field: 'kind', operator: 'in', value: ['note', 'memo'] },
        ],
      }),
      {
        query: 'tides',
        filters: [
          { field: 'lang', operator: '==', value: 'en' },
          { field: 'kind', operator: 'in', value: ['note', 'memo'] },
        ],
      },
    );
    assert.deepEqual(parseSearchRequest({ query: 'x' }), { query: 'x', filters: [] });
  });

  it('answers 422 naming the value for == with a list and for in with a single value', function () {
    assert.deepEqual(
      fieldsOf({ query: 'x', filters: [{ field: 'a', operator: '==', value: ['b'] }] }),
      ['filters[0].value'],
    );
    assert.deepEqual(
      fieldsOf({
        query: 'x',
        filters: [
          { field: 'a', operator: '==', value: 'b' },
          { field: 'a', operator: 'in', value: 'b' },
        ],
      }),
      ['filters[1].value'],
    );
  });

  it('answers 422 naming filters for the old raw filter string', function () {
    assert.deepEqual(fieldsOf({ query: 'x', filter: "lang == 'en'" }), ['filters']);
  });

  it('answers 422 for an unknown operator, an empty in-list, a blank or missing query', function () {
    assert.ok(
      fieldsOf({ query: 'x', filters: [{ field: 'a', operator: '!=', value: 'b' }] }).length > 0,
    );
    assert.ok(
      fieldsOf({ query: 'x', filters: [{ field: 'a', operator: 'in', value: [] }] }).length > 0,
    );
    assert.deepEqual(fieldsOf({ query: '   ' }), ['query']);
    assert.ok(fieldsOf({ filters: [] }).includes('query'));
  });
});
