// Entry of the mocha suite inside the VS Code extension host (extensionTestsPath).
// Bundled by test/extension/run.ts; mocha stays external and resolves from the project.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outDir } from './signals';

interface TestResult {
  title: string;
  state: 'passed' | 'failed';
  ms: number;
  error?: string;
}

export async function run(): Promise<void> {
  // mocha 12: the module is a namespace; the class is `.Mocha`.
  const mochaModule = require('mocha') as { Mocha?: new (o: object) => MochaLike } & (new (o: object) => MochaLike);
  const MochaCtor = mochaModule.Mocha ?? mochaModule;
  const mocha = new MochaCtor({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  mkdirSync(outDir, { recursive: true });
  const logFile = join(outDir, 'suite.log');
  writeFileSync(logFile, '');
  const results: TestResult[] = [];
  const metrics: Record<string, unknown> = {};
  (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics = metrics;

  mocha.suite.emit('pre-require', globalThis, join(__dirname, 'extension.test.js'), mocha);
  // Loaded after pre-require so describe/it exist, in this order.
  // First: it restarts the bridge (worker → main → worker) while this is the only window.
  // STUDY_BRIDGE_SUITES (run.ts --suites=a,b) runs only those files.
  const only = process.env.STUDY_BRIDGE_SUITES?.split(',').filter(Boolean);
  const files: Record<string, () => unknown> = {
    eventLoop: () => require('./eventLoop.test'),
    extension: () => require('./extension.test'),
    bundles: () => require('./bundles.test'),
    review: () => require('./review.test'),
    deckOptions: () => require('./deckOptions.test'),
    // Before mindMap: it closes every editor, and the map mindMap leaves open is what the reload check restores.
    studyUi: () => require('./studyUi.test'),
    mindMap: () => require('./mindMap.test'),
    reader: () => require('./reader.test'),
    makeCard: () => require('./makeCard.test'),
    agents: () => require('./agents.test'),
    ankiConnect: () => require('./ankiConnect.test'),
    annotations: () => require('./annotations.test'),
    approvals: () => require('./approvals.test'),
    anki: () => require('./anki.test'),
    deckStats: () => require('./deckStats.test'),
  };
  for (const [name, load] of Object.entries(files)) if (!only?.length || only.includes(name)) load();

  const t0 = Date.now();
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', (t: TestLike) => {
      results.push({ title: t.fullTitle(), state: 'passed', ms: t.duration ?? 0 });
      appendFileSync(logFile, `  ✔ ${t.fullTitle()} (${t.duration ?? 0} ms)\n`);
    });
    runner.on('fail', (t: TestLike, err: Error) => {
      results.push({ title: t.fullTitle(), state: 'failed', ms: t.duration ?? 0, error: err?.stack ?? String(err) });
      appendFileSync(logFile, `  ✘ ${t.fullTitle()}\n    ${String(err?.stack ?? err).replace(/\n/g, '\n    ')}\n`);
    });
  });
  writeFileSync(
    join(outDir, 'results.json'),
    JSON.stringify({ results, metrics, ms: Date.now() - t0, pid: process.pid }, null, 2),
  );
}

interface TestLike {
  fullTitle(): string;
  duration?: number;
}
interface RunnerLike {
  on(event: string, fn: (...args: never[]) => void): RunnerLike;
}
interface MochaLike {
  suite: { emit(event: string, ...args: unknown[]): void };
  run(done: (failures: number) => void): RunnerLike;
}
