import assert from 'node:assert/strict';
import { cardFtsQuery, cardIndexBody } from '../../src/server/ground/search/cardIndexText';
import { matchPages } from '../../src/server/ground/search/bookQuery';
import { HEADER_BYTES, decodeBody, decodeHeader, encodeBook } from '../../src/server/ground/search/indexFormat';
import { snippetOf } from '../../src/server/ground/search/searchRanking';
import { indexTerms, searchQuery } from '../../src/server/ground/text/searchTerms';

describe('Search terms from the text module (CJK words and bigrams)', () => {
  it('a CJK run becomes its bigrams, its last character and its words; Latin tokens fold as the matcher folds them', () => {
    assert.deepEqual(indexTerms('植物的光合作用。ATP合成酶 Café'), [
      '植物',
      '物的',
      '的光',
      '光合',
      '合作',
      '作用',
      '用',
      '光合作用',
      'atp',
      '合成',
      '成酶',
      '酶',
      'cafe',
    ]);
    assert.deepEqual(
      indexTerms('ミトコンドリア'),
      ['ミト', 'トコ', 'コン', 'ンド', 'ドリ', 'リア', 'ア', 'ミトコンドリア'],
      'kana keep their voicing marks',
    );
    assert.deepEqual(indexTerms('광합성은'), ['광합', '합성', '성은', '은', '광합성은'], 'Hangul stays composed');
    assert.deepEqual(
      indexTerms('Die Größe der Zellé ﬁsh'),
      ['die', 'große', 'der', 'zelle', 'fish'],
      'ligatures unfold as for locate',
    );
  });
  it('radicals and full-width forms read as ordinary characters (PDF fonts map 用 to ⽤); CJK lines join without a space', () => {
    assert.deepEqual(indexTerms('光合作⽤'), indexTerms('光合作用'));
    assert.deepEqual(indexTerms('ＡＴＰ合成'), ['atp', '合成', '成']);
    assert.deepEqual(indexTerms('光合\n作用'), indexTerms('光合作用'), 'a wrapped line');
    assert.deepEqual(
      indexTerms('光合 作用'),
      ['光合', '合', '作用', '用'],
      'a space (Korean word spacing) separates runs',
    );
  });
  it('a query asks for the bigrams of its CJK runs, ranks by their words; a lone character or a Latin word is a prefix', () => {
    const [zh, one, atp, run, cafe] = searchQuery('光合作用 叶 atp合成酶 Café');
    assert.deepEqual([zh.terms, zh.prefix, zh.bonus], [['光合', '合作', '作用'], false, ['光合作用']]);
    assert.deepEqual([one.terms, one.prefix], [['叶'], true]);
    assert.deepEqual([atp.terms, atp.prefix], [['atp'], true]);
    assert.deepEqual(run, { key: '合成酶', cjk: true, terms: ['合成', '成酶'], prefix: false, bonus: [] });
    assert.deepEqual([cafe.terms, cafe.cjk], [['cafe'], false]);
    assert.equal(searchQuery('a b c d e f g h i j k l m n o p q r').length, 16);
  });
  it('the card index body is the terms; its FTS query: Latin prefixes, CJK phrases of bigrams or a word', () => {
    assert.equal(cardIndexBody('Eigenvalues\nof a matrix'), 'eigenvalues of a matrix');
    assert.equal(cardFtsQuery(searchQuery('eigen matrix')), 'body:eigen* body:matrix*');
    assert.equal(cardIndexBody('叶绿体的结构与功能'), '叶绿 绿体 体的 的结 结构 构与 与功 功能 能 叶绿体');
    assert.equal(
      cardFtsQuery(searchQuery('结构 光合作用 叶 atp合成酶')),
      '结构 "光合 合作 作用" body:叶* body:atp* "合成 成酶" (光合作用 OR 光合)',
    );
    assert.equal(cardFtsQuery(searchQuery('光合作用')), '(光合作用 OR "光合 合作 作用")');
    assert.equal(cardFtsQuery(searchQuery('!!! …')), undefined);
    assert.equal(
      cardFtsQuery(searchQuery('叶绿体的结构')),
      '"叶绿 绿体 体的 的结 结构"',
      'a word inside the run (叶绿体) would widen the match: phrase only',
    );
  });
  it('snippets bracket a CJK word as one run, with a few characters of context; Latin snippets unchanged', () => {
    const zh = '植物通过光合作用把光能转化为化学能。光合作⽤发生在叶绿体中，叶绿体的结构与功能密切相关。';
    assert.equal(snippetOf(zh, searchQuery('光合作用')), '植物通过[光合作用]把光能转化为化学能。[光合作用]发生在…');
    assert.equal(snippetOf('植物通过光合\n作用把光能', searchQuery('光合作用')), '植物通过[光合作用]把光能');
    assert.equal(
      snippetOf('The cell wall and the cell membrane', searchQuery('cell')),
      'The [cell] wall and the [cell] membrane',
    );
  });

  it('book index: the bigrams find every page holding them; the word ranks the page where it stands as a word first', () => {
    const file = encodeBook([
      { page: 1, text: '合作用光合作' }, // the three bigrams of 光合作用, never the word
      { page: 2, text: '植物的光合作用' },
      { page: 3, text: '光合' },
    ]);
    const h = decodeHeader(file);
    const body = decodeBody(h, file.subarray(HEADER_BYTES + h.bloomBytes, HEADER_BYTES + h.bloomBytes + h.bodyBytes));
    const [q] = searchQuery('光合作用');
    const bytes = (ws: string[]) => ws.map((w) => Buffer.from(w, 'utf8'));
    const hits = matchPages(body, bytes(q.terms), false, 6, bytes(q.bonus));
    assert.deepEqual(hits.map((x) => x.page).sort(), [1, 2]);
    const score = (p: number) => hits.find((x) => x.page === p)!.score;
    assert.ok(score(2) > score(1), `${score(2)} > ${score(1)}`);
    const plain = matchPages(body, bytes(q.terms), false, 6);
    assert.ok(plain.find((x) => x.page === 2)!.score < score(2), 'the word adds to the score');
  });
});
