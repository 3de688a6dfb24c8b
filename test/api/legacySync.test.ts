import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

/** A small real PDF (distinct bytes per label). */
async function tinyPdf(label: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  page.drawText(label, { x: 20, y: 100, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('legacy sync diagnostics', function () {
  this.timeout(90_000);
  let t: TestBridge;
  let setId: string;
  let a: { bytes: Uint8Array; id: string };
  let b: { bytes: Uint8Array; id: string };
  const events = (after = 0, limit?: number) =>
    t.client.call('GET /sync/legacy/events', {
      query: { afterSequence: String(after), ...(limit ? { limit: String(limit) } : {}) },
    });
  const allEvents = async (after = 0) => (await events(after, 200)).events;
  const inventory = async () => (await t.client.call('POST /sync/legacy/inventory', { body: {} })).items;
  const stateOf = async (id: string) => (await inventory()).find((i) => i.bookmd5 === id)?.state;
  const libFile = (rel: string) => join(t.dataDir, 'library', rel);

  before(async () => {
    t = await startBridge();
    setId = (await t.client.createStudySet('Sync')).topicid;
    const ab = await tinyPdf('Alpha');
    const bb = await tinyPdf('Bravo');
    a = {
      bytes: ab,
      id: (await t.client.uploadDocument(ab, { filename: 'alpha.pdf', folder: 'Books', topicid: setId })).bookmd5,
    };
    b = { bytes: bb, id: (await t.client.uploadDocument(bb, { filename: 'bravo.pdf' })).bookmd5 };
    for (const id of [a.id, b.id]) await t.bridge.services.extraction.whenReady(id);
  });
  after(() => t.stop());

  it('a fresh library: no errors, watching, the bridge’s own uploads log nothing', async () => {
    await sleep(1500); // past the watcher's debounce and settle time
    await t.bridge.services.legacySync.watcher.settled();
    const s = await t.client.call('GET /sync/legacy/status');
    assert.equal(s.errorCount, 0);
    assert.equal(s.suspended, false);
    assert.equal(s.suspensionNeedsAttention, false);
    assert.equal(s.suspensionErrorCount, 0);
    assert.equal(s.watching, true);
    assert.equal(s.lastSequence, 0, 'uploads through the bridge are not sync events');
    assert.deepEqual(
      [s.documents.total, s.documents.observed, s.documents.missingFile, s.documents.possibleMismatch],
      [2, 2, 0, 0],
    );
    const inv = await t.client.call('POST /sync/legacy/inventory', { body: {} });
    assert.equal(inv.observeOnly, true);
    assert.deepEqual(
      inv.items.map((i) => [i.bookmd5, i.path, i.state, i.size]).sort(),
      [
        [a.id, 'Books/alpha.pdf', 'observed', a.bytes.length],
        [b.id, 'bravo.pdf', 'observed', b.bytes.length],
      ].sort(),
    );
    assert.equal(inv.nextCursor, null);
  });

  it('a library file deleted on disk: an event, missing_file in the set, sync-status and inventory', async () => {
    rmSync(libFile('Books/alpha.pdf'));
    const ev = await waitFor('file_removed', async () => (await allEvents()).find((e) => e.kind === 'file_removed'));
    assert.equal(ev.bookmd5, a.id);
    assert.equal(ev.path, 'Books/alpha.pdf');
    assert.ok(ev.sequence >= 1 && typeof ev.at === 'string');
    const docs = await t.client.studySetDocuments(setId);
    assert.equal(docs.find((d) => d.bookmd5 === a.id)?.sourceState, 'missing_file');
    const ss = await t.client.call('GET /documents/{id}/sync-status', { params: { id: a.id } });
    assert.equal(ss.state, 'missing_file');
    assert.equal(await stateOf(a.id), 'missing_file');
    const s = await t.client.call('GET /sync/legacy/status');
    assert.equal(s.errorCount, 1);
    assert.equal(s.documents.missingFile, 1);
    assert.equal(s.lastSequence, ev.sequence);
  });

  it('the file put back: file_added (restored), observed again', async () => {
    writeFileSync(libFile('Books/alpha.pdf'), a.bytes);
    const ev = await waitFor('file_added', async () =>
      (await allEvents()).find((e) => e.kind === 'file_added' && e.bookmd5 === a.id),
    );
    assert.equal(ev.details.restored, true);
    assert.equal(ev.details.sizeMatchesRecord, true);
    assert.equal(await stateOf(a.id), 'observed');
    assert.equal((await t.client.studySetDocuments(setId)).find((d) => d.bookmd5 === a.id)?.sourceState, 'normal');
  });

  it('a file changed behind the bridge: file_changed, possible_mismatch', async () => {
    appendFileSync(libFile('bravo.pdf'), '\n% edited elsewhere\n');
    const ev = await waitFor('file_changed', async () =>
      (await allEvents()).find((e) => e.kind === 'file_changed' && e.bookmd5 === b.id),
    );
    assert.equal(ev.details.recordedSize, b.bytes.length);
    assert.ok((ev.details.size as number) > b.bytes.length);
    assert.equal(await stateOf(b.id), 'possible_mismatch');
  });

  it('an untracked file dropped into the library: file_added without a bookmd5', async () => {
    mkdirSync(libFile('Loose'), { recursive: true });
    writeFileSync(libFile('Loose/stray.pdf'), 'not tracked');
    const ev = await waitFor('untracked file_added', async () =>
      (await allEvents()).find((e) => e.kind === 'file_added' && e.path === 'Loose/stray.pdf'),
    );
    assert.equal(ev.bookmd5, undefined);
    assert.equal(ev.details.tracked, false);
  });

  it('recheck re-hashes every file in the background and logs what it finds', async () => {
    const before = (await t.client.call('GET /sync/legacy/status')).lastSequence;
    const r = await t.client.call('POST /sync/legacy/recheck', { body: { database: true, documents: true } });
    assert.equal(r.accepted, true);
    assert.match(r.operationId, /^[0-9A-F-]{36}$/);
    assert.equal(r.startSequence, before);
    const finished = await waitFor('recheck_finished', async () =>
      (await allEvents(r.startSequence)).find((e) => e.kind === 'recheck_finished'),
    );
    const log = await allEvents(r.startSequence);
    assert.equal(log[0].kind, 'recheck_started');
    assert.equal(log[0].details.operationId, r.operationId);
    const verified = log.find((e) => e.kind === 'file_verified');
    const mismatch = log.find((e) => e.kind === 'file_mismatch');
    assert.equal(verified?.bookmd5, a.id);
    assert.equal(mismatch?.bookmd5, b.id);
    assert.equal(mismatch.details.actualMd5, md5(readFileSync(libFile('bravo.pdf'))));
    assert.deepEqual(
      log.filter((e) => e.kind === 'file_untracked').map((e) => e.path),
      ['Loose/stray.pdf'],
    );
    assert.deepEqual(
      [finished.details.verified, finished.details.mismatched, finished.details.missing, finished.details.untracked],
      [1, 1, 0, 1],
    );
    const s = await t.client.call('GET /sync/legacy/status');
    assert.equal(s.suspensionErrorCount, 1, 'this cycle: the mismatch');
    assert.equal(s.errorCount, 2, 'history: the removal and the mismatch');
    assert.equal(s.documents.lastRecheck?.operationId, r.operationId);
    assert.equal(s.documents.lastRecheck?.finished, true);
    assert.equal(await stateOf(a.id), 'observed');
    assert.equal(await stateOf(b.id), 'possible_mismatch');
  });

  it('a recheck of the database lane alone hashes nothing', async () => {
    const r = await t.client.call('POST /sync/legacy/recheck', { body: { documents: false } });
    const finished = await waitFor('recheck_finished', async () =>
      (await allEvents(r.startSequence)).find((e) => e.kind === 'recheck_finished'),
    );
    const log = await allEvents(r.startSequence);
    assert.equal(log.filter((e) => e.kind === 'file_verified' || e.kind === 'file_mismatch').length, 0);
    assert.equal(finished.details.present, 2);
  });

  it('events page with lastSequence and hasMore', async () => {
    const all = await allEvents();
    assert.ok(all.length >= 6);
    assert.deepEqual(
      all.map((e) => e.sequence),
      all.map((_e, i) => i + 1),
      'sequences are 1, 2, 3… without gaps',
    );
    const seen: number[] = [];
    let cursor = 0;
    for (let guard = 0; guard < 50; guard++) {
      const p = await events(cursor, 2);
      seen.push(...p.events.map((e) => e.sequence));
      assert.equal(p.historyTruncated, false);
      assert.equal(p.cursorAhead, false);
      cursor = p.lastSequence;
      if (!p.hasMore) break;
      assert.equal(p.events.length, 2);
    }
    assert.deepEqual(
      seen,
      all.map((e) => e.sequence),
    );
    const def = await t.client.call('GET /sync/legacy/events');
    assert.equal(def.events.length, Math.min(50, all.length), 'default: afterSequence 0, limit 50');
  });

  it('cursorAhead, cursorAdvancedPastGap and historyTruncated', async () => {
    const s = await t.client.call('GET /sync/legacy/status');
    const last = s.lastSequence;
    const ahead = await events(last + 5);
    assert.deepEqual([ahead.events, ahead.cursorAhead, ahead.lastSequence, ahead.hasMore], [[], true, last, false]);

    // Withdraw the two newest rows: their numbers stay used, the cursor skips them once.
    await t.bridge.services.store.write((tx) => tx.run('DELETE FROM sync_events WHERE seq > ?', [last - 2]));
    const gap = await events(last - 4);
    assert.deepEqual(
      gap.events.map((e) => e.sequence),
      [last - 3, last - 2],
    );
    assert.equal(gap.lastSequence, last);
    assert.equal(gap.cursorAdvancedPastGap, true);
    const empty = await events(last);
    assert.deepEqual([empty.events.length, empty.cursorAdvancedPastGap, empty.cursorAhead], [0, false, false]);

    const log = t.bridge.services.legacySync.log;
    await t.bridge.services.store.write((tx) => log.pruneTx(tx, 3));
    const truncated = await events(0, 200);
    assert.equal(truncated.historyTruncated, true);
    assert.equal(
      truncated.events[0].sequence,
      last - 4,
      'the three newest rows are kept (the two newest were withdrawn)',
    );
    assert.equal((await events(last - 5)).historyTruncated, false);
  });

  it('refusals change nothing', async () => {
    await t.bridge.services.legacySync.watcher.settled();
    const before = storeDigest(t.bridge.services.store);
    const lastBefore = (await t.client.call('GET /sync/legacy/status')).lastSequence;
    const bad: Array<[string, string, Record<string, unknown>, number, string]> = [
      ['GET', '/sync/legacy/events?limit=0', {}, 422, 'INVALID_INPUT'],
      ['GET', '/sync/legacy/events?limit=201', {}, 422, 'INVALID_INPUT'],
      ['GET', '/sync/legacy/events?limit=abc', {}, 422, 'INVALID_INPUT'],
      ['GET', '/sync/legacy/events?afterSequence=-1', {}, 422, 'INVALID_INPUT'],
      ['GET', '/sync/legacy/events?afterSequence=1.5', {}, 422, 'INVALID_INPUT'],
      ['POST', '/sync/legacy/inventory', { limit: 0 }, 422, 'INVALID_INPUT'],
      ['POST', '/sync/legacy/inventory', { limit: 201 }, 422, 'INVALID_INPUT'],
      ['POST', '/sync/legacy/inventory', { cursor: 'not-a-cursor' }, 422, 'INVALID_INPUT'],
      ['POST', '/sync/legacy/recheck', { database: false, documents: false }, 422, 'NOTHING_TO_RECHECK'],
      ['POST', '/sync/legacy/recheck', { documents: 'yes' }, 422, 'INVALID_INPUT'],
    ];
    for (const [method, path, body, status, code] of bad) {
      const [p, q] = path.split('?');
      const query = Object.fromEntries(new URLSearchParams(q ?? ''));
      const res = await t.client.raw(method as 'GET' | 'POST', p, { query, ...(method === 'POST' ? { body } : {}) });
      assert.equal(res.status, status, `${method} ${path}`);
      assert.equal(res.json<any>().error.code, code, `${method} ${path}`);
    }
    for (const p of ['/sync/legacy/status', '/sync/legacy/events'])
      assert.equal((await t.anonymous.raw('GET', p)).status, 401);
    assert.equal((await t.anonymous.raw('POST', '/sync/legacy/recheck', { body: {} })).status, 401);
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.equal((await t.client.call('GET /sync/legacy/status')).lastSequence, lastBefore, 'no event logged');
  });

  it('inventory pages with nextCursor', async () => {
    const first = await t.client.call('POST /sync/legacy/inventory', { body: { limit: 1 } });
    assert.equal(first.items.length, 1);
    assert.equal(first.nextCursor, first.items[0].bookmd5);
    const second = await t.client.call('POST /sync/legacy/inventory', { body: { limit: 1, cursor: first.nextCursor } });
    assert.equal(second.items.length, 1);
    assert.equal(second.nextCursor, null);
    assert.deepEqual([first.items[0].bookmd5, second.items[0].bookmd5].sort(), [a.id, b.id].sort());
  });
});

describe('legacy sync across restarts and without premium', function () {
  this.timeout(60_000);

  it('a file removed while the bridge was down is logged once, at the next start; the routes are free', async () => {
    const dataDir = tempDir();
    try {
      let t = await startBridge({ dataDir, premium: false });
      const bytes = await tinyPdf('Charlie');
      const id = md5(bytes);
      // Upload needs premium: the document row and file are put in place as an upload would.
      writeFileSync(join(dataDir, 'library', 'charlie.pdf'), bytes);
      await t.bridge.services.store.write((tx) =>
        tx.run(
          `INSERT INTO documents(bookmd5, filename, folder, size, page_count, extraction_state, added_at, modified_at) VALUES (?, 'charlie.pdf', '', ?, 1, 'ready', 'x', 'x')`,
          [id, bytes.length],
        ),
      );
      const watcher = t.bridge.services.legacySync.watcher;
      await t.stop();
      assert.equal(watcher.watching, false, 'the watcher stops with the bridge');
      rmSync(join(dataDir, 'library', 'charlie.pdf'));

      t = await startBridge({ dataDir, premium: false });
      const ev = await waitFor('startup file_removed', async () =>
        (await t.client.call('GET /sync/legacy/events')).events.find((e) => e.kind === 'file_removed'),
      );
      assert.equal(ev.bookmd5, id);
      assert.equal(ev.details.detectedAt, 'startup');
      const r = await t.client.raw('POST', '/sync/legacy/recheck', { body: {} });
      assert.equal(r.status, 200, 'recheck needs no premium');
      await waitFor('recheck_finished', async () =>
        (await t.client.call('GET /sync/legacy/events')).events.find((e) => e.kind === 'recheck_finished'),
      );
      const last = (await t.client.call('GET /sync/legacy/status')).lastSequence;
      await t.stop();

      t = await startBridge({ dataDir, premium: false });
      await sleep(500);
      await t.bridge.services.legacySync.watcher.settled();
      const again = await t.client.call('GET /sync/legacy/events', { query: { afterSequence: String(last) } });
      assert.deepEqual(again.events, [], 'nothing new: the removal is not logged twice');
      await t.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
