import assert from 'node:assert/strict';
import {
  cardImagesFixture,
  decode,
  EXCERPT_PAGE,
  makePng,
  pixel,
  UNKNOWN,
  VERBATIM,
  type CardImagesFixture,
} from './cardImagesFixture';

const box = (x: number, y: number, width: number, height: number, extra: Record<string, unknown> = {}) => ({
  rect: { x, y, width, height },
  ...extra,
});

describe('POST /notes/{id}/image-occlusions (masks on image and PDF-excerpt cards)', function () {
  this.timeout(60_000);
  let f: CardImagesFixture;
  let card: any;
  let excerptId: string;
  before(async () => {
    f = await cardImagesFixture();
    card = await f.create({ title: 'Letter paper', excerpt: { bookmd5: f.book, page: EXCERPT_PAGE, text: VERBATIM } });
    excerptId = `excerpt-${card.noteid}`;
  });
  after(() => f.t.stop());

  const post = (noteid: string, body: Record<string, unknown>) =>
    f.t.client.raw('POST', `/notes/${noteid}/image-occlusions`, {
      body: { coordinateSpace: 'normalized', operation: 'add', ...body },
    });
  const dryRun = async (noteid: string, body: Record<string, unknown>) => {
    const res = await post(noteid, body);
    assert.equal(res.status, 422, res.text());
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    return err.details;
  };
  const confirm = async (noteid: string, body: Record<string, unknown>) => {
    const res = await post(noteid, { ...body, confirm: true });
    assert.equal(res.status, 200, res.text());
    return res.json<any>();
  };
  const sourceOf = async (noteid: string, contentId: string) =>
    (await f.t.client.raw('GET', `/notes/${noteid}/content/${contentId}`, { query: { maxEdge: 64 } })).headers.get(
      'x-source-fingerprint',
    )!;
  const occlusionOf = async (noteid: string) =>
    (await f.batchGet(noteid)).parts.find((p: any) => p.kind === 'excerpt_image' || p.kind === 'image')?.occlusion;

  it('a true dry-run answers fingerprints and counts (a duplicate in the request is counted once); a wrong source fingerprint → 409 with the current one; nothing changes', async () => {
    const before = f.digest();
    const wrong = await post(card.noteid, {
      masks: [box(0.1, 0.1, 0.2, 0.3)],
      expectedSourceFingerprint: 'f'.repeat(32),
    });
    assert.equal(wrong.status, 409, wrong.text());
    const err = wrong.json<any>().error;
    assert.equal(err.code, 'IMAGE_SOURCE_CHANGED');
    const source = err.details.sourceFingerprint;
    assert.match(source, /^[0-9a-f]{32}$/);
    assert.equal(await sourceOf(card.noteid, excerptId), source, 'GET content carries the same fingerprint');

    const d = await dryRun(card.noteid, {
      masks: [box(0.1, 0.1, 0.2, 0.3), box(0.5, 0.2, 0.2, 0.3, { group: 1 }), box(0.1, 0.1, 0.2, 0.3)],
      expectedSourceFingerprint: source,
    });
    assert.deepEqual(
      { ...d, maskFingerprint: typeof d.maskFingerprint },
      {
        confirm: 'body',
        dryRun: true,
        sourceFingerprint: source,
        maskFingerprint: 'string',
        contentId: excerptId,
        wouldAdd: 2,
        wouldReplace: 0,
        deduplicated: 1,
        resultingMaskCount: 2,
        existingReviewCardCount: 0,
      },
    );
    assert.equal(f.digest(), before, 'dry-run and 409 wrote nothing');
    assert.equal(await occlusionOf(card.noteid), undefined);
  });

  it('confirm needs the mask fingerprint of the dry-run (missing → 422, stale → 409 OCCLUSION_CHANGED); confirmed masks are stored, read back by batch-get, logged, and drawn in composite but not base', async () => {
    const source = await sourceOf(card.noteid, excerptId);
    const masks = [box(0.05, 0.1, 0.3, 0.4), box(0.5, 0.5, 0.25, 0.4, { group: 2, isText: true, flags: 1 })];
    const d = await dryRun(card.noteid, { masks, expectedSourceFingerprint: source });
    const before = f.digest();
    const missing = await post(card.noteid, { masks, expectedSourceFingerprint: source, confirm: true });
    assert.equal(missing.status, 422);
    assert.equal(missing.json<any>().error.details.field, 'expectedMaskFingerprint');
    const stale = await post(card.noteid, {
      masks,
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: '0'.repeat(32),
      confirm: true,
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.json<any>().error.code, 'OCCLUSION_CHANGED');
    assert.equal(f.digest(), before);

    const ops = f.t.bridge.services.store.all('SELECT * FROM operations').length;
    const res = await confirm(card.noteid, {
      masks,
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: d.maskFingerprint,
    });
    assert.equal(res.persisted, true);
    assert.equal(res.maskCount, 2);
    assert.equal(res.existingReviewCardCount, 0);
    assert.notEqual(res.maskFingerprint, d.maskFingerprint);
    const log = f.t.bridge.services.store.all<any>('SELECT * FROM operations ORDER BY op_seq DESC LIMIT 1')[0];
    assert.equal(f.t.bridge.services.store.all('SELECT * FROM operations').length, ops + 1);
    assert.deepEqual([log.kind, log.actor, JSON.parse(log.note_ids)], ['occlusions', 'agent', [card.noteid]]);

    const part = (await f.batchGet(card.noteid)).parts.find((p: any) => p.kind === 'excerpt_image');
    assert.equal(part.contentId, excerptId, 'the stored part keeps the id batch-get listed');
    assert.deepEqual(part.occlusion, {
      coordinateSpace: 'normalized_top_left',
      masks: [
        { index: 0, rect: { x: 0.05, y: 0.1, width: 0.3, height: 0.4 } },
        { index: 1, rect: { x: 0.5, y: 0.5, width: 0.25, height: 0.4 }, group: 2, flags: 1, isText: true },
      ],
    });

    // Composite draws the boxes (mask colour at the first box's centre); base shows the page there.
    const composite = await decode(
      (await f.t.client.raw('GET', `/notes/${card.noteid}/content/${excerptId}`, { query: { maxEdge: 800 } })).bytes,
    );
    const base = await decode(
      (
        await f.t.client.raw('GET', `/notes/${card.noteid}/content/${excerptId}`, {
          query: { maxEdge: 800, layers: 'base' },
        })
      ).bytes,
    );
    const cx = (0.05 + 0.15) * composite.width;
    const cy = (0.1 + 0.2) * composite.height;
    assert.deepEqual(pixel(composite, cx, cy).slice(0, 3), [0xf5, 0xa6, 0x23], 'mask colour in composite');
    assert.notDeepEqual(pixel(base, cx, cy).slice(0, 3), [0xf5, 0xa6, 0x23]);
    assert.deepEqual([composite.width, composite.height], [base.width, base.height]);
  });

  it('add deduplicates masks of the same group and rect against the stored ones; the old mask fingerprint is then stale; replace swaps them all', async () => {
    const source = await sourceOf(card.noteid, excerptId);
    const masks = [box(0.05, 0.1, 0.3, 0.4), box(0.05, 0.1, 0.3, 0.4, { group: 5 }), box(0.8, 0.1, 0.1, 0.1)];
    const d = await dryRun(card.noteid, { masks, expectedSourceFingerprint: source });
    assert.deepEqual(
      [d.wouldAdd, d.deduplicated, d.wouldReplace, d.resultingMaskCount],
      [2, 1, 0, 4],
      'same rect in another group is a new mask',
    );
    const res = await confirm(card.noteid, {
      masks,
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: d.maskFingerprint,
    });
    assert.equal(res.maskCount, 4);
    assert.equal((await occlusionOf(card.noteid)).masks.length, 4);

    const before = f.digest();
    const stale = await post(card.noteid, {
      masks: [box(0, 0, 0.1, 0.1)],
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: d.maskFingerprint,
      confirm: true,
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.json<any>().error.code, 'OCCLUSION_CHANGED');
    assert.equal(f.digest(), before);

    const r = await dryRun(card.noteid, {
      operation: 'replace',
      masks: [box(0.2, 0.2, 0.2, 0.2)],
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: res.maskFingerprint,
    });
    assert.deepEqual([r.wouldAdd, r.wouldReplace, r.deduplicated, r.resultingMaskCount], [1, 4, 0, 1]);
    const replaced = await confirm(card.noteid, {
      operation: 'replace',
      masks: [box(0.2, 0.2, 0.2, 0.2)],
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: r.maskFingerprint,
    });
    assert.equal(replaced.maskCount, 1);
    assert.deepEqual((await occlusionOf(card.noteid)).masks, [
      { index: 0, rect: { x: 0.2, y: 0.2, width: 0.2, height: 0.2 } },
    ]);
  });

  it('existingReviewCardCount counts the review cards made from the card (dry-run and confirm)', async () => {
    const deckId = (await f.t.client.createDeck('Paper sizes')).deckId;
    await f.t.client.request('POST', `/decks/${deckId}/cards`, {
      body: { cards: [{ sourceNoteId: card.noteid }], confirm: true },
    });
    const source = await sourceOf(card.noteid, excerptId);
    const d = await dryRun(card.noteid, { masks: [box(0.6, 0.6, 0.1, 0.1)], expectedSourceFingerprint: source });
    assert.equal(d.existingReviewCardCount, 1);
    const res = await confirm(card.noteid, {
      masks: [box(0.6, 0.6, 0.1, 0.1)],
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: d.maskFingerprint,
    });
    assert.equal(res.existingReviewCardCount, 1);
    assert.equal(res.warnings.length, 1, 'the answer says review cards must be rebuilt');
  });

  it('an image card: the fingerprint is of the image bytes; a different image means a different source', async () => {
    const pic = await f.create({ title: 'Diagram' });
    const png = await makePng(200, 100, (ctx) => ((ctx.fillStyle = '#2040a0'), ctx.fillRect(0, 0, 200, 100)));
    const cid = await f.addPart(pic.noteid, { kind: 'image', mimeType: 'image/png', blob: png });
    const source = await sourceOf(pic.noteid, cid);
    assert.notEqual(source, await sourceOf(card.noteid, excerptId));
    const d = await dryRun(pic.noteid, { masks: [box(0, 0, 0.5, 0.5)], expectedSourceFingerprint: source });
    assert.equal(d.contentId, cid);
    await confirm(pic.noteid, {
      masks: [box(0, 0, 0.5, 0.5)],
      expectedSourceFingerprint: source,
      expectedMaskFingerprint: d.maskFingerprint,
    });
    const part = (await f.batchGet(pic.noteid)).parts.find((p: any) => p.contentId === cid);
    assert.equal(part.occlusion.masks.length, 1);

    // The bytes change behind the agent's back: its fingerprint is stale.
    const other = await makePng(200, 100, (ctx) => ((ctx.fillStyle = '#a02040'), ctx.fillRect(0, 0, 200, 100)));
    await f.t.bridge.services.store.write((tx) =>
      tx.run('UPDATE note_parts SET blob = ? WHERE content_id = ?', [new Uint8Array(other), cid]),
    );
    const res = await post(pic.noteid, { masks: [box(0.5, 0.5, 0.5, 0.5)], expectedSourceFingerprint: source });
    assert.equal(res.status, 409);
    assert.equal(res.json<any>().error.code, 'IMAGE_SOURCE_CHANGED');
  });

  it('refusals: unknown card or content, not an image card, 0 or 201 masks, rects outside 0..1, bad operation or space, more than 200 in all; nothing changes', async () => {
    const source = await sourceOf(card.noteid, excerptId);
    const plain = await f.create({ title: 'Plain', text: 'words only' });
    const unplaced = await f.create({
      excerpt: {
        bookmd5: f.book,
        page: EXCERPT_PAGE,
        text: 'Nothing like this sentence appears on that page at all, surely.',
      },
    });
    assert.equal(unplaced.sourceAnchor.rect, null);
    const audioCard = await f.create({ title: 'Sound' });
    const audio = await f.addPart(audioCard.noteid, {
      kind: 'audio',
      mimeType: 'audio/mpeg',
      blob: Buffer.from('ID3'),
    });
    const stored = (await occlusionOf(card.noteid)).masks.length;
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => box((i % 20) / 20, Math.floor(i / 20) / 20, 0.04, 0.04));
    const ok = { masks: [box(0.1, 0.1, 0.1, 0.1)], expectedSourceFingerprint: source };
    const current = (await dryRun(card.noteid, ok)).maskFingerprint;
    const before = f.digest();
    const cases: Array<[string, string, Record<string, unknown>, number, string]> = [
      ['unknown card', UNKNOWN, ok, 404, 'NOTE_NOT_FOUND'],
      ['unknown contentId', card.noteid, { ...ok, contentId: 'NOPE' }, 404, 'CONTENT_NOT_FOUND'],
      ['text card', plain.noteid, ok, 422, 'NOT_AN_IMAGE_CARD'],
      ['excerpt never placed', unplaced.noteid, ok, 422, 'NOT_AN_IMAGE_CARD'],
      ['audio part', audioCard.noteid, { ...ok, contentId: audio }, 422, 'NOT_AN_IMAGE_CARD'],
      ['0 masks', card.noteid, { ...ok, masks: [] }, 422, 'INVALID_INPUT'],
      ['201 masks', card.noteid, { ...ok, masks: many(201) }, 422, 'INVALID_INPUT'],
      ['x above 1', card.noteid, { ...ok, masks: [box(1.2, 0, 0.1, 0.1)] }, 422, 'INVALID_INPUT'],
      ['negative y', card.noteid, { ...ok, masks: [box(0, -0.1, 0.1, 0.1)] }, 422, 'INVALID_INPUT'],
      ['zero width', card.noteid, { ...ok, masks: [box(0, 0, 0, 0.1)] }, 422, 'INVALID_INPUT'],
      ['x + width past 1', card.noteid, { ...ok, masks: [box(0.8, 0, 0.3, 0.1)] }, 422, 'INVALID_INPUT'],
      ['pixels, not normalised', card.noteid, { ...ok, masks: [box(10, 10, 50, 20)] }, 422, 'INVALID_INPUT'],
      ['operation remove', card.noteid, { ...ok, operation: 'remove' }, 422, 'INVALID_INPUT'],
      ['coordinateSpace pixels', card.noteid, { ...ok, coordinateSpace: 'pixels' }, 422, 'INVALID_INPUT'],
      ['no source fingerprint', card.noteid, { masks: ok.masks }, 422, 'INVALID_INPUT'],
      ['more than 200 in all', card.noteid, { ...ok, masks: many(200) }, 422, 'TOO_MANY_MASKS'],
    ];
    for (const [what, noteid, body, status, code] of cases) {
      for (const confirmed of [false, true]) {
        const res = await post(noteid, {
          ...body,
          ...(confirmed ? { confirm: true, expectedMaskFingerprint: current } : {}),
        });
        assert.equal(res.status, status, `${what}${confirmed ? ' (confirm)' : ''}: ${res.text()}`);
        assert.equal(res.json<any>().error.code, code, what);
      }
    }
    assert.equal(f.digest(), before, 'no refusal changed the store');
    assert.equal((await occlusionOf(card.noteid)).masks.length, stored);
  });
});
