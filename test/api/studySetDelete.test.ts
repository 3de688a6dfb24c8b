import { UNNAMED_AGENT } from '../../src/server/actor';
import assert from 'node:assert/strict';
import { insertNote, recordOperation } from '../../src/server/domain/cards/noteRows';
import { newId } from '../../src/server/domain/library/ids';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

const MD5 = 'fedcba9876543210fedcba9876543210';

describe('POST /study-sets/{id}/delete (study sets and decks)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(() => t.stop());

  const store = () => t.bridge.services.store;
  const del = (id: string, body: Record<string, unknown>) => t.client.raw('POST', `/study-sets/${id}/delete`, { body });
  const err = (res: { json: <T>() => T }) => res.json<any>().error;
  const count = (sql: string, params: string[]) => store().get<{ n: number }>(sql, params)!.n;
  const setListed = async (id: string) => (await t.client.listStudySets()).some((s) => s.topicid === id);
  const deckListed = async (id: string) => (await t.client.call('GET /decks')).decks.some((d) => d.deckId === id);

  /** A set with a root card, an excerpt card anchored to a page, a plain card and one document. */
  async function makeSet(title: string) {
    const set = await t.client.createStudySet(title);
    const excerpt = newId();
    const plain = newId();
    const now = new Date().toISOString();
    await store().write((tx) => {
      insertNote(tx, {
        noteid: excerpt,
        topicid: set.topicid,
        parentId: set.rootNoteId,
        title: 'Mitochondria',
        text: 'the powerhouse',
        excerpt: true,
        source: { bookmd5: MD5, page: 3, rect: { x: 1, y: 2, width: 3, height: 4 } },
        now,
      });
      insertNote(tx, { noteid: plain, topicid: set.topicid, parentId: set.rootNoteId, title: 'Ribosome', now });
      tx.run('INSERT INTO topic_documents(topicid, bookmd5, position, is_main, added_at) VALUES (?, ?, 0, 1, ?)', [
        set.topicid,
        MD5,
        now,
      ]);
      recordOperation(tx, {
        topicid: set.topicid,
        kind: 'create',
        actor: UNNAMED_AGENT,
        noteIds: [excerpt, plain],
        now,
      });
    });
    return { topicid: set.topicid, root: set.rootNoteId!, excerpt, plain, ids: [set.rootNoteId!, excerpt, plain] };
  }

  async function searchIds(q: string) {
    return JSON.stringify(await t.client.call('GET /search', { query: { q, scope: 'notes' } }));
  }

  it('409 TITLE_MISMATCH with actualTitle when expectedTitle differs (exact, case-sensitive); bad input → 422; nothing changes', async () => {
    const s = await makeSet('Cell Biology');
    const before = storeDigest(store());
    for (const title of ['cell biology', 'Cell Biology ', 'Cell']) {
      const res = await del(s.topicid, { expectedTitle: title, confirm: true });
      assert.equal(res.status, 409, res.text());
      assert.equal(err(res).code, 'TITLE_MISMATCH');
      assert.equal(err(res).details.actualTitle, 'Cell Biology');
    }
    for (const body of [
      { confirm: true },
      { expectedTitle: '', confirm: true },
      { expectedTitle: 'Cell Biology', keepHighlights: 'no', confirm: true },
      { expectedTitle: 'Cell Biology' },
    ]) {
      const res = await del(s.topicid, body);
      assert.equal(res.status, 422, res.text());
      assert.ok(['INVALID_INPUT', 'CONFIRM_REQUIRED'].includes(err(res).code));
    }
    const unknown = await del(newId(), { expectedTitle: 'Cell Biology', confirm: true });
    assert.equal(unknown.status, 404);
    assert.equal(err(unknown).code, 'TOPIC_NOT_FOUND');
    assert.equal(storeDigest(store()), before, 'nothing changed');
    assert.ok(await setListed(s.topicid));
  });

  it('default keepHighlights: the set and its cards are hidden, excerpt anchors kept, gone from lists and search, a pre-delete snapshot taken; its routes answer 404', async () => {
    const s = await makeSet('Genetics');
    assert.ok((await searchIds('Mitochondria')).includes(s.excerpt));
    const indexRows = () =>
      count(
        'SELECT count(*) AS n FROM notes_fts_content WHERE c0noteid IN (SELECT noteid FROM notes WHERE topicid = ?)',
        [s.topicid],
      );
    assert.equal(indexRows(), 3, 'its cards are in the card index');
    const res = await del(s.topicid, { expectedTitle: 'Genetics', confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.removedFromLibrary, true);
    assert.equal(body.topicid, s.topicid);
    assert.equal(body.keepHighlights, true);
    assert.equal(body.cardsHidden, 3);
    assert.equal(body.cardsDeleted, undefined);
    const snap = store().get<any>('SELECT topicid, kind, note_count FROM snapshots WHERE snapshot_id = ?', [
      body.preDeleteSnapshotId,
    ]);
    assert.deepEqual({ ...snap }, { topicid: s.topicid, kind: 'pre_delete', note_count: 3 });

    assert.equal(await setListed(s.topicid), false);
    assert.ok(!(await searchIds('Mitochondria')).includes(s.excerpt), 'removed from search');
    assert.equal(indexRows(), 0, 'their rows left the card index, not only the results');
    assert.equal(
      count('SELECT count(*) AS n FROM notes WHERE topicid = ? AND hidden = 1', [s.topicid]),
      3,
      'cards kept, hidden',
    );
    assert.equal(
      count('SELECT count(*) AS n FROM notes WHERE noteid = ? AND source_bookmd5 = ? AND source_page = 3', [
        s.excerpt,
        MD5,
      ]),
      1,
      'the excerpt anchor is kept',
    );
    assert.equal(count('SELECT count(*) AS n FROM topic_documents WHERE topicid = ?', [s.topicid]), 1);
    for (const [method, path] of [
      ['GET', `/study-sets/${s.topicid}/documents`],
      ['GET', `/study-sets/${s.topicid}/snapshots`],
      ['GET', `/study-sets/${s.topicid}/tree`],
      ['POST', `/study-sets/${s.topicid}/snapshots`],
      ['POST', `/snapshots/${body.preDeleteSnapshotId}/restore`],
    ] as const) {
      const r = await t.client.raw(method, path, method === 'POST' ? { body: { confirm: true } } : {});
      assert.equal(r.status, 404, `${method} ${path}: ${r.text()}`);
      assert.equal(err(r).code, 'TOPIC_NOT_FOUND');
    }
    const again = await del(s.topicid, { expectedTitle: 'Genetics', confirm: true });
    assert.equal(again.status, 404);
    assert.equal(err(again).code, 'TOPIC_NOT_FOUND');
  });

  it('keepHighlights:false removes cards, documents list and the topic for good; the snapshot history is kept unless keepSnapshotHistory:false', async () => {
    const s = await makeSet('Anatomy');
    const earlier = await t.client.call('POST /study-sets/{id}/snapshots', {
      params: { id: s.topicid },
      body: { description: 'earlier' },
    });
    const res = await del(s.topicid, { expectedTitle: 'Anatomy', keepHighlights: false, confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.removedFromLibrary, true);
    assert.equal(body.keepHighlights, false);
    assert.equal(body.cardsDeleted, 3);
    assert.match(body.preDeleteSnapshotId, /^[0-9A-F-]{36}$/);
    assert.equal(count('SELECT count(*) AS n FROM notes WHERE topicid = ?', [s.topicid]), 0);
    assert.equal(count(`SELECT count(*) AS n FROM notes WHERE noteid IN (?, ?, ?)`, s.ids), 0);
    assert.equal(count('SELECT count(*) AS n FROM note_texts WHERE noteid = ?', [s.excerpt]), 0);
    assert.equal(count('SELECT count(*) AS n FROM topic_documents WHERE topicid = ?', [s.topicid]), 0);
    assert.equal(count('SELECT count(*) AS n FROM topics WHERE topicid = ?', [s.topicid]), 0);
    assert.equal(
      count('SELECT count(*) AS n FROM snapshots WHERE topicid = ?', [s.topicid]),
      2,
      'earlier + pre-delete kept',
    );
    assert.ok(store().get('SELECT 1 FROM snapshots WHERE snapshot_id = ?', [earlier.snapshotId]));
    assert.equal(await setListed(s.topicid), false);
    const tree = await t.client.raw('GET', `/study-sets/${s.topicid}/tree`);
    assert.equal(err(tree).code, 'TOPIC_NOT_FOUND');

    const s2 = await makeSet('Physiology');
    await t.client.call('POST /study-sets/{id}/snapshots', {
      params: { id: s2.topicid },
      body: { description: 'earlier' },
    });
    const res2 = (
      await del(s2.topicid, {
        expectedTitle: 'Physiology',
        keepHighlights: false,
        keepSnapshotHistory: false,
        confirm: true,
      })
    ).json<any>();
    assert.equal(res2.preDeleteSnapshotId, null);
    assert.deepEqual(
      res2.warnings.map((w: any) => w.code),
      ['SNAPSHOT_HISTORY_DELETED'],
    );
    assert.equal(count('SELECT count(*) AS n FROM snapshots WHERE topicid = ?', [s2.topicid]), 0);
    assert.equal(count('SELECT count(*) AS n FROM notes WHERE topicid = ?', [s2.topicid]), 0);
  });

  it('decks too (no IS_A_DECK here): hidden by default, removed with their review cards when keepHighlights:false', async () => {
    const source = await makeSet('Deck source');
    const deckA = (await t.client.call('POST /decks', { body: { title: 'Deck A', confirm: true } })).deckId;
    const deckB = (await t.client.call('POST /decks', { body: { title: 'Deck B', confirm: true } })).deckId;
    const now = new Date().toISOString();
    await store().write((tx) => {
      for (const deck of [deckA, deckB]) {
        tx.run(
          'INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, created_at, modified_at) VALUES (?, ?, ?, ?, ?)',
          [newId(), deck, source.plain, now, now],
        );
      }
    });

    const mismatch = await del(deckA, { expectedTitle: 'Deck a', confirm: true });
    assert.equal(err(mismatch).code, 'TITLE_MISMATCH');
    assert.equal(err(mismatch).details.actualTitle, 'Deck A');

    const a = await del(deckA, { expectedTitle: 'Deck A', confirm: true });
    assert.equal(a.status, 200, a.text());
    assert.equal(a.json<any>().removedFromLibrary, true);
    assert.equal(a.json<any>().keepHighlights, true);
    assert.equal(await deckListed(deckA), false);
    assert.equal(
      count('SELECT count(*) AS n FROM deck_cards WHERE deck_id = ?', [deckA]),
      1,
      'review cards kept while hidden',
    );

    const b = await del(deckB, { expectedTitle: 'Deck B', keepHighlights: false, confirm: true });
    assert.equal(b.status, 200, b.text());
    assert.equal(b.json<any>().reviewCardsDeleted, 1);
    assert.equal(await deckListed(deckB), false);
    assert.equal(count('SELECT count(*) AS n FROM deck_cards WHERE deck_id = ?', [deckB]), 0);
    assert.equal(count('SELECT count(*) AS n FROM topics WHERE topicid = ?', [deckB]), 0);
    assert.ok(await setListed(source.topicid), 'the source set is untouched');
    assert.equal(count('SELECT count(*) AS n FROM notes WHERE noteid = ? AND hidden = 0', [source.plain]), 1);
    for (const id of [deckA, deckB]) {
      const r = await del(id, { expectedTitle: 'Deck A', confirm: true });
      assert.equal(err(r).code, 'TOPIC_NOT_FOUND');
    }
  });
});
