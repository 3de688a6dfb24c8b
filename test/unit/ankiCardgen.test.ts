import assert from 'node:assert/strict';
import {
  cardOrds,
  clozeNumbersOf,
  fieldRequirements,
  parseTemplate,
  rendersWithFields,
} from '../../src/server/domain/decks/anki/ankiCardgen';
import { fieldIsEmpty } from '../../src/server/domain/decks/anki/ankiFieldEmpty';
import type { AnkiModel } from '../../src/server/domain/decks/anki/ankiNotetypes';

/**
 * Card generation by Anki's rule: the cases of Anki's own tests (rslib
 * template.rs `nonempty`, `requirements`; cloze.rs) and the note types real
 * decks use.
 */

const renders = (tmpl: string, fields: string[], checkNegated = true) => {
  const parsed = parseTemplate(tmpl);
  assert.ok(parsed, `${tmpl} parses`);
  return rendersWithFields(parsed, new Set(fields), checkNegated);
};

const model = (fields: string[], fronts: string[], cloze = false): AnkiModel => ({
  id: '7',
  name: 'T',
  cloze,
  fields,
  templates: fronts.map((qfmt, ord) => ({ name: `Card ${ord + 1}`, ord, qfmt, afmt: '{{FrontSide}}' })),
  css: '',
});

describe('Anki card generation (ankiCardgen.ts)', () => {
  it("renders_with_fields: Anki's nonempty cases", () => {
    assert.equal(renders('{{2}}{{1}}', ['1', '3']), true);
    assert.equal(renders('{{2}}', ['1', '3']), false);
    assert.equal(renders('{{2}}{{4}}', ['1', '3']), false);
    assert.equal(renders('{{#3}}{{^2}}{{1}}{{/2}}{{/3}}', ['1', '3']), true);
    assert.equal(renders('{{^1}}{{3}}{{/1}}', ['1', '3']), false);
    assert.equal(renders('{{^1}}{{3}}{{/1}}', ['1', '3'], false), true, 'the legacy req cache ignores negation');
  });

  it('filters count (type: too), FrontSide, text and comments do not', () => {
    assert.equal(renders('{{type:A}}', ['A']), true);
    assert.equal(renders('{{hint:text:A}}', ['A']), true);
    assert.equal(renders('Question: {{FrontSide}}', ['A']), false);
    assert.equal(renders('<!-- {{A}} -->{{B}}', ['A']), false);
    assert.equal(renders('{{ A }}', ['A']), true, 'whitespace inside the braces is trimmed');
    assert.equal(renders('{{=<% %>=}}<%A%>', ['A']), true, 'the legacy alternate syntax');
  });

  it('a front that does not parse makes no card', () => {
    assert.equal(parseTemplate('{{#A}}{{A}}'), undefined);
    assert.equal(parseTemplate('{{#A}}{{A}}{{/B}}'), undefined);
    assert.equal(parseTemplate('{{/A}}'), undefined);
    assert.deepEqual(cardOrds(model(['A'], ['{{#A}}{{A}}', '{{A}}']), ['x'], []), [1]);
  });

  it('field_is_empty: whitespace and empty br/div only (&nbsp; and pictures fill a field)', () => {
    for (const v of ['', '  \n', '<br>', '<div></div>', '<BR />', '<div> </div>\t'])
      assert.equal(fieldIsEmpty(v), true, v);
    for (const v of ['&nbsp;', '\u00a0', '<img src="a.png">', '<b></b>', 'x']) assert.equal(fieldIsEmpty(v), false, v);
  });

  it('Basic (optional reversed card): the reverse card only when Add Reverse is filled', () => {
    const optional = model(['Front', 'Back', 'Add Reverse'], ['{{Front}}', '{{#Add Reverse}}{{Back}}{{/Add Reverse}}']);
    assert.deepEqual(cardOrds(optional, ['dog', 'perro', ''], []), [0]);
    assert.deepEqual(cardOrds(optional, ['dog', 'perro', 'y'], []), [0, 1]);
    assert.deepEqual(cardOrds(optional, ['dog', '', 'y'], []), [0], 'its front shows only Back');
    assert.deepEqual(cardOrds(optional, ['dog', 'perro', '<br>'], []), [0], 'an empty <br> is empty');
  });

  it('special fields: Tags only when the note has tags, FrontSide never; a field of that name wins', () => {
    assert.deepEqual(cardOrds(model(['A'], ['{{A}}', '{{Tags}}', '{{Deck}}', '{{FrontSide}}']), [''], []), [2]);
    assert.deepEqual(cardOrds(model(['A'], ['{{A}}', '{{Tags}}']), [''], ['t']), [1]);
    assert.deepEqual(cardOrds(model(['A', 'Deck'], ['{{A}}', '{{Deck}}']), ['', ''], []), []);
  });

  it('cloze numbers as Anki reads them: c1,2 both, nested, c0 none, unclosed none, c500+ the last card', () => {
    assert.deepEqual([...clozeNumbersOf('{{c1::a}} {{c3::b::hint}}')].sort(), [1, 3]);
    assert.deepEqual([...clozeNumbersOf('{{c1,2::a}}')].sort(), [1, 2]);
    assert.deepEqual([...clozeNumbersOf('{{c1::a {{c2::b}} c}}')].sort(), [1, 2]);
    assert.deepEqual([...clozeNumbersOf('{{c0::a}} {{c4::open')], []);
    assert.deepEqual([...clozeNumbersOf('{{c::a}} {{c,::b}}')], []);
    const cloze = model(['Text', 'Back Extra'], ['{{cloze:Text}}'], true);
    assert.deepEqual(cardOrds(cloze, ['{{c2::a}}', '{{c1::b}} {{c600::z}} {{c501::y}}'], []), [0, 1, 499]);
  });

  it("legacy requirements (schema 11's req) as Anki computes them", () => {
    const names = ['a', 'b', 'c'];
    assert.deepEqual(fieldRequirements(names, '{{a}}{{b}}'), ['any', [0, 1]]);
    assert.deepEqual(fieldRequirements(names, '{{#a}}{{b}}{{/a}}'), ['all', [0, 1]]);
    assert.deepEqual(fieldRequirements(names, '{{z}}'), ['none', []]);
    assert.deepEqual(fieldRequirements(names, '{{^a}}{{b}}{{/a}}'), ['any', [1]]);
    assert.deepEqual(fieldRequirements(names, '{{^a}}{{#b}}{{c}}{{/b}}{{/a}}'), ['all', [1, 2]]);
    assert.deepEqual(fieldRequirements(names, '{{#a}}{{#b}}{{a}}{{/b}}{{/a}}'), ['all', [0, 1]]);
    assert.deepEqual(fieldRequirements(names, '{{^a}}\n{{b}}\n{{/a}}\n{{#a}}\n{{a}}\n{{b}}\n{{/a}}'), ['any', [0, 1]]);
    assert.deepEqual(
      fieldRequirements(
        names,
        '<!--{{^a}}-->\n{{b}}\n<!--{{/a}}-->\n{{#c}}\n<!--{{a}}-->\n{{b}}\n<!--{{c}}-->\n{{/c}}',
      ),
      ['any', [1]],
    );
  });
});
