import assert from 'node:assert/strict';
import { cardFtsQuery, cardIndexBody, cardIndexText } from '../../src/server/search/cardIndexText';
import { snippetOf } from '../../src/server/search/searchRanking';
import { queryTerms, tokenize } from '../../src/server/search/tokens';

describe('CJK search tokens (bigrams)', () => {
  it('a CJK run becomes its bigrams and its last character; Latin words around it fold as before', () => {
    assert.deepEqual(tokenize('植物的光合作用。ATP合成酶 Café'), ['植物', '物的', '的光', '光合', '合作', '作用', '用', 'atp', '合成', '成酶', '酶', 'cafe']);
    assert.deepEqual(tokenize('ミトコンドリア'), ['ミト', 'トコ', 'コン', 'ンド', 'ドリ', 'リア', 'ア'], 'kana keep their voicing marks');
    assert.deepEqual(tokenize('광합성은'), ['광합', '합성', '성은', '은'], 'Hangul stays composed');
    assert.deepEqual(tokenize('Die Größe der Zellé'), ['die', 'große', 'der', 'zelle']);
  });
  it('radicals and full-width forms read as ordinary characters (PDF fonts map 用 to ⽤)', () => {
    assert.deepEqual(tokenize('光合作⽤'), tokenize('光合作用'));
    assert.deepEqual(tokenize('ＡＴＰ合成'), ['atp', '合成', '成']);
  });
  it('a query asks for the bigrams of its CJK words; a lone character stays one term (a prefix)', () => {
    assert.deepEqual(queryTerms('光合作用'), ['光合', '合作', '作用']);
    assert.deepEqual(queryTerms('叶'), ['叶']);
    assert.deepEqual(queryTerms('atp合成酶'), ['atp', '合成', '成酶']);
    assert.deepEqual(queryTerms('Café'), ['cafe']);
  });
  it('the card index: Latin text fed and asked as before; CJK adds a bigram tail the snippet never shows', () => {
    assert.equal(cardIndexBody('Eigenvalues\nof a matrix'), 'Eigenvalues\nof a matrix');
    assert.equal(cardFtsQuery(['eigen', 'matrix']), 'body:eigen* body:matrix*');
    const body = cardIndexBody('叶绿体的结构与功能');
    assert.equal(body, '叶绿体的结构与功能\n\u001f叶绿 绿体 体的 的结 结构 构与 与功 功能 能');
    assert.equal(cardIndexText(body), '叶绿体的结构与功能');
    assert.equal(cardFtsQuery(['结构', '光合作用', '叶', 'atp合成酶']), 'body:结构 "光合 合作 作用" body:叶* body:atp* "合成 成酶"');
  });
  it('snippets bracket a CJK word as one run, with a few characters of context; Latin snippets unchanged', () => {
    const zh = '植物通过光合作用把光能转化为化学能。光合作⽤发生在叶绿体中，叶绿体的结构与功能密切相关。';
    assert.equal(snippetOf(zh, ['光合作用']), '植物通过[光合作用]把光能转化为化学能。[光合作用]发生在…');
    assert.equal(snippetOf('The cell wall and the cell membrane', ['cell']), 'The [cell] wall and the [cell] membrane');
  });
});
