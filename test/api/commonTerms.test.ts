import assert from 'node:assert/strict';
import { DEFAULT_WINDOWS, LibrarySearch, type SearchWindows } from '../../src/server/domain/library/librarySearch';
import { CardLengths } from '../../src/server/ground/search/cardLengths';
import { CommonTerms } from '../../src/server/ground/search/commonTerms';
import { cardIndexBody } from '../../src/server/ground/search/cardIndexText';
import type { CreatedCard } from '../../src/client/cardsApi';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

// A term in most cards (细胞 in a biology set) is kept in memory and an AND
// with it is asked of FTS4 without it (search/commonTerms.ts, cardWindow.ts);
// the rows' lengths are kept in memory too (search/cardLengths.ts).
// Every answer is compared with FTS4's own AND over the same real bridge's
// store: same cards, same scores, same order, same counts. The bridge keeps
// terms common from 10,000 cards; these searches count from 10.
describe('Card search: an AND with a term in most cards, checked in memory', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let topicid: string;
  const ids: string[] = [];
  let common: CommonTerms;
  let lengths: CardLengths;
  const searches = (windows: SearchWindows = DEFAULT_WINDOWS) => {
    const text = {
      index: t.bridge.services.bookIndex,
      pageTexts: t.bridge.services.pages.pageTexts.bind(t.bridge.services.pages),
    };
    const store = t.bridge.services.store;
    return {
      fts: new LibrarySearch(store, text, windows),
      split: new LibrarySearch(store, text, windows, { common, lengths }),
      lengthsOnly: new LibrarySearch(store, text, windows, { lengths }),
    };
  };
  const built = async () => {
    for (let i = 0; i < 400 && (common.state.building || !lengths.ready); i++)
      await new Promise((r) => setTimeout(r, 5));
    assert.equal(common.state.building, undefined, 'postings built');
    assert.ok(lengths.ready, 'lengths built');
  };
  /** Both searches, compared; the split one's answer. */
  const same = async (q: string, windows?: SearchWindows) => {
    const { fts, split, lengthsOnly } = searches(windows);
    const a = await fts.search(q, 'notes', 50);
    const b = await split.search(q, 'notes', 50);
    assert.deepEqual(b, a, q);
    assert.deepEqual(await lengthsOnly.search(q, 'notes', 50), a, `${q} (lengths in memory only)`);
    return b;
  };
  const docidOf = (noteid: string) =>
    t.bridge.services.store.get<{ docid: number }>('SELECT docid FROM notes_fts_content WHERE c0noteid = ?', [noteid])!
      .docid;
  const newCard = async (title: string, text: string) =>
    (
      await t.client.request<CreatedCard>('POST', `/study-sets/${topicid}/notes`, {
        body: { title, text, confirm: true },
      })
    ).noteid;

  before(async () => {
    t = await startBridge();
    common = new CommonTerms(t.bridge.services.store, { minCards: 10 });
    lengths = new CardLengths(t.bridge.services.store);
    topicid = (await t.client.createStudySet('生物学')).topicid;
    // 细胞 0-3 times in the title (none in a quarter), 叶绿体 in two thirds of the texts, a Latin word in every fifth.
    for (let i = 0; i < 40; i++) {
      const title = [...Array(i % 4).fill('细胞'), `卡${i}`].join('、');
      const text = `${i % 3 !== 1 ? '叶绿体' : '线粒体'}的结构${'与功能'.repeat(1 + (i % 5))}${i % 5 === 0 ? ' cellwall' : ''}`;
      ids.push(await newCard(title, text));
    }
  });
  after(() => t.stop());

  it('细胞 (in 30 of 41 cards) gets postings after its first AND; 叶绿体 细胞 then ranks exactly as FTS4 does, and uses them', async () => {
    await same('叶绿体 细胞');
    await built();
    assert.deepEqual(common.state.ready, ['细胞']);
    const r = await same('叶绿体 细胞');
    // 叶绿体 in 27 cards; 细胞 missing from 7 of them.
    assert.equal(r.notes.length, 20);
    assert.ok(new Set(r.notes.map((n) => n.score)).size >= 3, "scores differ with 细胞's hits and the card's length");
    // 细胞 alone is ranked from its postings without reading a row (cardWindow.ts commonAlone).
    for (const q of ['细胞', '细胞 叶绿体', '细胞 cellw', '叶绿体 细胞 cellwall', '细胞 与功能 叶绿体']) await same(q);
    // The split answer comes from the postings: a card taken out of them drops out of it (and FTS4 still finds it).
    const postings = common.postings('细胞')!;
    const top = r.notes[0].noteid;
    const hits = postings.get(docidOf(top));
    postings.set(docidOf(top), 0);
    const { split, fts } = searches();
    assert.ok(!(await split.search('叶绿体 细胞', 'notes', 50)).notes.some((n) => n.noteid === top));
    assert.ok((await fts.search('叶绿体 细胞', 'notes', 50)).notes.some((n) => n.noteid === top));
    postings.set(docidOf(top), hits);
    await same('叶绿体 细胞');
  });

  it('a card written, edited or deleted over HTTP is seen by the very next search, as FTS4 sees it', async () => {
    await same('叶绿体 细胞');
    await built();
    const fresh = await newCard('细胞、细胞、新卡', '叶绿体');
    assert.ok(
      (await same('叶绿体 细胞')).notes.some((n) => n.noteid === fresh),
      'a new card',
    );
    // Card 8: 叶绿体 in its text, 细胞 nowhere; a title edit gives it 细胞, another takes it away.
    const eight = ids[8];
    assert.ok(!(await same('叶绿体 细胞')).notes.some((n) => n.noteid === eight));
    await t.client.request('POST', `/notes/${eight}/title`, {
      body: { text: '细胞、卡8', expectedPrefix: '卡8', confirm: true },
    });
    assert.ok(
      (await same('叶绿体 细胞')).notes.some((n) => n.noteid === eight),
      'an edit adds 细胞',
    );
    await t.client.request('POST', `/notes/${eight}/title`, {
      body: { text: '卡8', expectedPrefix: '细胞、卡8', confirm: true },
    });
    assert.ok(!(await same('叶绿体 细胞')).notes.some((n) => n.noteid === eight), 'an edit takes it away');
    assert.ok(!(await same('细胞')).notes.some((n) => n.noteid === eight), 'alone too');
    await t.owner.request('POST', '/notes/delete', { body: { noteIds: [fresh], confirm: true } });
    assert.ok(!(await same('叶绿体 细胞')).notes.some((n) => n.noteid === fresh), 'a deleted card');
    // The newest index row deleted, the next card takes its docid: lengths and hits are the new card's.
    const last = await newCard('细胞、细胞、细胞、末', '叶绿体');
    const docid = docidOf(last);
    // Lengths built while that row was there, so they hold it.
    const held = new CardLengths(t.bridge.services.store);
    for (let i = 0; i < 400 && !held.ready; i++) await new Promise((r) => setTimeout(r, 5));
    await t.owner.request('POST', '/notes/delete', { body: { noteIds: [last], confirm: true } });
    const next = await newCard('细胞、下一张卡片的标题要长得多', '叶绿体的结构与功能与结构与功能');
    assert.equal(docidOf(next), docid, 'the docid was taken again');
    const expected = await same('叶绿体 细胞');
    assert.ok(expected.notes.some((n) => n.noteid === next));
    assert.deepEqual(await searches().fts.search('叶绿体 细胞', 'notes', 50), expected);
    const text = {
      index: t.bridge.services.bookIndex,
      pageTexts: t.bridge.services.pages.pageTexts.bind(t.bridge.services.pages),
    };
    assert.deepEqual(
      await new LibrarySearch(t.bridge.services.store, text, DEFAULT_WINDOWS, { lengths: held }).search(
        '叶绿体 细胞',
        'notes',
        50,
      ),
      expected,
    );
    assert.deepEqual(common.state.ready, ['细胞'], 'kept up to date, not rebuilt');
  });

  it('a window that cuts reads on past cards without the common term, and says truncated as FTS4 does', async () => {
    await built();
    for (const notes of [1, 3, 5])
      for (const q of ['叶绿体 细胞', '细胞']) {
        const r = await same(q, { ...DEFAULT_WINDOWS, notes });
        assert.equal(r.scanned.notes, notes);
        assert.equal(r.truncated, true);
      }
  });

  it('a batch too large to name drops the postings; searches stay right and build them again', async () => {
    await same('叶绿体 细胞');
    await built();
    const store = t.bridge.services.store;
    // 5,001 index rows in one batch (an import's size): more than a commit names.
    await store.write((tx) => {
      for (let i = 0; i < 5001; i++)
        tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [
          `bulk-${i}`,
          topicid,
          cardIndexBody(i % 4 ? '细胞 叶绿体' : '叶绿体'),
        ]);
    });
    assert.deepEqual(common.state.ready, []);
    assert.equal(lengths.ready, false, 'the lengths are dropped too (and start building again)');
    await same('叶绿体 细胞');
    await built();
    assert.deepEqual(common.state.ready, ['细胞'], 'built again (now in 3,780 of 5,042 rows)');
    await same('叶绿体 细胞');
    await store.write((tx) =>
      tx.run("DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE c0noteid LIKE 'bulk-%')"),
    );
    await same('叶绿体 细胞');
  });

  it('a term in under half the cards is left to FTS4', async () => {
    // 线粒 (a bigram of 线粒体) is in 13 of 41 cards.
    const r = await same('线粒 细胞');
    await built();
    assert.equal(r.notes.length, 10);
    assert.deepEqual(common.state.ready, ['细胞']);
  });
});
