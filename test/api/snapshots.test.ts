import { UNNAMED_AGENT } from '../../src/server/actor';
import assert from 'node:assert/strict';
import { insertNote, recordOperation, reindexNote } from '../../src/server/domain/cards/noteRows';
import { newId } from '../../src/server/domain/library/ids';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

describe('snapshots (GET/POST /study-sets/{id}/snapshots, POST /snapshots/{id}/restore)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(() => t.stop());

  const store = () => t.bridge.services.store;
  const post = (path: string, body: Record<string, unknown>, as: 'agent' | 'person' = 'agent') =>
    (as === 'person' ? t.owner : t.client).raw('POST', path, { body });
  const list = async (id: string) =>
    (await t.client.call('GET /study-sets/{id}/snapshots', { params: { id } })).snapshots;
  const snapshot = (id: string, description?: string) =>
    t.client.call('POST /study-sets/{id}/snapshots', {
      params: { id },
      body: description === undefined ? {} : { description },
    });
  const tree = async (id: string) => (await t.client.call('GET /study-sets/{id}/tree', { params: { id } })).nodes;
  const restore = (snapshotId: string, body: Record<string, unknown> = {}) =>
    post(`/snapshots/${snapshotId}/restore`, body);
  const err = (res: { json: <T>() => T }) => res.json<any>().error;

  /** Every row of the set's cards, read independently of the snapshot code (fts: the search rows). */
  function setDump(topicid: string) {
    const s = store();
    const ofSet = 'SELECT noteid FROM notes WHERE topicid = ?';
    return JSON.stringify({
      notes: s.all('SELECT * FROM notes WHERE topicid = ? ORDER BY noteid', [topicid]),
      texts: s.all(`SELECT * FROM note_texts WHERE noteid IN (${ofSet}) ORDER BY noteid, idx`, [topicid]),
      tags: s.all(`SELECT * FROM note_hashtags WHERE noteid IN (${ofSet}) ORDER BY noteid, path`, [topicid]),
      parts: s.all(
        `SELECT content_id, noteid, idx, kind, mime_type, data, hex(blob) AS blob FROM note_parts WHERE noteid IN (${ofSet}) ORDER BY content_id`,
        [topicid],
      ),
      links: s.all(
        `SELECT * FROM note_links WHERE noteid IN (${ofSet}) OR target_id IN (${ofSet}) ORDER BY noteid, target_id`,
        [topicid, topicid],
      ),
      fts: s.all('SELECT noteid, body FROM notes_fts WHERE topicid = ? ORDER BY noteid', [topicid]),
    });
  }

  /** A set with a small tree: root → A (body, comment, tag, image part, link to B) → A1, A2; root → B (hidden card C under it). */
  async function makeSet(title: string) {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const ids = { root, A: newId(), A1: newId(), A2: newId(), B: newId(), C: newId() };
    const now = '2024-01-01T00:00:00.000Z';
    await store().write((tx) => {
      insertNote(tx, { noteid: ids.A, topicid: set.topicid, parentId: root, title: 'Alpha', text: 'alpha body', now });
      insertNote(tx, { noteid: ids.A1, topicid: set.topicid, parentId: ids.A, title: 'Alpha one', now });
      insertNote(tx, { noteid: ids.A2, topicid: set.topicid, parentId: ids.A, title: 'Alpha two', now });
      insertNote(tx, { noteid: ids.B, topicid: set.topicid, parentId: root, title: 'Beta', now });
      insertNote(tx, { noteid: ids.C, topicid: set.topicid, parentId: ids.B, title: 'Gone card', now });
      tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [ids.C]);
      tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 1, 'a comment', 0, 'text')`, [ids.A]);
      tx.run(`INSERT INTO note_hashtags(noteid, path) VALUES (?, 'bio/cells')`, [ids.A]);
      tx.run(
        `INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob) VALUES (?, ?, 0, 'image', 'image/png', '{}', ?)`,
        [newId(), ids.A, new Uint8Array([137, 80, 78, 71, 0, 255])],
      );
      tx.run(`INSERT INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?), (?, ?, ?)`, [
        ids.A,
        ids.B,
        now,
        ids.B,
        ids.A,
        now,
      ]);
      reindexNote(tx, ids.A);
      reindexNote(tx, ids.C);
      recordOperation(tx, {
        topicid: set.topicid,
        kind: 'create',
        actor: UNNAMED_AGENT,
        noteIds: Object.values(ids),
        now,
      });
    });
    return { topicid: set.topicid, ...ids };
  }

  /** An edit through the card route, as the person (VS Code) or an agent makes it. */
  async function rename(noteid: string, from: string, to: string, actor: 'user' | 'agent') {
    const res = await post(
      `/notes/${noteid}/title`,
      { text: to, expectedPrefix: from.slice(0, 32), confirm: true },
      actor === 'user' ? 'person' : 'agent',
    );
    assert.equal(res.status, 200, res.text());
  }

  it('create stores the description without "Agent:" (label adds it once); unchanged content reuses the last snapshot with created:false and a warning', async () => {
    const s = await makeSet('Cells');
    const first = await snapshot(s.topicid, 'Agent:  agent: Before chapter 2 ');
    assert.equal(first.created, true);
    assert.match(first.snapshotId, UUID);
    assert.equal(first.topicid, s.topicid);
    assert.equal(first.description, 'Before chapter 2');
    assert.equal(first.label, 'Agent: Before chapter 2');
    assert.equal(first.kind, 'agent');
    assert.equal(first.noteCount, 5, 'root, A, A1, A2, B: the hidden card is kept but not counted');
    assert.ok(!Number.isNaN(Date.parse(first.createdAt)));
    assert.equal(first.warnings, undefined);

    const before = storeDigest(store());
    const again = await snapshot(s.topicid, 'Something else');
    assert.equal(again.created, false);
    assert.equal(again.snapshotId, first.snapshotId);
    assert.equal(again.description, 'Before chapter 2', 'the existing snapshot is answered as it is');
    assert.ok(again.warnings, 'a reused snapshot warns');
    const warnings = again.warnings as Array<{ code: string; message: string }>;
    assert.deepEqual(
      warnings.map((w) => w.code),
      ['SNAPSHOT_REUSED'],
    );
    assert.match(warnings[0].message, /unchanged/);
    assert.equal(storeDigest(store()), before, 'nothing written on reuse');

    await rename(s.B, 'Beta', 'Beta renamed', 'agent');
    const second = await snapshot(s.topicid);
    assert.equal(second.created, true);
    assert.notEqual(second.snapshotId, first.snapshotId);
    assert.equal(second.description, '');
    assert.equal(second.label, 'Agent snapshot');

    const snaps = await list(s.topicid);
    assert.deepEqual(
      snaps.map((x) => [x.snapshotId, x.version, x.kind, x.label]),
      [
        [second.snapshotId, 2, 'agent', 'Agent snapshot'],
        [first.snapshotId, 1, 'agent', 'Agent: Before chapter 2'],
      ],
      'newest first, version = place in the history',
    );
    assert.deepEqual(Object.keys(snaps[0]).sort(), [
      'createdAt',
      'description',
      'kind',
      'label',
      'noteCount',
      'snapshotId',
      'topicid',
      'version',
    ]);
  });

  it('create/list refusals: deck id → 422 IS_A_DECK, unknown set → 404, description over 500 → 422; nothing changes', async () => {
    const s = await makeSet('Refusals');
    const deck = await t.client.call('POST /decks', { body: { title: 'Deck R', confirm: true } });
    const before = storeDigest(store());
    for (const [res, status, code] of [
      [await post(`/study-sets/${deck.deckId}/snapshots`, {}), 422, 'IS_A_DECK'],
      [await t.client.raw('GET', `/study-sets/${deck.deckId}/snapshots`), 422, 'IS_A_DECK'],
      [await post(`/study-sets/${newId()}/snapshots`, {}), 404, 'TOPIC_NOT_FOUND'],
      [await post(`/study-sets/${s.topicid}/snapshots`, { description: 'x'.repeat(501) }), 422, 'INVALID_INPUT'],
      [await post(`/study-sets/${s.topicid}/snapshots`, { description: 7 }), 422, 'INVALID_INPUT'],
      [await post('/study-sets/not-a-uuid/snapshots', {}), 422, 'INVALID_INPUT'],
    ] as const) {
      assert.equal(res.status, status, res.text());
      assert.equal(err(res).code, code);
    }
    assert.equal(storeDigest(store()), before);
    assert.deepEqual(await list(s.topicid), []);
  });

  it('restore: the dry-run previews and changes nothing; confirm takes a protection snapshot and returns the tree and every row exactly', async () => {
    const s = await makeSet('Round trip');
    const treeAtSnapshot = await tree(s.topicid);
    const dumpAtSnapshot = setDump(s.topicid);
    const snap = await snapshot(s.topicid, 'baseline');

    // Agent edits afterwards: a rename, a new card, a card removed for good, a tag dropped.
    await rename(s.A1, 'Alpha one', 'Renamed', 'agent');
    const extra = newId();
    await store().write((tx) => {
      insertNote(tx, {
        noteid: extra,
        topicid: s.topicid,
        parentId: s.B,
        title: 'Zeta newcomer',
        now: new Date().toISOString(),
      });
      tx.run('DELETE FROM note_hashtags WHERE noteid = ?', [s.A]);
      tx.run('DELETE FROM note_links WHERE noteid = ?', [s.B]);
      tx.run('DELETE FROM notes WHERE noteid = ?', [s.A2]);
      tx.run('DELETE FROM notes_fts WHERE noteid = ?', [s.A2]);
      reindexNote(tx, s.A);
      recordOperation(tx, {
        topicid: s.topicid,
        kind: 'create',
        actor: UNNAMED_AGENT,
        noteIds: [extra, s.A2],
        now: new Date().toISOString(),
      });
    });
    assert.notDeepEqual(await tree(s.topicid), treeAtSnapshot);
    const zeta = async () =>
      JSON.stringify(await t.client.call('GET /search', { query: { q: 'Zeta', scope: 'notes' } }));
    assert.ok((await zeta()).includes(extra), 'the newcomer is searchable before the restore');

    const before = storeDigest(store());
    const dry = await restore(snap.snapshotId);
    assert.equal(dry.status, 422);
    const d = err(dry);
    assert.equal(d.code, 'CONFIRM_REQUIRED');
    assert.equal(d.details.dryRun, true);
    assert.equal(d.details.wouldRestoreToVersion, 1);
    assert.equal(d.details.snapshotCreatedAt, snap.createdAt);
    assert.equal(d.details.snapshotDescription, 'baseline');
    assert.equal(d.details.noteCountInSnapshot, 5);
    assert.equal(d.details.currentNoteCount, 5, 'A2 gone, Zeta added');
    assert.deepEqual(d.details.changedNodes, []);
    assert.equal(d.details.userEditsPresent, false);
    assert.equal(d.details.studySetInUse, false);
    assert.deepEqual(d.details.notCovered, ['document tables of contents']);
    assert.equal(storeDigest(store()), before, 'the dry-run changed nothing');

    const res = await restore(snap.snapshotId, { confirm: true });
    assert.equal(res.status, 200, res.text());
    const done = res.json<any>();
    assert.equal(done.persisted, true);
    assert.equal(done.restoredSnapshotId, snap.snapshotId);
    assert.match(done.protectionSnapshotId, UUID);
    assert.equal(done.noteCount, 5);
    assert.equal(done.version, 1);
    assert.deepEqual(done.notCovered, ['document tables of contents']);

    assert.deepEqual(await tree(s.topicid), treeAtSnapshot, 'same nodes, same order, same titles');
    assert.equal(
      setDump(s.topicid),
      dumpAtSnapshot,
      'every card row, text, tag, part, link and search row as at the snapshot',
    );
    assert.ok(!(await zeta()).includes(extra), 'the card added after the snapshot is gone from search too');
    const again = await t.client.call('GET /search', { query: { q: 'two', scope: 'notes' } });
    assert.ok(JSON.stringify(again).includes(s.A2), 'the restored card is searchable at once');

    const snaps = await list(s.topicid);
    assert.deepEqual(
      snaps.map((x) => [x.kind, x.version]),
      [
        ['protection', 2],
        ['agent', 1],
      ],
    );
    assert.equal(snaps[0].snapshotId, done.protectionSnapshotId);
    assert.match(snaps[0].label, /^Before restoring version 1/);
    assert.equal(snaps[0].noteCount, 5);

    // The protection snapshot holds the pre-restore state: restoring it brings "Renamed" and Zeta back.
    const undo = await restore(done.protectionSnapshotId, { confirm: true });
    assert.equal(undo.status, 200, undo.text());
    const titles = (await tree(s.topicid)).map((n) => n.title);
    assert.ok(
      titles.includes('Renamed') && titles.includes('Zeta newcomer') && !titles.includes('Alpha two'),
      titles.join(','),
    );
    const op = store().get<{ kind: string; actor: string }>(
      'SELECT kind, actor FROM operations WHERE topicid = ? ORDER BY op_seq DESC LIMIT 1',
      [s.topicid],
    );
    assert.deepEqual({ ...op }, { kind: 'restore', actor: 'agent' });
  });

  it('409 STUDY_SET_IN_USE while the set is open in the UI (the preview still answers, with studySetInUse:true); switching away allows it', async () => {
    const s = await makeSet('Open one');
    const other = await makeSet('Other one');
    const snap = await snapshot(s.topicid, 'open test');
    await rename(s.A, 'Alpha', 'Alpha changed', 'agent');
    await t.bridge.services.ui.open({ topicid: s.topicid, title: 'Open one' });
    const before = storeDigest(store());
    const dry = await restore(snap.snapshotId);
    assert.equal(err(dry).code, 'CONFIRM_REQUIRED');
    assert.equal(err(dry).details.studySetInUse, true);
    const res = await restore(snap.snapshotId, { confirm: true, force: true });
    assert.equal(res.status, 409);
    assert.equal(err(res).code, 'STUDY_SET_IN_USE');
    assert.match(err(res).message, /switch away/i);
    assert.equal(storeDigest(store()), before, 'nothing changed');

    await t.bridge.services.ui.open({ topicid: other.topicid, title: 'Other one' });
    const ok = await restore(snap.snapshotId, { confirm: true });
    assert.equal(ok.status, 200, ok.text());
    assert.equal((await tree(s.topicid)).find((n) => n.noteid === s.A)?.title, 'Alpha');
  });

  it('409 USER_EDITS_PRESENT lists the cards the person changed since; force:true restores; agent edits do not block', async () => {
    const s = await makeSet('Person edits');
    await t.bridge.services.ui.open({ topicid: newId(), title: 'elsewhere' });
    const snap = await snapshot(s.topicid, 'before the person');
    await rename(s.A1, 'Alpha one', 'My own words', 'user');
    await rename(s.B, 'Beta', 'Beta by agent', 'agent');

    const before = storeDigest(store());
    const dry = err(await restore(snap.snapshotId));
    assert.equal(dry.details.userEditsPresent, true);
    assert.deepEqual(dry.details.changedNodes, [{ noteid: s.A1, title: 'My own words', operations: ['title'] }]);
    const res = await restore(snap.snapshotId, { confirm: true });
    assert.equal(res.status, 409);
    assert.equal(err(res).code, 'USER_EDITS_PRESENT');
    assert.deepEqual(err(res).details.changedNodes, [{ noteid: s.A1, title: 'My own words', operations: ['title'] }]);
    assert.equal(storeDigest(store()), before, 'nothing changed');

    const forced = await restore(snap.snapshotId, { confirm: true, force: true });
    assert.equal(forced.status, 200, forced.text());
    assert.equal(forced.json<any>().persisted, true);
    const titles = new Map((await tree(s.topicid)).map((n) => [n.noteid, n.title]));
    assert.equal(titles.get(s.A1), 'Alpha one');
    assert.equal(titles.get(s.B), 'Beta');

    // Only agent edits since the next snapshot: no conflict, no force needed.
    const snap2 = await snapshot(s.topicid, 'after the restore');
    await rename(s.A, 'Alpha', 'Agent rewrite', 'agent');
    assert.equal(err(await restore(snap2.snapshotId)).details.userEditsPresent, false);
    const plain = await restore(snap2.snapshotId, { confirm: true });
    assert.equal(plain.status, 200, plain.text());
    assert.equal((await tree(s.topicid)).find((n) => n.noteid === s.A)?.title, 'Alpha');
  });

  it('restore refusals: unknown snapshot → 404 SNAPSHOT_NOT_FOUND (dry-run and confirm), bad id or force → 422; nothing changes', async () => {
    const s = await makeSet('Restore refusals');
    const snap = await snapshot(s.topicid, 'r');
    const before = storeDigest(store());
    for (const [res, status, code] of [
      [await restore(newId()), 404, 'SNAPSHOT_NOT_FOUND'],
      [await restore(newId(), { confirm: true }), 404, 'SNAPSHOT_NOT_FOUND'],
      [await restore('nope', { confirm: true }), 422, 'INVALID_INPUT'],
      [await restore(snap.snapshotId, { confirm: true, force: 'yes' }), 422, 'INVALID_INPUT'],
    ] as const) {
      assert.equal(res.status, status, res.text());
      assert.equal(err(res).code, code);
    }
    assert.equal(storeDigest(store()), before);
  });
});
