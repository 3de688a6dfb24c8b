// Ending a busy PDF worker. Node 20 aborts the whole process when a worker is torn down while it makes a zlib handle
// (fixed in 22), and a pdf.js worker reading a book inflates all the time: there a busy worker is asked to quit at
// its next turn (exit code 0) rather than torn down (exit code 1). CI closed a bridge mid-prepare and lost the run.
import assert from 'node:assert/strict';
import { defaultBudget } from '../../src/server/ground/pdf/extractionBudget';
import { WorkerSlot } from '../../src/server/ground/pdf/workerSlot';
import type { WorkerResponse } from '../../src/server/ground/pdf/workerProtocol';
import { corpusFile } from './pdfCorpus';

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** A worker reading a 59-page book, resolved once its first page came: it is busy inflating the next ones. */
async function busySlot(): Promise<WorkerSlot> {
  let firstPage!: () => void;
  const reading = new Promise<void>((r) => (firstPage = r));
  const slot = new WorkerSlot(defaultBudget, { free: () => undefined, gone: () => undefined });
  const pages = Array.from({ length: 59 }, (_, i) => i + 1);
  slot.start(
    {
      req: { kind: 'pages', source: { key: 'manual', path: corpusFile('4ti2_manual.pdf') }, pages, ocr: false },
      onMessage: (m: WorkerResponse) => m.kind === 'page' && firstPage(),
      resolve: () => undefined,
      reject: () => undefined,
    },
    1,
  );
  await reading;
  return slot;
}

describe('ending a busy PDF worker (real worker, real pdf.js)', function () {
  this.timeout(120_000);

  it(`${nodeMajor < 22 ? 'quits after its page (exit 0)' : 'is torn down (exit 1)'} on Node ${nodeMajor}, mid-book`, async () => {
    const slot = await busySlot();
    assert.ok(slot.busy, 'still reading when asked to end');
    assert.equal(await slot.terminate(), nodeMajor < 22 ? 0 : 1);
  });

  // Five, not twenty (each cycle starts pdf.js in a worker, ~1 s; the suite runs on three Nodes): the test above is the
  // one that fails when a busy worker is torn down on Node 20 (exit 1, not 0). Torn down hard, twenty cycles on Node 20
  // did not abort here either, so more of them bought no detection, only time.
  it('five busy workers ended one after another: this process lives on', async () => {
    for (let i = 0; i < 5; i++) await (await busySlot()).terminate();
  });
});
