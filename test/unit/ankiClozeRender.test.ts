import assert from 'node:assert/strict';
import { cardOrds } from '../../src/server/domain/decks/anki/ankiCardgen';
import type { AnkiModel } from '../../src/server/domain/decks/anki/ankiNotetypes';
import { renderAnkiCard } from '../../src/server/domain/decks/anki/ankiCardFace';
import { renderCloze } from '../../src/server/domain/decks/anki/ankiTemplate';
import { clozeNumbers, clozeQuestion, hasAnkiCloze, revealClozes } from '../../src/server/domain/decks/anki/ankiText';

/**
 * A deletion naming several cards (`{{c1,2::…}}`, Anki's rslib cloze.rs): it
 * makes a card of each number, and is hidden on the question of each of those
 * cards (as `[...]` or its hint) while the other cards show its text. A cloze
 * card whose number the fields no longer hold shows Anki's missing-cloze text.
 */

const CLOZE_MODEL: AnkiModel = {
  id: '1',
  name: 'Cloze',
  cloze: true,
  fields: ['Text', 'Back Extra'],
  templates: [{ name: 'Cloze', ord: 0, qfmt: '{{cloze:Text}}', afmt: '{{cloze:Text}}<br>{{Back Extra}}' }],
  css: '',
};

const TEXT = '{{c1,2::Paris}} is on the {{c2::Seine::river}}, {{c3::France}}.';
const note = (text: string) => ({
  fieldNames: ['Text', 'Back Extra'],
  fields: [text, ''],
  tags: [],
  modelName: 'Cloze',
});

describe('Anki cloze deletions that name several cards (c1,2)', () => {
  it('cardgen makes a card for every number named', () => {
    assert.deepEqual(cardOrds(CLOZE_MODEL, [TEXT, ''], []), [0, 1, 2]);
    assert.deepEqual(cardOrds(CLOZE_MODEL, ['{{c1,3::a}}', ''], []), [0, 2]);
  });

  it('the renderer hides the deletion on each card it names and shows it on the others', () => {
    const hide = '<span class="cloze">[...]</span>';
    assert.equal(renderCloze(TEXT, 1, 'q'), `${hide} is on the Seine, France.`);
    assert.equal(renderCloze(TEXT, 2, 'q'), `${hide} is on the <span class="cloze">[river]</span>, France.`);
    assert.equal(renderCloze(TEXT, 3, 'q'), `Paris is on the Seine, ${hide}.`);
    assert.equal(
      renderCloze(TEXT, 2, 'a'),
      '<span class="cloze">Paris</span> is on the <span class="cloze">Seine</span>, France.',
    );
    assert.equal(renderCloze('{{c12::x}} {{c1,2::y::hint}}', 1, 'q'), 'x <span class="cloze">[hint]</span>');
  });

  it('a field with no deletion for the card renders empty, as Anki’s cloze filter does', () => {
    assert.equal(renderCloze('{{c1::a}} b', 2, 'q'), '');
  });

  it('a card an edit emptied shows Anki’s message on both sides: a cloze number gone, a blank front', () => {
    const gone = renderAnkiCard(CLOZE_MODEL, note('{{c1::a}} b'), 1)!;
    assert.equal(gone.question, gone.answer);
    assert.match(gone.question, /^<div>No cloze 2 found on card\.<br>/);
    assert.match(renderAnkiCard(CLOZE_MODEL, note(TEXT), 1)!.question, /\[\.\.\.\]<\/span> is on the/);
    const reversed: AnkiModel = {
      id: '3',
      name: 'Optional reversed',
      cloze: false,
      fields: ['Front', 'Back', 'Add Reverse'],
      templates: [
        { name: 'Card 1', ord: 0, qfmt: '{{Front}}', afmt: '{{Back}}' },
        { name: 'Card 2', ord: 1, qfmt: 'Q: {{#Add Reverse}}{{Back}}{{/Add Reverse}}', afmt: '{{Front}}' },
      ],
      css: '',
    };
    const fields = (rev: string) => ({ ...note(''), fieldNames: reversed.fields, fields: ['dog', 'perro', rev] });
    assert.deepEqual(renderAnkiCard(reversed, fields(''), 1), {
      question: '<div>The front of this card is blank.</div>',
      answer: '<div>The front of this card is blank.</div>',
    });
    assert.deepEqual(renderAnkiCard(reversed, fields('y'), 1), { question: 'Q: perro', answer: 'dog' });
    assert.equal(renderAnkiCard(reversed, fields(''), 5), undefined);
  });

  it('the text helpers read every number: questions, numbers, markup and titles', () => {
    assert.deepEqual(clozeNumbers(TEXT), [1, 2, 3]);
    assert.deepEqual(clozeNumbers('{{c0::a}} {{c2,1::b}}'), [1, 2]);
    assert.equal(clozeQuestion(TEXT, 1), '{{c1::Paris}} is on the Seine, France.');
    assert.equal(clozeQuestion(TEXT, 2), '{{c2::Paris}} is on the {{c2::Seine::river}}, France.');
    assert.ok(hasAnkiCloze('{{c1,2::x}}'));
    assert.ok(!hasAnkiCloze('{{c,::x}}'));
    assert.equal(revealClozes(TEXT), 'Paris is on the Seine, France.');
  });
});
