// Mocha's spec reporter plus one closing line, "<suite>: N passed, N failed, N skipped",
// so that the CI reads the outcome without knowing mocha's own wording. With
// AIPLANE_TEST_TIMINGS=<file> it also writes each test file's wall time there (slowest
// first), to see where a run's minutes go.
'use strict';
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const label = (options.reporterOption && options.reporterOption.label) || 'mocha';
    const timingsFile = process.env.AIPLANE_TEST_TIMINGS;
    const started = new Map();
    const byFile = new Map();
    if (timingsFile) {
      runner.on(EVENT_SUITE_BEGIN, (suite) => {
        if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
      });
      runner.on(EVENT_SUITE_END, (suite) => {
        const t = started.get(suite);
        if (t === undefined) return;
        const file = relative(process.cwd(), suite.file);
        byFile.set(file, (byFile.get(file) || 0) + Date.now() - t);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      process.stdout.write(
        `\n${label}: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`,
      );
      if (timingsFile) {
        const lines = [...byFile]
          .sort((a, b) => b[1] - a[1])
          .map(([f, ms]) => `${(ms / 1000).toFixed(1)}s\t${f}`);
        writeFileSync(timingsFile, `${lines.join('\n')}\n`);
      }
    });
  }
}
module.exports = SummaryReporter;
