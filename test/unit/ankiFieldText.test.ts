import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeEntities, htmlToText } from '../../src/server/domain/decks/anki/ankiText';

/** Every pass of htmlToText, always run: what the import's shortcut for plain fields must give back. */
const everyPass = (html: string) =>
  decodeEntities(
    html
      .replace(/<(style|script)\b[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(div|p|li|h[1-6]|tr)\s*>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

// Pieces whose every mix a field might hold: blanks of each kind, markup, entities and plain words.
const PIECES = [' ', '  ', '\t', '\u00a0', '\n', '\n\n', '\n\n\n', 'word', 'é', '<b>', '</b>', '<br>', '</div>'];
const MORE = ['<style>x</style>', '&amp;', '&nbsp;', '&#160;', '&#9;', '&', '<', '>', ';'];

describe('Anki field text (the import plan)', () => {
  it('a field with no markup and no blank run is only trimmed; one with either goes through every pass', () => {
    assert.equal(htmlToText('  back 3: its meaning, with an example.\n'), 'back 3: its meaning, with an example.');
    assert.equal(htmlToText('front <b>1</b>\u00a0of  a word'), 'front 1 of a word');
    assert.equal(htmlToText('a&nbsp;&nbsp;b'), 'a b');
    assert.equal(htmlToText('a&#160;\n\n\n\nb'), 'a\n\nb');
    assert.equal(htmlToText('one\ttwo \n three'), 'one two\nthree');
  });

  it('gives what every pass gives, for any mix of blanks, markup and entities', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES, ...MORE), { maxLength: 24 }), (parts) => {
        const html = parts.join('');
        assert.equal(htmlToText(html), everyPass(html), JSON.stringify(html));
      }),
      { numRuns: 3000 },
    );
  });
});
