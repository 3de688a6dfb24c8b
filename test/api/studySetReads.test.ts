import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { NOTE_PALETTE } from '../../src/server/domain/cards/notePalette';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

const NOBODY = '00000000-0000-4000-8000-00000000ABCD';

/** A one-page PDF with one line of text (a third, quickly extracted library document). */
function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('study-set reads (sub-maps, notebooks, hashtags, note-palette), open and focus', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let root: string;
  let deckId: string;
  const ids: Record<string, string> = {};
  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Topology');
    setId = set.topicid;
    root = set.rootNoteId!;
    deckId = (await t.client.createDeck('Deck')).deckId;
    const create = async (title: string, parentNoteId?: string) =>
      (
        await t.client.call('POST /study-sets/{id}/notes', {
          params: { id: setId },
          body: { title, parentNoteId, confirm: true },
        })
      ).noteid!;
    ids.spaces = await create('Spaces');
    ids.metric = await create('Metric spaces', ids.spaces);
    ids.ball = await create('Open balls', ids.metric);
    ids.complete = await create('Completeness', ids.metric);
    ids.compact = await create('Compactness', ids.spaces);
    ids.maps = await create('Maps');
    ids.homeo = await create('Homeomorphisms', ids.maps);
    ids.hidden = await create('Gone', ids.maps);
  });
  after(() => t.stop());

  const refusals = async (paths: Array<[string, string, Record<string, unknown> | undefined, number, string]>) => {
    const before = storeDigest(t.bridge.services.store);
    for (const [method, path, body, status, code] of paths) {
      const res = await t.client.raw(method as 'GET' | 'POST', path, { body });
      assert.equal(res.status, status, `${method} ${path}: ${res.text()}`);
      assert.equal(res.json<any>().error.code, code, path);
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  };
  const setRefusals = (method: 'GET' | 'POST', suffix: string, body?: Record<string, unknown>) =>
    refusals([
      [method, `/study-sets/${NOBODY}/${suffix}`, body, 404, 'TOPIC_NOT_FOUND'],
      [method, `/study-sets/${deckId}/${suffix}`, body, 422, 'IS_A_DECK'],
      [method, `/study-sets/not-a-uuid/${suffix}`, body, 422, 'INVALID_INPUT'],
    ]);

  describe('GET /study-sets/{id}/sub-maps', () => {
    before(async () => {
      // sub_map and hidden written directly until fold-into-sub-map and delete land in this checkout.
      await t.bridge.services.store.write((tx) => {
        tx.run('UPDATE notes SET sub_map = 1 WHERE noteid IN (?, ?, ?)', [ids.metric, ids.maps, ids.ball]);
        tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [ids.hidden]);
      });
    });

    it('lists sub-map roots in pre-order with cardCount (cards below), parentPath and nesting depth', async () => {
      const res = await t.client.call('GET /study-sets/{id}/sub-maps', { params: { id: setId } });
      assert.deepEqual(
        res.subMaps.map((s) => [s.noteid, s.title, s.cardCount, s.parentPath, s.depth]),
        [
          [ids.metric, 'Metric spaces', 2, ['Topology', 'Spaces'], 0],
          [ids.ball, 'Open balls', 0, ['Topology', 'Spaces', 'Metric spaces'], 1],
          [ids.maps, 'Maps', 1, ['Topology'], 0],
        ],
      );
      assert.equal(res.count, 3);
      // The same order and counts as the tree reports.
      const tree = await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } });
      assert.deepEqual(
        tree.nodes.filter((n) => n.isSubMapRoot).map((n) => n.noteid),
        res.subMaps.map((s) => s.noteid),
      );
      assert.equal(tree.nodes.find((n) => n.noteid === ids.ball)?.depth, 1);
    });

    it('a set without sub-maps lists none; refusals', async () => {
      const other = await t.client.createStudySet('Plain');
      assert.deepEqual(
        (await t.client.call('GET /study-sets/{id}/sub-maps', { params: { id: other.topicid } })).subMaps,
        [],
      );
      await setRefusals('GET', 'sub-maps');
    });
  });

  describe('GET /study-sets/{id}/hashtags', () => {
    before(async () => {
      // Tags written directly until POST /notes/hashtags lands in this checkout.
      await t.bridge.services.store.write((tx) => {
        tx.run(
          `INSERT INTO note_hashtags(noteid, path) VALUES (?, 'math/topology/metric'), (?, 'math/topology'), (?, 'Math/Topology/Metric'), (?, 'exam'), (?, 'math/topology/compact'), (?, 'zzz/hidden')`,
          [ids.metric, ids.spaces, ids.ball, ids.ball, ids.compact, ids.hidden],
        );
      });
    });

    it('stored leaf paths, derived ancestors (directCardCount 0), cardCount with descendants, case-insensitive, hidden cards ignored, sorted by path', async () => {
      const res = await t.client.call('GET /study-sets/{id}/hashtags', { params: { id: setId } });
      assert.deepEqual(
        res.hashtags.map((h) => [h.path, h.name, h.depth, h.directCardCount, h.cardCount, h.derived]),
        [
          ['exam', 'exam', 1, 1, 1, false],
          ['math', 'math', 1, 0, 4, true],
          ['math/topology', 'topology', 2, 1, 4, false],
          ['math/topology/compact', 'compact', 3, 1, 1, false],
          ['math/topology/metric', 'metric', 3, 2, 2, false],
        ],
      );
      assert.equal(res.count, 5);
      // Derived paths are computed, never stored.
      const stored = t.bridge.services.store
        .all<{ path: string }>('SELECT DISTINCT lower(path) AS path FROM note_hashtags')
        .map((r) => r.path);
      assert.ok(!stored.includes('math'));
    });

    it('a set without tags lists none; refusals', async () => {
      const other = await t.client.createStudySet('Untagged');
      assert.deepEqual(
        (await t.client.call('GET /study-sets/{id}/hashtags', { params: { id: other.topicid } })).hashtags,
        [],
      );
      await setRefusals('GET', 'hashtags');
    });
  });

  describe('GET /study-sets/{id}/note-palette', () => {
    it('16 entries with #RRGGBB colours, source default, fillIndexSemantics as /capabilities', async () => {
      const res = await t.client.call('GET /study-sets/{id}/note-palette', { params: { id: setId } });
      assert.equal(res.palette.length, 16);
      assert.deepEqual(
        res.palette.map((p) => p.colorIndex),
        [...Array(16).keys()],
      );
      for (const p of res.palette) {
        assert.match(p.baseColor, /^#[0-9A-F]{6}$/);
        assert.match(p.displayColor, /^#[0-9A-F]{6}$/);
      }
      assert.equal(new Set(res.palette.map((p) => p.baseColor)).size, 16, 'all colours differ');
      assert.deepEqual(res.palette, NOTE_PALETTE);
      assert.equal(res.source, 'default');
      assert.deepEqual(res.fillIndexSemantics, {
        '-1': 'legacy_adaptive',
        '0': 'fill_and_stroke',
        '1': 'fill_only',
        '2': 'stroke_only',
      });
      const caps = await t.client.call('GET /capabilities');
      if (caps.fillIndexSemantics) assert.deepEqual(res.fillIndexSemantics, caps.fillIndexSemantics);
      assert.deepEqual((await t.client.cards.palette(setId)).length, 16, 'the typed client reads it');
    });

    it('refusals', () => setRefusals('GET', 'note-palette'));
  });

  describe('documents: notebooks and open', () => {
    let cad: string;
    let manual: string;
    let outside: string; // a library document outside the set
    before(async function () {
      this.timeout(180_000); // extraction of two corpus books on a loaded machine
      cad = (await upload(t, 'CAD.pdf', { topicid: setId })).bookmd5;
      manual = (await upload(t, '4ti2_manual.pdf', { topicid: setId })).bookmd5;
      outside = (
        await t.client.call('POST /library/documents/upload', {
          bytes: tinyPdf('Outside the set'),
          query: { filename: 'outside.pdf', confirm: '1' },
        })
      ).bookmd5;
      for (const id of [cad, manual, outside]) await t.bridge.services.extraction.whenReady(id);
      // Cards anchored to a member and to a document outside the set (as a bundle import or excerpt would leave them).
      await t.bridge.services.store.write((tx) => {
        tx.run('UPDATE notes SET source_bookmd5 = ?, source_page = 1 WHERE noteid IN (?, ?)', [
          manual,
          ids.spaces,
          ids.metric,
        ]);
        tx.run('UPDATE notes SET source_bookmd5 = ?, source_page = 2 WHERE noteid IN (?, ?)', [
          outside,
          ids.compact,
          ids.hidden,
        ]);
      });
    });

    it('notebooks: main, booklist, then documents only cards are anchored to; hidden cards not counted', async () => {
      const res = await t.client.call('GET /study-sets/{id}/notebooks', { params: { id: setId } });
      assert.deepEqual(
        res.notebooks.map((n) => [n.bookmd5, n.filename, n.isMain, n.isMember, n.anchoredCardCount, n.sourceState]),
        [
          [cad, 'CAD.pdf', true, true, 0, 'normal'],
          [manual, '4ti2_manual.pdf', false, true, 2, 'normal'],
          [outside, 'outside.pdf', false, false, 1, 'normal'],
        ],
      );
      const file = join(t.dataDir, 'library', 'outside.pdf');
      renameSync(file, `${file}.away`);
      try {
        const again = await t.client.call('GET /study-sets/{id}/notebooks', { params: { id: setId } });
        assert.equal(again.notebooks[2].sourceState, 'missing_file');
      } finally {
        renameSync(`${file}.away`, file);
      }
      await setRefusals('GET', 'notebooks');
    });

    const context = () => t.client.call('GET /context');
    const open = async (body: Record<string, unknown>, id = setId) => {
      const { bridgeApiVersion: _v, ...res } = await t.client.call('POST /study-sets/{id}/open', {
        params: { id },
        body,
      });
      return res;
    };

    it('open without bookmd5 opens the main document; GET /context reports the set and the document', async () => {
      const res = await open({});
      assert.deepEqual(res, { accepted: true, topicid: setId, bookmd5: cad, tempOpen: false });
      const ctx = await context();
      assert.equal(ctx.available, true);
      assert.deepEqual(ctx.studySet, { topicid: setId, title: 'Topology', isDeck: false });
      assert.equal(ctx.documents?.find((d) => d.focused)?.bookmd5, cad);
    });

    it('a booklist member opens normally; a library document outside the set opens with tempOpen:true', async () => {
      assert.equal((await open({ bookmd5: manual })).tempOpen, false);
      assert.equal((await context()).documents?.find((d) => d.focused)?.bookmd5, manual);
      const res = await open({ bookmd5: outside });
      assert.deepEqual(res, { accepted: true, topicid: setId, bookmd5: outside, tempOpen: true });
      assert.equal((await context()).documents?.find((d) => d.focused)?.bookmd5, outside);
      // Opening does not add the document to the set.
      assert.equal((await t.client.studySetDocuments(setId)).length, 2);
    });

    it('a set with no documents opens alone (bookmd5 null)', async () => {
      const empty = await t.client.createStudySet('No documents');
      assert.deepEqual(await open({}, empty.topicid), {
        accepted: true,
        topicid: empty.topicid,
        bookmd5: null,
        tempOpen: false,
      });
      assert.equal((await context()).studySet?.topicid, empty.topicid);
    });

    it('refusals: unknown document 404, missing file 422 DOCUMENT_FILE_MISSING (member or not), set refusals; nothing changes and the UI stays', async () => {
      await open({});
      const file = join(t.dataDir, 'library', 'CAD.pdf');
      const other = join(t.dataDir, 'library', 'outside.pdf');
      renameSync(file, `${file}.away`);
      renameSync(other, `${other}.away`);
      try {
        await refusals([
          ['POST', `/study-sets/${setId}/open`, {}, 422, 'DOCUMENT_FILE_MISSING'],
          ['POST', `/study-sets/${setId}/open`, { bookmd5: outside }, 422, 'DOCUMENT_FILE_MISSING'],
          ['POST', `/study-sets/${setId}/open`, { bookmd5: 'f'.repeat(32) }, 404, 'DOCUMENT_NOT_FOUND'],
          ['POST', `/study-sets/${setId}/open`, { bookmd5: 'NOT-MD5' }, 422, 'INVALID_INPUT'],
        ]);
      } finally {
        renameSync(`${file}.away`, file);
        renameSync(`${other}.away`, other);
      }
      await setRefusals('POST', 'open', {});
      const ctx = await context();
      assert.equal(ctx.studySet?.topicid, setId);
      assert.equal(ctx.documents?.find((d) => d.focused)?.bookmd5, cad, 'a refused open changed nothing in the UI');
    });
  });

  describe('POST /notes/{id}/focus', () => {
    it('focuses the card in its set: GET /context.focusedNote and studySet follow', async () => {
      const { bridgeApiVersion: _v, ...res } = await t.client.call('POST /notes/{id}/focus', {
        params: { id: ids.complete },
        body: {},
      });
      assert.deepEqual(res, { accepted: true, noteid: ids.complete, topicid: setId });
      const ctx = await t.client.call('GET /context');
      assert.equal(ctx.focusedNote, ids.complete);
      assert.deepEqual(ctx.studySet, { topicid: setId, title: 'Topology', isDeck: false });
      await t.client.cards.focus(root, setId);
      assert.equal((await t.client.call('GET /context')).focusedNote, root);
    });

    it('topicid of a set holding a reference copy focuses the copy there', async () => {
      const other = await t.client.createStudySet('Copies');
      const copy = (
        await t.client.call('POST /study-sets/{id}/notes', {
          params: { id: other.topicid },
          body: { title: 'copy', confirm: true },
        })
      ).noteid!;
      await t.bridge.services.store.write((tx) =>
        tx.run('UPDATE notes SET reference_of = ? WHERE noteid = ?', [ids.homeo, copy]),
      );
      const { bridgeApiVersion: _v, ...res } = await t.client.call('POST /notes/{id}/focus', {
        params: { id: ids.homeo },
        body: { topicid: other.topicid },
      });
      assert.deepEqual(res, { accepted: true, noteid: copy, topicid: other.topicid });
      const ctx = await t.client.call('GET /context');
      assert.deepEqual([ctx.focusedNote, ctx.studySet?.topicid, ctx.studySet?.title], [copy, other.topicid, 'Copies']);
      // And back from the copy to the original's set.
      assert.equal(
        (await t.client.call('POST /notes/{id}/focus', { params: { id: copy }, body: { topicid: setId } })).noteid,
        ids.homeo,
      );
    });

    it('refusals: unknown or hidden card 404, a set not showing it 422 NOTE_NOT_IN_SET, unknown set 404, deck 422; the focus stays', async () => {
      await t.client.request('POST', `/notes/${ids.spaces}/focus`, { body: {} });
      const plain = await t.client.createStudySet('Unrelated');
      await refusals([
        ['POST', `/notes/${NOBODY}/focus`, {}, 404, 'NOTE_NOT_FOUND'],
        ['POST', `/notes/${ids.hidden}/focus`, {}, 404, 'NOTE_NOT_FOUND'],
        ['POST', `/notes/${ids.spaces}/focus`, { topicid: plain.topicid }, 422, 'NOTE_NOT_IN_SET'],
        ['POST', `/notes/${ids.spaces}/focus`, { topicid: NOBODY }, 404, 'TOPIC_NOT_FOUND'],
        ['POST', `/notes/${ids.spaces}/focus`, { topicid: deckId }, 422, 'IS_A_DECK'],
        ['POST', `/notes/not-a-uuid/focus`, {}, 422, 'INVALID_INPUT'],
      ]);
      assert.equal((await t.client.call('GET /context')).focusedNote, ids.spaces);
    });
  });
});
