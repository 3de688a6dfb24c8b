// Mocha's dot reporter, then the slowest test files by wall time (from a file's first suite starting to its last
// ending, hooks included): what a CI minute is spent on. Used by scripts/test-node-versions.mjs.
const Mocha = require('mocha');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;
const SHOWN = 12;

class FileTimeReporter extends Mocha.reporters.Dot {
  constructor(runner, options) {
    super(runner, options);
    const spans = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && !spans.has(suite.file)) spans.set(suite.file, { from: Date.now(), to: Date.now() });
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (suite.file) spans.get(suite.file).to = Date.now();
    });
    runner.once(EVENT_RUN_END, () => {
      const rows = [...spans]
        .map(([file, s]) => ({ file: file.slice(process.cwd().length + 1), s: (s.to - s.from) / 1000 }))
        .sort((a, b) => b.s - a.s);
      const total = rows.reduce((n, r) => n + r.s, 0);
      process.stdout.write(`\n  slowest files (of ${rows.length}, ${total.toFixed(0)} s in files):\n`);
      for (const r of rows.slice(0, SHOWN)) process.stdout.write(`  ${r.s.toFixed(1).padStart(7)} s  ${r.file}\n`);
    });
  }
}

module.exports = FileTimeReporter;
