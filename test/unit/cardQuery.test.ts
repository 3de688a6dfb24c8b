import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { Database } from 'sql.js';
import { rebuildCardIndex } from '../../src/server/domain/cards/cardIndexRebuild';
import { ftsWholeWords } from '../../src/server/ground/search/cardWindow';
import { cardIndexBody, cardQuery, plainTermOf } from '../../src/server/ground/search/cardIndexText';
import { bm25Score } from '../../src/server/ground/search/searchRanking';
import { loadSqlite } from '../../src/server/ground/store/sqlite';
import { Store } from '../../src/server/ground/store/store';
import { searchQuery, type QueryPart } from '../../src/server/ground/text/searchTerms';
import { tempDir } from '../helpers/bridgeFixture';

/**
 * The card index query as it was before multi-part queries put each CJK
 * phrase in the top-level AND (cardIndexText.ts cardQuery): every part in
 * query order, a run that is a word as `(body:word OR phrase)`, a bigram as
 * `body:bigram`. Kept as the reference the new query must answer alike.
 */
function legacyQuery(parts: readonly QueryPart[]): string | undefined {
  const out = parts.map((p) => {
    if (p.prefix) return `body:${p.terms[0]}*`;
    const phrase = p.terms.length === 1 ? `body:${p.terms[0]}` : `"${p.terms.join(' ')}"`;
    return p.bonus.includes(p.key) ? `(body:${p.key} OR ${phrase})` : phrase;
  });
  return out.length ? out.join(' ') : undefined;
}

