import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cardIndexBody } from '../../src/server/ground/search/cardIndexText';
import { indexTerms } from '../../src/server/ground/text/searchTerms';

/** cardIndexBody's plain-ASCII path makes one string where the general one makes a token each: the same body. */
describe('card index body: the ASCII path equals the general one (fast-check)', function () {
  it('any ASCII text gives indexTerms(text) joined by spaces', function () {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
        (text) => {
          assert.equal(cardIndexBody(text), indexTerms(text).join(' '));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('cards as they come: tags, markup left as text, digits, punctuation, empty', function () {
    for (const text of [
      'front <b>12</b> of a word\nback 12: its meaning, with an example.\n#Level::3',
      "Don't   stop -- it's   3.14!",
      '',
      '   ',
      '___',
      'ABC_def-GHI',
    ])
      assert.equal(cardIndexBody(text), indexTerms(text).join(' '));
    assert.equal(cardIndexBody('Photo-Synthesis, 2 steps'), 'photo synthesis 2 steps');
  });

  it('text beyond ASCII still goes the general way (folding, CJK bigrams)', function () {
    assert.equal(cardIndexBody('Café 光合作用'), indexTerms('Café 光合作用').join(' '));
    assert.match(cardIndexBody('Café'), /^cafe$/);
  });
});
