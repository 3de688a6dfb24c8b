import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { migrations } from '../../src/server/ground/store/schema';
import { spawnBridge } from '../helpers/childBridge';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { UNDO_MIGRATIONS_12_TO_14 } from '../helpers/schemaRewind';
import { CJK_PDF, cjkPdf } from '../helpers/cjkPdf';
import { upload } from './documentsFixture';

/**
 * Chinese, Japanese and Korean end to end (issue 17): a PDF printed by
 * Chromium is uploaded, then searched (pages and cards), located, anchored,
 * rendered and printed. A corpus book checks that Latin search is unchanged
 * beside it.
 */
describe('CJK: search, locate, anchor, render and print', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let book: string;
  let latin: string;
  let setId: string;

  before(async () => {
    const pdf = readFileSync(cjkPdf());
    t = await startBridge();
    book = (
      await t.client.call('POST /library/documents/upload', {
        bytes: pdf,
        query: { filename: 'photosynthesis-cjk.pdf', confirm: '1' },
      })
    ).bookmd5;
    latin = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    await t.bridge.services.extraction.whenReady(latin);
    setId = (await t.client.createStudySet('光合作用 笔记')).topicid;
  });
  after(() => t?.stop());

  const search = (q: string, scope = 'all') => t.client.call('GET /search', { query: { q, scope } });
  const create = (body: Record<string, unknown>) =>
    t.client.call('POST /study-sets/{id}/notes', { params: { id: setId }, body: { ...body, confirm: true } });
  const docPages = async (q: string) =>
    (await search(q, 'documents')).documents.find((d) => d.bookmd5 === book)?.pages ?? [];

  it('document search finds CJK words inside longer runs (光合作用, ミトコンドリア, 광합성), on the right pages, with a bracketed snippet', async () => {
    assert.deepEqual(await docPages('光合作用'), [1]);
    const hit = (await search('光合作用', 'documents')).documents[0];
    assert.equal(hit.bookmd5, book);
    assert.match(hit.snippet ?? '', /\[光合作用\]/);
    assert.deepEqual(await docPages('ミトコンドリア'), [2]);
    assert.deepEqual(await docPages('광합성'), [2]);
    assert.deepEqual(await docPages('叶绿体'), [1]);
    assert.deepEqual(await docPages('结构'), [1], 'a two-character word inside 叶绿体的结构与功能');
    assert.deepEqual(await docPages('细胞'), [], 'simplified 细胞 is not the Japanese 細胞');
    assert.deepEqual(await docPages('合光'), [], 'the characters in another order are not found');
    // bm25 over bigrams: five occurrences of 光合作用 on the page score above one 结构.
    const once = (await search('结构', 'documents')).documents[0];
    assert.ok(hit.score > once.score && once.score > 0, `${hit.score} > ${once.score}`);
  });

  it('document search joins CJK lines: four characters around a line wrap of the page text are found on that page', async () => {
    const [p1] = (
      await t.client.call('GET /documents/{id}/pages', { params: { id: book }, query: { start: 1, end: 1 } })
    ).pages;
    const text = String(p1.text);
    const first = CJK_PDF.wrapped.slice(0, 6);
    const at = text.indexOf(first);
    assert.ok(at >= 0, text.slice(0, 200));
    const wrap = text.slice(at).search(/[\r\n]/) + at; // the sentence's first line ends here
    const query =
      text.slice(wrap - 2, wrap) +
      text
        .slice(wrap, wrap + 4)
        .replace(/\s+/g, '')
        .slice(0, 2);
    assert.equal(Array.from(query).length, 4, JSON.stringify(text.slice(wrap - 4, wrap + 4)));
    assert.ok(!text.includes(query) && CJK_PDF.wrapped.includes(query), `${query} only stands across the wrap`);
    assert.deepEqual(await docPages(query), [1], query);
  });

  it('cards: a Japanese word inside a longer run is found; the characters reversed are not', async () => {
    const ja = await create({ title: '細胞', text: CJK_PDF.japanese });
    for (const q of ['ミトコンドリア', 'コンドリア', 'エネルギー工場'])
      assert.deepEqual(
        (await search(q, 'notes')).notes.map((n) => n.noteid),
        [ja.noteid],
        q,
      );
    assert.match((await search('ミトコンドリア', 'notes')).notes[0].snippet, /\[ミトコンドリア\]は/);
    assert.deepEqual(
      (await search('ミトコンドリ', 'notes')).notes.map((n) => n.noteid),
      [ja.noteid],
      'bigrams find a word cut short',
    );
    assert.deepEqual((await search('アリドンコトミ', 'notes')).notes, [], 'the characters reversed');
  });

  it('Latin search is unchanged beside CJK books', async () => {
    const r = await search('asymptote', 'documents');
    assert.equal(r.documents[0]?.bookmd5, latin);
    assert.ok(!r.documents.some((d) => d.bookmd5 === book));
  });

  it('locate finds the Chinese sentence that wraps over three lines (depends on the matcher: CJK lines join without a space)', async () => {
    const loc = await t.client.call('POST /documents/{id}/locate', {
      params: { id: book },
      body: { page: 1, text: CJK_PDF.wrapped },
    });
    assert.equal(loc.found, true, JSON.stringify(loc));
    assert.ok(loc.rect!.height > 30, `the rectangle covers the wrapped lines: ${JSON.stringify(loc.rect)}`);
  });

  it('an anchored card titled 叶绿体的结构与功能 is found by 结构, 功能 and 能; an untitled excerpt child shows its first words', async () => {
    const card = await create({
      title: '叶绿体的结构与功能',
      excerpt: { bookmd5: book, page: 1, text: '叶绿体由外膜、内膜和基质组成' },
    });
    assert.equal(card.sourceAnchor?.hasExcerpt, true);
    assert.equal(card.sourceAnchor.page, 1);
    assert.ok(card.sourceAnchor.rect, `anchored: ${JSON.stringify(card.warnings)}`);
    for (const q of ['结构', '叶绿体的结构', '功能', '能', '叶绿体 功能']) {
      const r = await search(q, 'notes');
      assert.deepEqual(
        r.notes.map((n) => n.noteid),
        [card.noteid],
        `"${q}" finds the card`,
      );
    }
    assert.match((await search('结构', 'notes')).notes[0].snippet, /叶绿体的\[结构\]与功能/);
    assert.deepEqual((await search('构结', 'notes')).notes, []);
    // A card holding only 叶绿体 is found by 叶绿体, never by 叶绿体的结构 (the word inside the run must not widen it).
    const only = await create({ title: '叶绿体' });
    assert.deepEqual(
      (await search('叶绿体的结构', 'notes')).notes.map((n) => n.noteid),
      [card.noteid],
    );
    assert.deepEqual(
      new Set((await search('叶绿体', 'notes')).notes.map((n) => n.noteid)),
      new Set([card.noteid, only.noteid]),
    );

    // An excerpt child with its title cleared shows the excerpt's first words, in the tree and the deck.
    const child = await create({
      parentNoteId: card.noteid,
      excerpt: { bookmd5: book, page: 1, text: CJK_PDF.wrapped },
    });
    const title = (await t.client.call('POST /notes/batch-get', { body: { noteIds: [child.noteid!] } })).notes[0].title;
    await t.client.request('POST', `/notes/${child.noteid}/title`, {
      body: { text: '', expectedPrefix: Array.from(title).slice(0, 32).join(''), confirm: true },
    });
    const node = (await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } })).nodes.find(
      (n) => n.noteid === child.noteid,
    );
    assert.ok(node);
    assert.equal(node.title, '');
    assert.equal(node.displayTitle, CJK_PDF.wrapped, 'the 45-character excerpt, whole');
    // The review panel and the deck list show the same words as the card's front.
    const deckId = (await t.client.createDeck('光合作用 复习')).deckId;
    await t.client.request('POST', `/decks/${deckId}/cards`, {
      body: { cards: [{ sourceNoteId: child.noteid }], confirm: true },
    });
    const [listed] = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards;
    assert.equal(listed.title, CJK_PDF.wrapped);
    const [due] = (await t.client.call('GET /decks/{id}/due', { params: { id: deckId } })).cards;
    assert.deepEqual([due.question.kind, due.question.text], ['title', CJK_PDF.wrapped]);
  });

  it('a card render draws CJK with a real font: the same characters in another order render differently', async () => {
    const a = await create({ title: '光合作用', text: 'ミトコンドリア 광합성' });
    const b = await create({ title: '用作合光', text: 'アリドンコトミ 성합광' });
    const ra = await t.client.raw('GET', `/notes/${a.noteid}/render`, { query: { width: 400 } });
    const rb = await t.client.raw('GET', `/notes/${b.noteid}/render`, { query: { width: 400 } });
    assert.equal(ra.status, 200);
    assert.equal(ra.headers.get('x-render-warnings'), null, 'a CJK font was found');
    assert.equal(ra.headers.get('x-render-height'), rb.headers.get('x-render-height'));
    assert.notDeepEqual(ra.bytes, rb.bytes, 'boxes for every glyph would render both alike');
  });

  it('mind-map print writes CJK titles as text (pdftotext reads them back), not "?"', async () => {
    const plan = await t.client.call('POST /study-sets/{id}/mind-map-print/preview', {
      params: { id: setId },
      body: { mode: 'cardFlow' },
    });
    const res = await t.client.raw('POST', `/study-sets/${setId}/mind-map-print/export`, { body: { plan } });
    assert.equal(res.status, 200, res.text());
    const out = res.json<any>();
    const text = execFileSync('pdftotext', [out.path, '-'], { encoding: 'utf8' });
    assert.ok(text.includes('叶绿体的结构与功能'), `pdftotext reads the CJK title back: ${text.slice(0, 300)}`);
    assert.equal(out.warnings, undefined, JSON.stringify(out.warnings));
    // The font is embedded as a subset (its glyphs drawn, not the whole 5+ MB file), and poppler accepts it.
    const fonts = execFileSync('pdffonts', [out.path], { encoding: 'utf8' });
    assert.match(fonts, /CID TrueType\s+Identity-H\s+yes/, fonts);
    assert.ok(statSync(out.path).size < 200_000, `${statSync(out.path).size} bytes`);
    const drawn = spawnSync('pdftoppm', ['-r', '20', '-png', out.path, join(tempDir(), 'p')], { encoding: 'utf8' });
    assert.equal(drawn.status, 0);
    assert.doesNotMatch(drawn.stderr, /error/i, 'poppler draws the embedded font without complaint');
    assert.ok(!text.includes('??'));
  });
});

