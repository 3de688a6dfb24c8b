import assert from 'node:assert/strict';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile } from '../unit/pdfCorpus';
import { upload } from './documentsFixture';

describe('study-set documents (GET/POST /study-sets/{id}/documents, …/delete)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let cad: string;
  let manual: string;
  before(async () => {
    t = await startBridge();
    setId = (await t.client.createStudySet('Geometry')).topicid;
    cad = (await upload(t, 'CAD.pdf')).bookmd5;
    manual = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    for (const id of [cad, manual]) await t.bridge.services.extraction.whenReady(id); // no background writes during the digests
  });
  after(() => t.stop());

  const docs = (id = setId) => t.client.call('GET /study-sets/{id}/documents', { params: { id } });
  const add = (bookmd5: string, id = setId) =>
    t.client.call('POST /study-sets/{id}/documents', { params: { id }, body: { bookmd5, confirm: true } });

  it('a new set has no documents; the first added becomes main, the next joins the booklist, a repeat is alreadyPresent', async () => {
    assert.deepEqual((await docs()).documents, []);
    const first = await add(cad);
    assert.equal(first.becameMainDocument, true);
    assert.equal(first.addedToBooklist, false);
    const second = await add(manual);
    assert.equal(second.becameMainDocument, false);
    assert.equal(second.addedToBooklist, true);
    const again = await add(manual);
    assert.equal(again.alreadyPresent, true);
    const list = await docs();
    assert.deepEqual(
      list.documents.map((d) => [d.bookmd5, d.isMain, d.sourceState]),
      [
        [cad, true, 'normal'],
        [manual, false, 'normal'],
      ],
    );
    assert.equal(list.mainDocument, cad);
    assert.equal(list.documents[0].filename, 'CAD.pdf');
    assert.equal((await t.client.listStudySets()).find((s) => s.topicid === setId)?.documentCount, 2);
  });

  it('a file that vanished from disk reports sourceState missing_file', async () => {
    const file = join(t.dataDir, 'library', 'CAD.pdf');
    renameSync(file, `${file}.away`);
    try {
      assert.equal((await docs()).documents.find((d) => d.bookmd5 === cad)?.sourceState, 'missing_file');
    } finally {
      renameSync(`${file}.away`, file);
    }
  });

  it('removing: the dry-run previews the cards losing their source and the next main document; confirm removes, snapshots and promotes', async () => {
    const store = t.bridge.services.store;
    const root = (await t.client.listStudySets()).find((s) => s.topicid === setId)!.rootNoteId!;
    await store.write((tx) =>
      tx.run(
        `INSERT INTO notes(noteid, topicid, parent_id, title, source_bookmd5, source_page, source_rect, created_at, modified_at) VALUES ('N-ANCHORED', ?, ?, 'excerpt', ?, 2, '{"x":1,"y":2,"width":3,"height":4}', 'a', 'a')`,
        [setId, root, cad],
      ),
    );
    const before = storeDigest(store);
    const dry = await t.client.raw('POST', `/study-sets/${setId}/documents/${cad}/delete`, { body: {} });
    assert.equal(dry.status, 422);
    const details = dry.json<any>().error.details;
    assert.equal(dry.json<any>().error.code, 'CONFIRM_REQUIRED');
    assert.deepEqual(details.notesLosingSource, ['N-ANCHORED']);
    assert.equal(details.newMainDocumentAfter, manual);
    assert.equal(details.wasMainDocument, true);
    assert.equal(storeDigest(store), before, 'the dry-run changed nothing');

    const res = await t.client.call('POST /study-sets/{id}/documents/{docId}/delete', {
      params: { id: setId, docId: cad },
      body: { confirm: true },
    });
    assert.equal(res.removed, true);
    assert.equal(res.newMainDocument, manual);
    assert.deepEqual(res.notesLosingSource, ['N-ANCHORED']);
    assert.match(res.preRemoveSnapshotId, /^[0-9A-F-]{36}$/);
    const snap = store.get<{ topicid: string; note_count: number }>(
      'SELECT topicid, note_count FROM snapshots WHERE snapshot_id = ?',
      [res.preRemoveSnapshotId],
    );
    assert.deepEqual(snap, { topicid: setId, note_count: 2 });
    assert.equal(store.get<{ s: null }>(`SELECT source_bookmd5 AS s FROM notes WHERE noteid = 'N-ANCHORED'`)?.s, null);
    const list = await docs();
    assert.deepEqual(
      list.documents.map((d) => [d.bookmd5, d.isMain]),
      [[manual, true]],
    );
    // The document stays in the library.
    assert.equal((await t.client.raw('GET', `/documents/${cad}/outline`)).status, 200);
  });

  it('removing the last document leaves the set empty (placeholder:true)', async () => {
    const res = await t.client.call('POST /study-sets/{id}/documents/{docId}/delete', {
      params: { id: setId, docId: manual },
      body: { confirm: true },
    });
    assert.equal(res.placeholder, true);
    assert.deepEqual((await docs()).documents, []);
  });

  it('bad input: ids of the wrong kind, unknown set, unknown document, a deck id → 4xx with a code, nothing changed', async () => {
    const store = t.bridge.services.store;
    await store.write((tx) =>
      tx.run(
        `INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES ('DDDDDDDD-0000-4000-8000-000000000000', 'deck', 'Deck', 'a', 'a')`,
      ),
    );
    const before = storeDigest(store);
    const cases: Array<[string, string, unknown, number, string]> = [
      ['GET', `/study-sets/${cad}/documents`, undefined, 422, 'INVALID_INPUT'],
      ['GET', '/study-sets/AAAAAAAA-0000-4000-8000-000000000000/documents', undefined, 404, 'TOPIC_NOT_FOUND'],
      ['GET', '/study-sets/DDDDDDDD-0000-4000-8000-000000000000/documents', undefined, 422, 'IS_A_DECK'],
      ['POST', `/study-sets/${setId}/documents`, { bookmd5: setId, confirm: true }, 422, 'INVALID_INPUT'],
      ['POST', `/study-sets/${setId}/documents`, { bookmd5: 'f'.repeat(32), confirm: true }, 404, 'DOCUMENT_NOT_FOUND'],
      ['POST', `/study-sets/${setId}/documents`, { confirm: true }, 422, 'INVALID_INPUT'],
      [
        'POST',
        '/study-sets/DDDDDDDD-0000-4000-8000-000000000000/documents',
        { bookmd5: cad, confirm: true },
        422,
        'IS_A_DECK',
      ],
      ['POST', `/study-sets/${setId}/documents/${cad}/delete`, { confirm: true }, 404, 'DOCUMENT_NOT_FOUND'],
      ['POST', `/study-sets/${setId}/documents/nope/delete`, { confirm: true }, 422, 'INVALID_INPUT'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await t.client.raw(method as 'GET' | 'POST', path, { body });
      assert.equal(res.status, status, `${method} ${path}: ${res.text()}`);
      assert.equal(res.json<any>().error.code, code, `${method} ${path}`);
    }
    assert.equal(storeDigest(store), before);
  });

  it('lower-case topic ids are accepted', async () => {
    assert.equal((await docs(setId.toLowerCase())).topicid, setId);
  });
});

