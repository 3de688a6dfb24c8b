// Runs the extension suite when run.ts names it (newest code-server only; see package.json).
// Every workbench window has its own extension host: only the first to claim the lock runs it.
const { mkdirSync, openSync, closeSync } = require('node:fs');
const { join } = require('node:path');

exports.activate = async () => {
  const index = process.env.STUDY_BRIDGE_SUITE_INDEX;
  const out = process.env.STUDY_BRIDGE_TEST_OUT;
  if (!index || !out) return;
  try {
    mkdirSync(out, { recursive: true });
    closeSync(openSync(join(out, 'harness.lock'), 'wx'));
  } catch {
    return; // another window's extension host runs the suite
  }
  await require(index).run();
};
exports.deactivate = () => undefined;
