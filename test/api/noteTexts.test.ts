import assert from 'node:assert/strict';
import { inlineHashtags } from '../../src/server/domain/cards/noteTitleText';
import { prefixOf } from '../../src/server/domain/cards/expectedPrefix';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';
import { UNKNOWN_ID, card, newSet, operations, post, read, refused, treeNodes } from './noteEditsFixture';
import type { RouteAnswer } from '../../src/client/routeCalls';

/** A sentence of page 10 of asymptote.pdf, verbatim: an excerpt the create route anchors. */
const VERBATIM =
  'By default, Asymptote attempts to center the figure on the page, assuming that the paper type is letter.';
const LONG = 'The spectral theorem says that every real symmetric matrix is orthogonally diagonalisable.';

describe('inlineHashtags (pure)', () => {
  for (const [text, want] of [
    ['#exam tomorrow', ['exam']],
    ['see #Math/Algebra. and #2024', ['Math/Algebra', '2024']],
    ['line one\n#tag', ['tag']],
    ['# Heading\n## Sub heading', []],
    ['page#3 and C# and a#b', []],
    ['#-not and # spaced', []],
  ] as const) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(want)}`, () => assert.deepEqual(inlineHashtags(text), want));
  }
  it('prefixOf counts code points, never cutting a surrogate pair', () =>
    assert.equal(prefixOf('😀'.repeat(40)), '😀'.repeat(32)));
});

describe('POST /notes/{id}/title and /notes/{id}/text', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  before(async () => {
    t = await startBridge();
    setId = (await newSet(t, 'Texts set')).topicid;
  });
  after(() => t.stop());

  const title = (id: string, body: Record<string, unknown>, as?: 'agent' | 'person') =>
    post(t, `/notes/${id}/title`, body, as);
  const text = (id: string, body: Record<string, unknown>) => post(t, `/notes/${id}/text`, body);

  describe('title', () => {
    it('renames with the current title as expectedPrefix; tree and batch-get read it back; a title operation by the actor', async () => {
      const a = await card(t, setId, { title: 'Old title' });
      const res = await title(a, { text: 'New title', expectedPrefix: 'Old title' }, 'person');
      assert.deepEqual([res.persisted, res.noteid, res.title, res.updatedReferences], [true, a, 'New title', []]);
      assert.equal((await treeNodes(t, setId))[a].title, 'New title');
      assert.equal((await read(t, a))[a].title, 'New title');
      const op = operations(t).at(-1)!;
      assert.deepEqual([op.kind, op.actor, op.noteIds], ['title', 'user', [a]]);
      const hits = await t.client.call('GET /search', { query: { q: 'New title', scope: 'notes' } });
      assert.ok(JSON.stringify(hits).includes(a), 'searchable at once');
    });

    it('expectedPrefix is the first 32 characters: they match, and so does the whole value; a shorter or differently cased prefix does not (409 PREFIX_MISMATCH with actualPrefix)', async () => {
      const a = await card(t, setId, { title: LONG });
      const err = await refused(
        t,
        `/notes/${a}/title`,
        { text: 'x', expectedPrefix: 'The spectral' },
        409,
        'PREFIX_MISMATCH',
      );
      assert.equal(err.details.actualPrefix, LONG.slice(0, 32));
      await refused(
        t,
        `/notes/${a}/title`,
        { text: 'x', expectedPrefix: LONG.slice(0, 32).toLowerCase() },
        409,
        'PREFIX_MISMATCH',
      );
      await refused(t, `/notes/${a}/title`, { text: 'x', expectedPrefix: '' }, 409, 'PREFIX_MISMATCH');
      await title(a, { text: 'Spectral theorem, short', expectedPrefix: err.details.actualPrefix });
      await title(a, { text: 'Spectral theorem', expectedPrefix: 'Spectral theorem, short' });
      assert.equal((await read(t, a))[a].title, 'Spectral theorem');
    });

    it('the body field markdown is not a title option: listed in ignoredFields', async () => {
      const a = await card(t, setId, { title: 'Plain' });
      const res = await title(a, { text: 'Plainer', expectedPrefix: 'Plain', markdown: true });
      assert.deepEqual(res.ignoredFields, ['markdown']);
    });

    it('refusals: missing expectedPrefix, too long, unknown or hidden card', async () => {
      const a = await card(t, setId, { title: 'Guarded' });
      const err = await refused(t, `/notes/${a}/title`, { text: 'x' }, 422, 'INVALID_INPUT');
      assert.equal(err.details.issues[0].path, 'expectedPrefix');
      await refused(
        t,
        `/notes/${a}/title`,
        { text: 'x'.repeat(2001), expectedPrefix: 'Guarded' },
        422,
        'INVALID_INPUT',
      );
      await refused(t, `/notes/${a}/title`, { text: 'x', expectedPrefix: 'Guarded' }, 422, 'CONFIRM_REQUIRED', false);
      await refused(t, `/notes/${UNKNOWN_ID}/title`, { text: 'x', expectedPrefix: '' }, 404, 'NOTE_NOT_FOUND');
      await refused(t, '/notes/not-a-card/title', { text: 'x', expectedPrefix: '' }, 422, 'INVALID_INPUT');
      await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [a]));
      await refused(t, `/notes/${a}/title`, { text: 'x', expectedPrefix: 'Guarded' }, 404, 'NOTE_NOT_FOUND');
    });
  });

  describe('text', () => {
    it('sets the body; "" matches an empty body; batch-get reads kind text, excerpt false; a text operation', async () => {
      const a = await card(t, setId, { title: 'No body yet' });
      const res = await text(a, { text: 'A scalar λ with Av = λv.', expectedPrefix: '' });
      assert.deepEqual(
        [res.persisted, res.detachedFromExcerpt, res.kind, res.updatedReferences],
        [true, false, 'text', []],
      );
      assert.deepEqual((await read(t, a))[a].texts, [
        { index: 0, text: 'A scalar λ with Av = λv.', excerpt: false, noteid: a, kind: 'text' },
      ]);
      assert.deepEqual([operations(t).at(-1)!.kind, operations(t).at(-1)!.noteIds], ['text', [a]]);
      await refused(t, `/notes/${a}/text`, { text: 'other', expectedPrefix: '' }, 409, 'PREFIX_MISMATCH', true);
    });

    it('markdown:true stores kind markdown and keeps it on later edits without the flag; "" removes the body (sparse texts)', async () => {
      const a = await card(t, setId, { title: 'Md', text: 'plain' });
      await text(a, { text: '**bold** claim', expectedPrefix: 'plain', markdown: true });
      assert.equal((await read(t, a))[a].texts[0].kind, 'markdown');
      await text(a, { text: '*still* markdown', expectedPrefix: '**bold** claim' });
      assert.equal((await read(t, a))[a].texts[0].kind, 'markdown');
      const res = await text(a, { text: '', expectedPrefix: '*still* markdown' });
      assert.equal(res.kind, null);
      assert.deepEqual((await read(t, a))[a].texts, []);
    });

    it('a hashtag in the text → 422 HASHTAG_ROUTE_REQUIRED with the canonical hashtags call, which works as given', async () => {
      const a = await card(t, setId, { title: 'Tagged by text', text: 'body' });
      const err = await refused(
        t,
        `/notes/${a}/text`,
        { text: 'Revise before the #exam and #Math/Algebra', expectedPrefix: 'body' },
        422,
        'HASHTAG_ROUTE_REQUIRED',
      );
      assert.deepEqual(err.details.hashtags, ['exam', 'Math/Algebra']);
      assert.deepEqual(err.details.example, {
        method: 'POST',
        path: '/notes/hashtags',
        body: { noteIds: [a], operation: 'add', hashtags: ['exam', 'Math/Algebra'], confirm: true },
      });
      const done = await t.client.request<RouteAnswer<'POST /notes/hashtags'>>('POST', err.details.example.path, {
        body: err.details.example.body,
      });
      assert.equal(done.persisted, true);
      assert.deepEqual([...(await read(t, a))[a].hashtags].sort(), ['Math/Algebra', 'exam']);
      // Refused even before the prefix is checked, and without confirm.
      await refused(t, `/notes/${a}/text`, { text: '#exam', expectedPrefix: 'wrong' }, 422, 'HASHTAG_ROUTE_REQUIRED');
    });

    it('a Markdown heading and mid-word "#" are not hashtags', async () => {
      const a = await card(t, setId, { title: 'Headings' });
      await text(a, { text: '# Title\n\nSee page#3 and C# code.', expectedPrefix: '', markdown: true });
      assert.equal((await read(t, a))[a].texts[0].text, '# Title\n\nSee page#3 and C# code.');
    });

    it('refusals: missing expectedPrefix, text not a string, unknown card', async () => {
      const a = await card(t, setId, { title: 'R', text: 'kept' });
      await refused(t, `/notes/${a}/text`, { text: 'x' }, 422, 'INVALID_INPUT');
      await refused(t, `/notes/${a}/text`, { text: 5, expectedPrefix: 'kept' }, 422, 'INVALID_INPUT');
      await refused(t, `/notes/${a}/text`, { text: 'x', expectedPrefix: 'KEPT' }, 409, 'PREFIX_MISMATCH');
      await refused(t, `/notes/${UNKNOWN_ID}/text`, { text: 'x', expectedPrefix: '' }, 404, 'NOTE_NOT_FOUND');
      assert.equal((await read(t, a))[a].texts[0].text, 'kept');
    });
  });

  describe('excerpt cards', () => {
    let book: string;
    before(async () => {
      book = (await upload(t, 'asymptote.pdf')).bookmd5;
      await t.bridge.services.extraction.whenReady(book);
    });

    it('editing the body detaches it from the page text (kind text, excerpt false) while the source link stays', async () => {
      const a = await card(t, setId, { title: 'Centering', excerpt: { bookmd5: book, page: 10, text: VERBATIM } });
      const before = (await read(t, a))[a];
      assert.deepEqual(
        [before.texts[0].excerpt, before.sourceAnchor.hasExcerpt, before.sourceAnchor.page],
        [true, true, 10],
      );
      assert.ok(before.sourceAnchor.rect, 'anchored');

      const res = await text(a, {
        text: 'Asymptote centres figures on letter paper by default.',
        expectedPrefix: VERBATIM.slice(0, 32),
      });
      assert.equal(res.detachedFromExcerpt, true);
      const after = (await read(t, a))[a];
      assert.deepEqual(after.texts[0], {
        index: 0,
        text: 'Asymptote centres figures on letter paper by default.',
        excerpt: false,
        noteid: a,
        kind: 'text',
      });
      assert.deepEqual(after.sourceAnchor, before.sourceAnchor, 'bookmd5, page and rect stay');
      assert.equal((await treeNodes(t, setId))[a].page, 10);

      const again = await text(a, { text: 'Edited twice.', expectedPrefix: 'Asymptote centres figures on let' });
      assert.equal(again.detachedFromExcerpt, false, 'already detached');
    });

    it('a title edit does not detach the excerpt', async () => {
      const a = await card(t, setId, {
        title: 'Still an excerpt',
        excerpt: { bookmd5: book, page: 10, text: VERBATIM },
      });
      await title(a, { text: 'Renamed excerpt', expectedPrefix: 'Still an excerpt' });
      assert.equal((await read(t, a))[a].texts[0].excerpt, true);
    });
  });

  describe('reference copies share title and body', () => {
    it('an edit through either card updates the whole group and reports updatedReferences', async () => {
      const holder = await card(t, setId, { title: 'Holder' });
      const original = await card(t, setId, { title: 'Shared', text: 'Shared body' });
      const copy = await post(t, '/notes/copy', { noteIds: [original], targetParentNoteId: holder, mode: 'reference' });
      const ref = copy.copies[0].newNoteId as string;
      const bystander = await card(t, setId, { title: 'Shared' });

      const r1 = await title(ref, { text: 'Shared, renamed', expectedPrefix: 'Shared' });
      assert.deepEqual(r1.updatedReferences, [original]);
      const r2 = await text(original, { text: 'New shared body', expectedPrefix: 'Shared body' });
      assert.deepEqual(r2.updatedReferences, [ref]);

      const cards = await read(t, original, ref, bystander);
      assert.deepEqual(
        [cards[original].title, cards[ref].title, cards[bystander].title],
        ['Shared, renamed', 'Shared, renamed', 'Shared'],
      );
      assert.deepEqual(
        [cards[original].texts[0].text, cards[ref].texts[0].text],
        ['New shared body', 'New shared body'],
      );
      // The copy's own rows agree too (a reader that does not follow reference_of sees the same).
      const own = t.bridge.services.store.get<{ title: string; text: string }>(
        'SELECT n.title, x.text FROM notes n JOIN note_texts x ON x.noteid = n.noteid AND x.idx = 0 WHERE n.noteid = ?',
        [ref],
      );
      assert.deepEqual(own, { title: 'Shared, renamed', text: 'New shared body' });
      assert.deepEqual(operations(t).at(-1)!.noteIds.sort(), [original, ref].sort());
    });
  });

  it('an edit that changes nothing writes nothing', async () => {
    const a = await card(t, setId, { title: 'Stable', text: 'Stable body' });
    const before = storeDigest(t.bridge.services.store);
    assert.equal((await title(a, { text: 'Stable', expectedPrefix: 'Stable' })).persisted, true);
    assert.equal((await text(a, { text: 'Stable body', expectedPrefix: 'Stable body' })).persisted, true);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