describe('typed client: documents and study-set documents', function () {
  this.timeout(60_000);
  it('uploads into a set, lists it, reads the outline and pages, removes it', async () => {
    const t = await startBridge();
    try {
      const set = await t.client.createStudySet('Client');
      const up = await t.client.uploadDocument(readFileSync(corpusFile('CAD.pdf')), {
        filename: 'CAD.pdf',
        folder: 'papers',
        topicid: set.topicid,
      });
      assert.equal(up.addedToStudySet, true);
      assert.equal(up.folder, 'papers');
      assert.deepEqual(
        (await t.client.studySetDocuments(set.topicid)).map((d) => [d.bookmd5, d.isMain, d.folder]),
        [[up.bookmd5, true, 'papers']],
      );
      assert.equal((await t.client.outline(up.bookmd5)).pageCount, 7);
      const pages = await t.client.pages(up.bookmd5, 1, 2);
      assert.deepEqual(
        pages.pages.map((p) => p.page),
        [1, 2],
      );
      assert.ok(pages.pages[0].text.length > 100);
      assert.equal((await t.client.removeDocumentFromStudySet(set.topicid, up.bookmd5)).removed, true);
      assert.deepEqual(await t.client.studySetDocuments(set.topicid), []);
    } finally {
      await t.stop();
    }
  });
});