/** A seeded generator, so every run builds the same corpus. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const CARDS = 4000;
const LATIN = [
  'lorem',
  'ipsum',
  'matrix',
  'matrices',
  'eigen',
  'eigenvalue',
  'atp',
  'cell',
  'cellular',
  'membrane',
  'nebula',
  'quasar',
  'or',
  'near',
  'café',
  'x1',
  'dna',
];
// Han pieces (细胞 goes into every card); 光合作用's characters appear nowhere else, so it stays rare.
const HAN = [
  '叶绿体',
  '叶绿体的结构',
  '结构',
  '合成酶',
  '线粒体',
  '细胞膜',
  '细胞核',
  '植物',
  '能量',
  '转化',
  '的',
  '与',
  '功能',
  '化学能',
];
const OTHER = ['ミトコンドリア', '광합성은', '광합성', 'ATP合成酶', 'DNA複製'];

function corpus(): string[] {
  const rand = rng(17);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(xs.length * rand() ** 2)];
  const out: string[] = [];
  for (let n = 1; n <= CARDS; n++) {
    const latin = Array.from({ length: 3 + Math.floor(rand() * 8) }, () => pick(LATIN)).join(' ');
    const han = Array.from({ length: 2 + Math.floor(rand() * 6) }, () => pick(HAN)).join('');
    const rare = n % 400 === 7 ? '光合作用' : '';
    const other = n % 7 === 0 ? `\n${pick(OTHER)}` : '';
    // 细胞 twice in some cards, so the rank's term frequencies differ.
    out.push(`${latin}\n细胞${han}${rare}${n % 3 === 0 ? '细胞' : ''}。${other}`);
  }
  return out;
}

const QUERIES = [
  'lorem',
  'matr',
  'eigen matrix',
  'cell membrane lorem',
  'or near',
  'quasar nebula',
  '细胞',
  '叶',
  '叶绿体',
  '光合作用',
  '叶绿体 细胞',
  '光合作用 细胞',
  '细胞 光合作用',
  '细胞 光合作用 叶绿体',
  '光合作用 光合作用',
  '叶绿体的结构 细胞',
  '线粒体 叶绿体 细胞膜',
  'atp合成酶 细胞',
  'lorem 光合作用',
  'lor 细胞 叶绿体',
  'ミトコンドリア 細胞',
  'ミトコンドリア 细胞',
  '광합성 细胞',
  'dna 複製',
  'a b c d e f g 叶绿体 细胞 光合作用 线粒体 结构 植物 能量 转化 功能',
];

describe('Card index query: each CJK phrase in the top-level AND, ranked as before', function () {
  this.timeout(60_000);
  let db: Database;
  before(async () => {
    const SQL = await loadSqlite();
    db = new SQL.Database();
    db.run('CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=simple, order=DESC)');
    const bodies = corpus();
    // Two big transactions: two segments whose doclists for 细胞 spill over a page, as at scale.
    for (let half = 0; half < 2; half++) {
      db.run('BEGIN');
      const st = db.prepare('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)');
      for (let i = (half * CARDS) / 2; i < ((half + 1) * CARDS) / 2; i++)
        st.run([
          `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          'AAAAAAAA-0000-4000-8000-000000000001',
          cardIndexBody(bodies[i]),
        ]);
      st.free();
      db.run('COMMIT');
    }
  });
  after(() => db.close());

  /** Every matching row, ranked as librarySearch.ts ranks a window (bm25, ties newest first). */
  function ranked(match: string, rank?: readonly number[]): Array<[number, number]> {
    const st = db.prepare(
      `SELECT docid, matchinfo(notes_fts, 'pcnaly') AS mi FROM notes_fts WHERE notes_fts MATCH ? ORDER BY docid DESC`,
    );
    st.bind([match]);
    const rows: Array<[number, number]> = [];
    while (st.step()) {
      const [docid, mi] = st.get() as [number, Uint8Array];
      rows.push([docid, bm25Score(mi, rank)]);
    }
    st.free();
    return rows.sort((a, b) => b[1] - a[1]);
  }

  it('the phrases stand in the AND; a word ORs with its first bigram after the parts, and the rank sums word, phrase per part', () => {
    const shape = (q: string) => {
      const { match, rank } = cardQuery(searchQuery(q))!;
      return { match, rank };
    };
    assert.deepEqual(shape('光合作用 细胞'), { match: '"光合 合作 作用" 细胞 (光合作用 OR 光合)', rank: [2, 0, 1] });
    assert.deepEqual(shape('结构 光合作用 叶 atp合成酶'), {
      match: '结构 "光合 合作 作用" body:叶* body:atp* "合成 成酶" (光合作用 OR 光合)',
      rank: [0, 5, 1, 2, 3, 4],
    });
    assert.deepEqual(
      shape('光合作用'),
      { match: '(光合作用 OR "光合 合作 作用")', rank: [0, 1] },
      'one part: nothing to defer',
    );
    assert.deepEqual(shape('eigen matrix'), { match: 'body:eigen* body:matrix*', rank: [0, 1] });
  });

  it('names each matchinfo phrase by its part and kind (what a split query completes from: cardWindow.ts)', () => {
    assert.deepEqual(cardQuery(searchQuery('光合作用 细胞'))!.phrases, [
      { part: 0, kind: 'phrase' },
      { part: 1, kind: 'phrase' },
      { part: 0, kind: 'word' },
      { part: 0, kind: 'bigram' },
    ]);
    assert.deepEqual(cardQuery(searchQuery('光合作用'))!.phrases, [
      { part: 0, kind: 'word' },
      { part: 0, kind: 'phrase' },
    ]);
    assert.deepEqual(cardQuery(searchQuery('细胞'))!.phrases, [{ part: 0, kind: 'phrase' }]);
    assert.equal(plainTermOf(searchQuery('细胞')[0]), '细胞', 'two characters: one bigram');
    assert.equal(plainTermOf(searchQuery('叶绿体')[0]), undefined, 'a phrase of bigrams');
    assert.equal(plainTermOf(searchQuery('叶')[0]), undefined, 'a prefix');
    assert.equal(plainTermOf(searchQuery('cell')[0]), undefined, 'Latin: a prefix');
  });

  it('answers every query with the same cards, scores and order as the query before (prefix and whole-word forms)', () => {
    let compared = 0;
    for (const q of QUERIES) {
      const parts = searchQuery(q);
      const now = cardQuery(parts)!;
      const before = legacyQuery(parts)!;
      for (const [old, next] of [
        [before, now.match],
        [ftsWholeWords(before), ftsWholeWords(now.match)],
      ]) {
        const want = ranked(old);
        assert.deepEqual(ranked(next, now.rank), want, `${q}: ${next} vs ${old}`);
        compared += want.length;
      }
    }
    assert.ok(ranked(cardQuery(searchQuery('光合作用 细胞'))!.match).length >= 10, 'the rare word is found');
    assert.ok(compared > 20_000, `compared ${compared} rows`);
  });

  it('lets FTS4 defer the common word beside a rare CJK word (it then reads the word from the candidate rows)', () => {
    // A deferred token is checked against the row's stored text, not the index: blank the text of one
    // card holding both words and only a query that defers 细胞 stops finding it. The old query never did.
    const parts = searchQuery('光合作用 细胞');
    const hits = (m: string) => ranked(m).map(([d]) => d);
    const [card] = hits(cardQuery(parts)!.match);
    db.run(`UPDATE notes_fts_content SET c2body = '' WHERE docid = ?`, [card]);
    assert.ok(hits(legacyQuery(parts)!).includes(card), 'the old query decodes 细胞 from the index');
    assert.ok(!hits(cardQuery(parts)!.match).includes(card), 'the new query defers 细胞');
  });
});