describe('CJK: a data dir from before the shared search terms (schema 8, unicode61)', function () {
  this.timeout(60_000);
  it("migration 9 rebuilds the card index at start with the text module's terms: 结构 and ミトコンドリア find their cards", async () => {
    const dataDir = tempDir();
    try {
      const t1 = await startBridge({ dataDir });
      const set = await t1.client.createStudySet('Biology');
      const make = async (title: string, text: string) =>
        (
          await t1.client.call('POST /study-sets/{id}/notes', {
            params: { id: set.topicid },
            body: { title, text, confirm: true },
          })
        ).noteid as string;
      const zh = await make('叶绿体的结构与功能', 'chloroplast');
      const ja = await make('Cell', 'ミトコンドリアは細胞のエネルギー工場');
      const store = t1.bridge.services.store;
      // As a schema-8 bridge left it: unicode61 over the raw text, which holds a CJK run as one token.
      await store.write((tx) => {
        const rows = tx.all<{ noteid: string; topicid: string; body: string }>(
          `SELECT n.noteid, n.topicid, n.title || coalesce(char(10) || (SELECT group_concat(text, char(10)) FROM note_texts x WHERE x.noteid = n.noteid), '') AS body FROM notes n WHERE hidden = 0`,
        );
        tx.run('DROP TABLE notes_fts');
        tx.run('CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=unicode61)');
        tx.run('CREATE INDEX notes_fts_content_noteid ON notes_fts_content(c0noteid)');
        tx.run('CREATE INDEX notes_fts_content_topic ON notes_fts_content(c1topicid)');
        tx.run('CREATE VIRTUAL TABLE pages_fts USING fts4(bookmd5, page, body, tokenize=unicode61)');
        for (const r of rows)
          tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [r.noteid, r.topicid, r.body]);
        tx.run(`UPDATE meta SET value = '8' WHERE key = 'schema_version'`);
        tx.run(`DELETE FROM meta WHERE key = 'card_index_terms'`);
        // Nor had it what migrations 12-14 add (deck options, Anki's cards, the state column): they run again.
        for (const sql of UNDO_MIGRATIONS_12_TO_14) tx.run(sql);
      });
      const notes = async (t: TestBridge, q: string) =>
        (await t.client.call('GET /search', { query: { q, scope: 'notes' } })).notes.map((n) => n.noteid);
      assert.deepEqual(await notes(t1, '结构'), [], 'unicode61 held 叶绿体的结构与功能 as one token');
      assert.deepEqual(await notes(t1, 'ミトコンドリア'), []);
      await t1.stop();

      const t2 = await startBridge({ dataDir });
      try {
        const s2 = t2.bridge.services.store;
        assert.equal(s2.schemaVersion, migrations.at(-1)!.version, 'upgraded through 9 (this index) to the newest');
        assert.match(
          s2.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'notes_fts'`)!.sql,
          /tokenize=simple, order=DESC/,
          'doclists newest first, as a search reads them',
        );
        assert.equal(s2.get(`SELECT name FROM sqlite_master WHERE name = 'pages_fts'`), undefined);
        assert.equal(
          s2.get(`SELECT name FROM sqlite_master WHERE name = 'notes_fts_content_topic'`),
          undefined,
          'the rebuilt index has no index by set (schema 18)',
        );
        assert.deepEqual(await notes(t2, '结构'), [zh]);
        assert.deepEqual(await notes(t2, 'chloroplast'), [zh]);
        assert.deepEqual(await notes(t2, 'ミトコンドリア'), [ja]);
        assert.deepEqual(await notes(t2, 'コンドリア'), [ja], 'a word inside a longer run');
        assert.deepEqual(await notes(t2, 'cell'), [ja]);
        assert.equal(
          s2.get<{ n: number }>('SELECT count(*) AS n FROM notes_fts')!.n,
          s2.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE hidden = 0')!.n,
        );
      } finally {
        await t2.stop();
      }
      // Once rebuilt, a start does not write the index again.
      const t3 = await startBridge({ dataDir });
      try {
        const docids = t3.bridge.services.store.all('SELECT docid FROM notes_fts_content ORDER BY docid');
        assert.deepEqual(await notes(t3, '结构'), [zh]);
        assert.ok(docids.length >= 3);
        assert.deepEqual(t3.bridge.services.store.all('SELECT docid FROM notes_fts_content ORDER BY docid'), docids);
      } finally {
        await t3.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Runs the built CLI (run `npm run build` after changing src/): the font is looked up once per process. */
describe('CJK: a machine without a CJK font', function () {
  this.timeout(60_000);
  it('a render of a CJK card says so in X-Render-Warnings; a Latin card renders without a warning', async () => {
    const dataDir = tempDir('sb-cjk-nofont-');
    const child = await spawnBridge(['--data', dataDir, '--port', '0'], { STUDY_BRIDGE_CJK_FONT: 'none' });
    try {
      const client = new BridgeClient({
        baseUrl: child.baseUrl,
        token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
      });
      const set = await client.createStudySet('No font');
      const make = async (title: string) =>
        (
          await client.call('POST /study-sets/{id}/notes', {
            params: { id: set.topicid },
            body: { title, confirm: true },
          })
        ).noteid as string;
      const zh = await client.raw('GET', `/notes/${await make('光合作用')}/render`);
      assert.equal(zh.status, 200);
      assert.match(
        zh.headers.get('x-render-warnings') ?? '',
        /No Chinese\/Japanese\/Korean font was found.*fonts-noto-cjk/,
      );
      const en = await client.raw('GET', `/notes/${await make('Photosynthesis')}/render`);
      assert.equal(en.status, 200);
      assert.equal(en.headers.get('x-render-warnings'), null);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
