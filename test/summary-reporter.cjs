// Mocha's spec reporter plus one closing line, "<suite>: N passed, N failed, N skipped",
// so that the CI reads the outcome without knowing mocha's own wording.
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const label = (options.reporterOption && options.reporterOption.label) || 'mocha';
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      process.stdout.write(
        `\n${label}: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`,
      );
    });
  }
}
module.exports = SummaryReporter;