describe('Card index automerge: cards written one by one stay in few segments, answered alike', function () {
  this.timeout(60_000);
  const PLAIN = 'CREATE VIRTUAL TABLE %s USING fts4(noteid, topicid, body, tokenize=simple, order=DESC)';
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = tempDir();
    store = await Store.open(dir, { idleCheckpointMs: 0 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Card-by-card writes: writes that meet in one group commit are a SAVEPOINT each, which flushes FTS4's pending terms, so each is a segment. */
  const writeCards = (tables: readonly string[], n = 600) =>
    Promise.all(
      corpus()
        .slice(0, n)
        .map((b, i) =>
          store.write((tx) =>
            tables.forEach((t) =>
              tx.run(`INSERT INTO ${t}(noteid, topicid, body) VALUES (?, ?, ?)`, [`N${i}`, 'T', cardIndexBody(b)]),
            ),
          ),
        ),
    );
  const segments = (t: string) => store.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}_segdir`)!.n;
  /** Every query's matches as librarySearch.ts ranks them, whole-word form too. */
  const answers = (t: string) =>
    QUERIES.flatMap((q) => {
      const { match, rank } = cardQuery(searchQuery(q))!;
      return [match, ftsWholeWords(match)].map((m) =>
        store
          .all<{ docid: number; mi: Uint8Array }>(
            `SELECT docid, matchinfo(${t}, 'pcnaly') AS mi FROM ${t} WHERE ${t} MATCH ? ORDER BY docid DESC`,
            [m],
          )
          .map((r) => [r.docid, bm25Score(r.mi, rank)] as const)
          .sort((a, b) => b[1] - a[1]),
      );
    });

  it('a new data dir makes the index with automerge=4: a few segments, the same cards, scores and order as a table without it', async () => {
    await rebuildCardIndex(store);
    assert.equal(
      store.get<{ value: number }>('SELECT value FROM notes_fts_stat WHERE id = 2')?.value,
      4,
      "FTS4 keeps 'automerge=4' with the table",
    );
    await store.write((tx) => tx.run(PLAIN.replace('%s', 'plain_fts')));
    await writeCards(['notes_fts', 'plain_fts']);
    assert.ok(segments('plain_fts') >= 15, `without automerge: ${segments('plain_fts')} segments`);
    assert.ok(segments('notes_fts') <= 6, `with automerge: ${segments('notes_fts')} segments`);
    const want = answers('plain_fts');
    assert.deepEqual(answers('notes_fts'), want);
    assert.ok(want.flat().length > 3000, `compared ${want.flat().length} rows`);
    const both = cardQuery(searchQuery('叶绿体 细胞'))!;
    assert.ok(
      store.all(`SELECT docid FROM notes_fts WHERE notes_fts MATCH ?`, [both.match]).length > 20,
      '叶绿体 细胞 finds its cards',
    );
  });

  it("an index kept before ('3': the ids indexed) is made again at start: ids stored, not indexed, the same answers", async () => {
    await store.write((tx) => {
      tx.run('DROP TABLE IF EXISTS notes_fts');
      tx.run(PLAIN.replace('%s', 'notes_fts'));
      tx.run('CREATE INDEX notes_fts_content_noteid ON notes_fts_content(c0noteid)');
      tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('card_index_terms', '3')`);
    });
    // Cards whose rows the rebuild reads: a card, its text, in one set; ids of the kind the bridge makes (uuid: hex groups).
    const ids = corpus()
      .slice(0, 300)
      .map((_b, i) => `${(0x1000 + i).toString(16)}aa-4bcd-8ef0-1234-56789abcdef0`);
    await store.write((tx) => {
      corpus()
        .slice(0, 300)
        .forEach((b, i) => {
          tx.run(
            `INSERT INTO notes(noteid, topicid, parent_id, position, title, kind, created_at, modified_at) VALUES (?, 'T', NULL, ?, ?, 'card', '', '')`,
            [ids[i], i, `Card ${i}`],
          );
          tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, ?, 0, 'text')`, [ids[i], b]);
          tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [
            ids[i],
            'T',
            cardIndexBody(`Card ${i}\n${b}`),
          ]);
        });
    });
    const want = answers('notes_fts');
    assert.ok(
      store.all(`SELECT docid FROM notes_fts WHERE notes_fts MATCH '4bcd'`).length > 0,
      "'3' indexed an id's hex groups",
    );
    const idTerms = store.get<{ n: number }>(`SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH '4bcd'`)!.n;
    assert.equal(await rebuildCardIndex(store), 300, 'every row written again');
    assert.match(
      store.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'notes_fts'`)!.sql,
      /notindexed=noteid, notindexed=topicid/,
    );
    assert.equal(
      store.get<{ n: number }>(`SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH '4bcd'`)!.n,
      0,
      `an id's hex group is no term now (was in ${idTerms} rows)`,
    );
    assert.deepEqual(
      store.get<{ noteid: string }>(`SELECT noteid FROM notes_fts WHERE docid = (SELECT max(docid) FROM notes_fts)`),
      { noteid: ids[299] },
      'ids stored',
    );
    assert.equal(store.get<{ value: number }>('SELECT value FROM notes_fts_stat WHERE id = 2')?.value, 4);
    const docids = (rows: Array<Array<readonly [number, number]>>) => rows.map((r) => r.map(([, score]) => score));
    assert.deepEqual(docids(answers('notes_fts')), docids(want), 'the same scores in the same order (docids are new)');
    assert.equal(await rebuildCardIndex(store), 0);
  });
});
