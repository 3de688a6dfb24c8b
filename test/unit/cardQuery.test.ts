import assert from 'node:assert/strict';
import type { Database } from 'sql.js';
import { ftsWholeWords } from '../../src/server/library/librarySearch';
import { cardIndexBody, cardQuery } from '../../src/server/search/cardIndexText';
import { bm25Score } from '../../src/server/search/searchRanking';
import { loadSqlite } from '../../src/server/store/sqlite';
import { searchQuery, type QueryPart } from '../../src/server/text/searchTerms';

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
const LATIN = ['lorem', 'ipsum', 'matrix', 'matrices', 'eigen', 'eigenvalue', 'atp', 'cell', 'cellular', 'membrane', 'nebula', 'quasar', 'or', 'near', 'café', 'x1', 'dna'];
// Han pieces (细胞 goes into every card); 光合作用's characters appear nowhere else, so it stays rare.
const HAN = ['叶绿体', '叶绿体的结构', '结构', '合成酶', '线粒体', '细胞膜', '细胞核', '植物', '能量', '转化', '的', '与', '功能', '化学能'];
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
      for (let i = (half * CARDS) / 2; i < ((half + 1) * CARDS) / 2; i++) st.run([`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, 'AAAAAAAA-0000-4000-8000-000000000001', cardIndexBody(bodies[i])]);
      st.free();
      db.run('COMMIT');
    }
  });
  after(() => db.close());

  /** Every matching row, ranked as librarySearch.ts ranks a window (bm25, ties newest first). */
  function ranked(match: string, rank?: readonly number[]): Array<[number, number]> {
    const st = db.prepare(`SELECT docid, matchinfo(notes_fts, 'pcnaly') AS mi FROM notes_fts WHERE notes_fts MATCH ? ORDER BY docid DESC`);
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
    assert.deepEqual(cardQuery(searchQuery('光合作用 细胞')), { match: '"光合 合作 作用" 细胞 (光合作用 OR 光合)', rank: [2, 0, 1] });
    assert.deepEqual(cardQuery(searchQuery('结构 光合作用 叶 atp合成酶')), {
      match: '结构 "光合 合作 作用" body:叶* body:atp* "合成 成酶" (光合作用 OR 光合)',
      rank: [0, 5, 1, 2, 3, 4],
    });
    assert.deepEqual(cardQuery(searchQuery('光合作用')), { match: '(光合作用 OR "光合 合作 作用")', rank: [0, 1] }, 'one part: nothing to defer');
    assert.deepEqual(cardQuery(searchQuery('eigen matrix')), { match: 'body:eigen* body:matrix*', rank: [0, 1] });
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
