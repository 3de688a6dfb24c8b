import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card, type CardBody } from '../helpers/libraryFixtures';

const NOBODY = '00000000-0000-4000-8000-00000000ABCD';
const MD5 = 'a'.repeat(32);

describe('POST /notes/batch-get', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let root: string;
  const ids: Record<string, string> = {};
  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Algebra');
    setId = set.topicid;
    root = set.rootNoteId!;
    const create = (body: CardBody) => card(t, setId, body);
    ids.plain = await create({
      title: 'Groups',
      text: 'A group is a set with an associative operation.',
      colorIndex: 7,
      fillIndex: 0,
    });
    ids.child = await create({ parentNoteId: ids.plain, title: 'Abelian groups' });
    ids.rich = await create({ title: 'Rings' });
    ids.other = await create({ title: 'Fields' });
    ids.hidden = await create({ title: 'Hidden' });
    ids.copy = await create({ parentNoteId: ids.other, title: 'stale title of the copy' });
    // Comments, blanks, parts, hashtags, links, excerpts and reference copies are written directly: their write routes belong to other modules.
    await t.bridge.services.store.write((tx) => {
      tx.run(
        `INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, 'Rings have two operations.', 1, 'excerpt'), (?, 1, 'first comment', 0, 'text'), (?, 2, '', 0, 'blank'), (?, 4, 'fourth', 0, 'text')`,
        [ids.rich, ids.rich, ids.rich, ids.rich],
      );
      tx.run(
        `UPDATE notes SET source_bookmd5 = ?, source_page = 12, source_rect = '{"x":72,"y":100.5,"width":300,"height":24}', folded = 1, sub_map = 1 WHERE noteid = ?`,
        [MD5, ids.rich],
      );
      tx.run(
        `INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type) VALUES ('P-2', ?, 2, 'ink', 'image/png'), ('P-1', ?, 1, 'excerpt_image', 'image/png')`,
        [ids.rich, ids.rich],
      );
      tx.run(`INSERT INTO note_hashtags(noteid, path) VALUES (?, 'Math/Algebra/Rings'), (?, 'exam')`, [
        ids.rich,
        ids.rich,
      ]);
      tx.run(
        `INSERT INTO note_links(noteid, target_id, created_at) VALUES (?, ?, '2024-01-01'), (?, ?, '2024-01-02'), (?, ?, '2024-01-03')`,
        [ids.rich, ids.plain, ids.other, ids.rich, ids.rich, ids.hidden],
      );
      tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [ids.hidden]);
      tx.run('UPDATE notes SET reference_of = ? WHERE noteid = ?', [ids.rich, ids.copy]);
    });
  });
  after(() => t.stop());

  const batch = (noteIds: string[]) => t.client.call('POST /notes/batch-get', { body: { noteIds } });

  it('a plain card: body text, metadata, no parts beyond title and body, childCount, dates', async () => {
    const { notes, notFound } = await batch([ids.plain]);
    assert.deepEqual(notFound, []);
    const n = notes[0];
    assert.equal(n.noteid, ids.plain);
    assert.equal(n.topicid, setId);
    assert.equal(n.parent, root);
    assert.equal(n.title, 'Groups');
    assert.deepEqual(n.texts, [
      {
        index: 0,
        text: 'A group is a set with an associative operation.',
        excerpt: false,
        noteid: ids.plain,
        kind: 'text',
      },
    ]);
    assert.deepEqual(
      n.parts.map((p) => [p.index, p.kind, p.textIndex, p.contentId]),
      [
        [0, 'title', undefined, null],
        [1, 'text', 0, null],
      ],
    );
    assert.deepEqual(n.metadata, { colorIndex: 7, fillIndex: 0 });
    assert.deepEqual(
      [n.hashtags, n.hashtagPaths, n.links, n.folded, n.isSubMapRoot, n.childCount, n.referenceOf],
      [[], [], [ids.rich], false, false, 1, null],
    );
    assert.deepEqual(n.sourceAnchor, { hasExcerpt: false, bookmd5: null, page: null, rect: null, rects: [] });
    assert.match(n.createdAt, /^\d{4}-\d\d-\d\dT/);
    assert.equal(n.modifiedAt, n.createdAt);
  });

  it('a rich card: sparse texts with the blank included, parts in visual order, hashtags and their paths, source anchor, two-way links to visible cards', async () => {
    const n = (await batch([ids.rich])).notes[0];
    assert.deepEqual(
      n.texts.map((x) => [x.index, x.text, x.excerpt, x.kind, x.noteid]),
      [
        [0, 'Rings have two operations.', true, 'excerpt', ids.rich],
        [1, 'first comment', false, 'text', ids.rich],
        [2, '', false, 'blank', ids.rich],
        [4, 'fourth', false, 'text', ids.rich],
      ],
    );
    assert.deepEqual(
      n.parts.map((p) => [p.index, p.kind, p.contentId, p.excerpt, p.mimeType, p.textIndex]),
      [
        [0, 'title', null, false, 'text/plain', undefined],
        [1, 'excerpt', null, true, 'text/plain', 0],
        [2, 'excerpt_image', 'P-1', true, 'image/png', undefined],
        [3, 'ink', 'P-2', false, 'image/png', undefined],
        [4, 'text', null, false, 'text/plain', 1],
        [5, 'blank', null, false, 'text/plain', 2],
        [6, 'text', null, false, 'text/plain', 4],
      ],
    );
    assert.deepEqual(n.hashtags, ['exam', 'Math/Algebra/Rings']);
    assert.deepEqual(n.hashtagPaths[1], {
      hashtag: '#Math/Algebra/Rings',
      path: 'Math/Algebra/Rings',
      name: 'Rings',
      segments: ['Math', 'Algebra', 'Rings'],
      depth: 3,
      ancestors: ['Math', 'Math/Algebra'],
    });
    assert.deepEqual(n.hashtagPaths[0], {
      hashtag: '#exam',
      path: 'exam',
      name: 'exam',
      segments: ['exam'],
      depth: 1,
      ancestors: [],
    });
    assert.deepEqual(n.sourceAnchor, {
      hasExcerpt: true,
      bookmd5: MD5,
      page: 12,
      rect: { x: 72, y: 100.5, width: 300, height: 24 },
      rects: [{ x: 72, y: 100.5, width: 300, height: 24 }],
    });
    assert.deepEqual(n.links.sort(), [ids.plain, ids.other].sort(), 'both directions; the hidden card is left out');
    assert.deepEqual([n.folded, n.isSubMapRoot, n.childCount], [true, true, 0]);
  });

  it('a reference copy reads its original’s title, texts and source; its place, tags and metadata are its own', async () => {
    const n = (await batch([ids.copy])).notes[0];
    assert.equal(n.referenceOf, ids.rich);
    assert.equal(n.title, 'Rings');
    assert.equal(n.parent, ids.other);
    assert.equal(n.texts.length, 4);
    assert.equal(n.texts[0].noteid, ids.rich, 'the text lives on the original');
    assert.equal(n.sourceAnchor.page, 12);
    assert.deepEqual(n.hashtags, []);
  });

  it('keeps the order asked, drops duplicates, lists unknown and hidden ids in notFound (200); lower-case ids are accepted', async () => {
    const res = await batch([ids.other, NOBODY, ids.plain.toLowerCase(), ids.hidden, ids.other]);
    assert.deepEqual(
      res.notes.map((n) => n.noteid),
      [ids.other, ids.plain],
    );
    assert.deepEqual(res.notFound, [NOBODY, ids.hidden]);
  });

  it('200 ids are read; 201 → 422, empty → 422, a non-UUID → 422; reads change nothing', async () => {
    const many = Array.from({ length: 199 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const before = storeDigest(t.bridge.services.store);
    const ok = await batch([ids.plain, ...many]);
    assert.equal(ok.notes.length, 1);
    assert.equal(ok.notFound.length, 199);
    for (const [label, noteIds] of [
      ['201 ids', [ids.plain, ...many, NOBODY]],
      ['empty', []],
      ['a bookmd5', [MD5]],
      ['not a list', ids.plain],
    ] as const) {
      const res = await t.client.raw('POST', '/notes/batch-get', { body: { noteIds } });
      assert.equal(res.status, 422, label);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT', label);
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
