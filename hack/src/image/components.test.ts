import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../paths.js';
import { COMPONENTS, componentFor, USAGE } from './components.js';

describe('the image entry point choosing a component', () => {
  const cases: { args: string[]; expected: string | undefined }[] = [
    { args: ['api'], expected: 'api' },
    { args: ['gateway'], expected: 'gateway' },
    { args: ['operator'], expected: 'operator' },
    { args: [], expected: undefined },
    { args: ['--help'], expected: undefined },
    { args: ['-h'], expected: undefined },
    { args: ['help'], expected: undefined },
    { args: ['API'], expected: undefined },
    { args: ['worker'], expected: undefined },
    { args: ['toString'], expected: undefined },
    { args: ['__proto__'], expected: undefined },
    { args: ['api', 'gateway'], expected: undefined },
    { args: ['operator', '--verbose'], expected: undefined },
    { args: [''], expected: undefined },
  ];
  for (const { args, expected } of cases) {
    it(`${expected ? `runs ${expected}` : 'shows the usage'} for ${JSON.stringify(args)}`, () => {
      assert.equal(componentFor(args), expected);
    });
  }

  it('names every component in the usage line', () => {
    assert.equal(USAGE, 'usage: aiplane <api|gateway|operator>');
  });

  it('points every component at a main module that exists in the repository', () => {
    for (const [name, { main }] of Object.entries(COMPONENTS)) {
      assert.ok(existsSync(join(repoRoot, main)), `${name}: ${main} is missing`);
    }
  });
});
