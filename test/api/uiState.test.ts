import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

/**
 * The contract: effective within about 1.5 s, read back after 2 s (the answer says so: appliesAfterMs,
 * reconcileAfterSeconds). The tests wait for the queued patches themselves (settled) rather than 2 s each: a
 * patch queued by mistake is waited for all the same, so a refusal that still applied is seen.
 */

describe('UI state', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let dataDir: string;
  const apply = (state: Record<string, unknown>) => t.client.call('POST /ui-state/apply', { body: { state } });
  const read = async () => (await t.client.call('GET /ui-state')).state;
  const settled = () => t.bridge.services.uiState.settled();

  before(async () => {
    dataDir = tempDir();
    t = await startBridge({ dataDir });
  });
  after(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a new library has an empty bookmark', async () => {
    assert.deepEqual(await read(), {});
  });

  it('with no set open: topicid is rejected, the other keys still apply', async () => {
    const r = await apply({ immersive: true });
    assert.equal(r.queued, true);
    assert.deepEqual(r.keys.immersive, { status: 'accepted' });
    assert.equal(r.keys.topicid.status, 'rejected');
    assert.match(r.keys.topicid.reason ?? '', /no study set is open/i);
    assert.ok(r.appliesAfterMs <= 1500, `applies after ${r.appliesAfterMs} ms`);
    assert.equal(r.reconcileAfterSeconds, 2);
    await settled();
    assert.deepEqual(await read(), { immersive: true });
  });

  it('a patch with every kind of key: accepted, conditional, rejected; read back once applied; the set opens', async () => {
    const set = await t.client.createStudySet('Bookmarked');
    const wrapped = { _jsonvalueType: 'NSDictionary', value: { ratio: [0.3, 0.7], mode: 2 } };
    const r = await apply({
      topicid: set.topicid.toLowerCase(),
      theme: 'dark',
      panelratio: 0.4,
      research: true,
      researchurl: 'https://example.org/search?q=eigen',
      splitinfo: wrapped,
      aichat: false,
      review: { _jsonvalueType: 'NSNumber', value: 1 },
      play: true,
      doclayerid: 'new',
      colour: 'red',
    });
    assert.deepEqual(r.keys, {
      topicid: { status: 'accepted' },
      theme: { status: 'accepted' },
      panelratio: { status: 'accepted' },
      research: { status: 'accepted' },
      researchurl: { status: 'accepted' },
      splitinfo: { status: 'accepted' },
      aichat: { status: 'accepted' },
      review: { status: 'accepted' },
      play: { status: 'rejected', reason: r.keys.play.reason },
      doclayerid: { status: 'rejected', reason: r.keys.doclayerid.reason },
      colour: { status: 'rejected', reason: r.keys.colour.reason },
    });
    assert.match(r.keys.colour.reason ?? '', /unknown/i);
    assert.equal(r.topicid, set.topicid);
    await settled();
    assert.deepEqual(await read(), {
      immersive: true, // from the earlier patch: missing keys stay
      topicid: set.topicid,
      theme: 'dark',
      panelratio: 0.4,
      research: true,
      researchurl: 'https://example.org/search?q=eigen',
      splitinfo: wrapped,
      aichat: false,
      review: { _jsonvalueType: 'NSNumber', value: 1 },
    });
    const ctx = await t.client.call('GET /context');
    assert.equal(ctx.studySet?.topicid, set.topicid);
  });

  it('topicid missing from the patch is filled with the open set', async () => {
    const open = (await t.client.call('GET /context')).studySet?.topicid;
    const r = await apply({ immersive: false });
    assert.equal(r.keys.topicid.status, 'accepted');
    assert.match(r.keys.topicid.reason ?? '', /filled/);
    assert.equal(r.topicid, open);
    await settled();
    const s = await read();
    assert.equal(s.immersive, false);
    assert.equal(s.topicid, open);
  });

  it('researchurl without research:true is conditional and skipped', async () => {
    await apply({ research: false });
    await settled();
    const r = await apply({ researchurl: 'https://example.com/other' });
    assert.equal(r.keys.researchurl.status, 'conditional');
    assert.match(r.keys.researchurl.reason ?? '', /research:true/);
    await settled();
    const s = await read();
    assert.equal(s.research, false);
    assert.equal(s.researchurl, 'https://example.org/search?q=eigen', 'the earlier URL stays');
  });

  it('booklocation opens a library document at its page; an unknown document is rejected', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const text of ['one', 'two'])
      doc.addPage([200, 200]).drawText(`Page ${text}`, { x: 20, y: 100, size: 12, font });
    const up = await t.client.uploadDocument(await doc.save(), { filename: 'two-pages.pdf' });
    await t.bridge.services.extraction.whenReady(up.bookmd5);
    const bad = await apply({ booklocation: { bookmd5: '0'.repeat(32), page: 1 } });
    assert.equal(bad.keys.booklocation.status, 'rejected');
    const r = await apply({ booklocation: { bookmd5: up.bookmd5, page: 2 } });
    assert.equal(r.keys.booklocation.status, 'accepted');
    await settled();
    assert.deepEqual((await read()).booklocation, { bookmd5: up.bookmd5, page: 2 });
    const ctx = await t.client.call('GET /context');
    assert.deepEqual([ctx.currentPage?.bookmd5, ctx.currentPage?.page], [up.bookmd5, 2]);
  });

  it('refusals (bad body, bad values, no token) change nothing', async () => {
    const before = storeDigest(t.bridge.services.store);
    const stateBefore = await read();
    for (const body of [
      {},
      { state: {} },
      { state: 'dark' },
      { state: [1] },
      { state: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) },
    ]) {
      const res = await t.client.raw('POST', '/ui-state/apply', { body });
      assert.equal(res.status, 422, JSON.stringify(body).slice(0, 60));
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
    }
    // Every key refused: queued, nothing to apply.
    const r = await apply({
      play: true,
      doclayerid: 'new',
      panelratio: 3,
      research: 'yes',
      researchurl: 'ftp://x',
      booklocation: { bookmd5: 'nope' },
    });
    for (const k of ['play', 'doclayerid', 'panelratio', 'research', 'researchurl', 'booklocation'])
      assert.equal(r.keys[k].status, 'rejected', k);
    assert.equal((await t.anonymous.raw('GET', '/ui-state')).status, 401);
    assert.equal(
      (await t.anonymous.raw('POST', '/ui-state/apply', { body: { state: { immersive: true } } })).status,
      401,
    );
    await settled();
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.deepEqual(await read(), stateBefore);
  });

  it('the bookmark survives a restart (headless keeps it in the store)', async () => {
    const s = await read();
    await t.stop();
    t = await startBridge({ dataDir });
    const { topicid: _open, ...rest } = s;
    const after = await read();
    assert.deepEqual({ ...after, topicid: undefined }, { ...rest, topicid: undefined });
    assert.equal(after.topicid, s.topicid, 'the stored topicid (nothing is open after a restart)');
  });
});

describe('UI state without premium', function () {
  this.timeout(30_000);
  let t: TestBridge;
  before(async () => (t = await startBridge({ premium: false })));
  after(() => t.stop());

  it('GET is free; apply answers 403 MAX_REQUIRED and changes nothing', async () => {
    const before = storeDigest(t.bridge.services.store);
    assert.deepEqual((await t.client.call('GET /ui-state')).state, {});
    const res = await t.client.raw('POST', '/ui-state/apply', { body: { state: { immersive: true } } });
    assert.equal(res.status, 403);
    assert.equal(res.json<any>().error.code, 'MAX_REQUIRED');
    await t.bridge.services.uiState.settled();
    assert.deepEqual((await t.client.call('GET /ui-state')).state, {});
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
