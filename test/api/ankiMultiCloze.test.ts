import assert from 'node:assert/strict';
import { ankiConnectBridge } from '../helpers/ankiConnectPost';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { buildApkg, crtDaysAgo, type BuildPackage } from '../helpers/ankiPackageBuilder';

/**
 * Anki's note → cards model for clozes (rslib cloze.rs, notetype/cardgen.rs):
 * `{{c1,2::…}}` is one deletion on cards 1 and 2, hidden on the question of
 * each and shown on the others; an edit adds the cards of new cloze numbers
 * and never removes one whose number is gone (that card shows Anki's
 * missing-cloze message).
 */

const MULTI = '{{c1,2::Paris}} is on the {{c2::Seine::river}}, in {{c3::France}}.';

function multiPackage(): BuildPackage {
  return {
    crt: crtDaysAgo(10),
    decks: ['Geo'],
    models: [{ name: 'Cloze', fields: ['Text', 'Back Extra'], cloze: true }],
    notes: [
      {
        guid: 'multi',
        model: 'Cloze',
        fields: [MULTI, 'Geography'],
        cards: [0, 1, 2].map((ord) => ({ ord, due: ord + 1 })),
      },
      {
        guid: 'pair',
        model: 'Cloze',
        fields: ['{{c1,3::Rhine}} and {{c2::Rhône}}', ''],
        cards: [0, 1, 2].map((ord) => ({ ord, due: ord + 4 })),
      },
    ],
  };
}

describe('Anki clozes naming several cards, and cards added on an edit', function () {
  this.timeout(60_000);

  describe('.apkg import', () => {
    let t: TestBridge;
    before(async () => (t = await startBridge()));
    after(() => t.stop());

    it('a c1,2 deletion is hidden on cards 1 and 2 and shown on card 3', async () => {
      const res = await t.client.raw('POST', '/decks/import', {
        bytes: await buildApkg(multiPackage()),
        query: { filename: 'Geo.apkg', confirm: 1 },
      });
      assert.equal(res.status, 200, res.text());
      const r = res.json<{ deckId: string; cards: number; notes: number }>();
      assert.deepEqual([r.notes, r.cards], [2, 6]);
      const due = await t.client.reviews.due(r.deckId);
      const faces = due.cards.map((c: any) => [c.question.text, c.answer.body]).sort();
      assert.deepEqual(faces, [
        ['Paris is on the Seine, in [...].', 'Paris is on the Seine, in France.\nGeography'],
        ['Rhine and [...]', 'Rhine and Rhône'],
        ['[...] and Rhône', 'Rhine and Rhône'],
        ['[...] and Rhône', 'Rhine and Rhône'],
        ['[...] is on the Seine, in France.', 'Paris is on the Seine, in France.\nGeography'],
        ['[...] is on the [river], in France.', 'Paris is on the Seine, in France.\nGeography'],
      ]);
    });
  });

  describe('AnkiConnect edits', () => {
    let t: TestBridge;
    let call: Awaited<ReturnType<typeof ankiConnectBridge>>['call'];
    before(async () => ({ t, call } = await ankiConnectBridge()));
    after(() => t.stop());

    const add = async (text: string) => {
      const r = await call('addNote', { note: { deckName: 'Edits', modelName: 'Cloze', fields: { Text: text } } });
      assert.equal(r.error, null);
      return r.result as number;
    };
    const update = async (note: number, text: string) =>
      assert.equal((await call('updateNoteFields', { note: { id: note, fields: { Text: text } } })).error, null);
    const cardsOf = async (note: number) =>
      (await call('cardsInfo', { cards: (await call('notesInfo', { notes: [note] })).result[0].cards })).result.map(
        (c: any) => ({ id: c.cardId, ord: c.ord, deck: c.deckName, question: c.question, type: c.type }),
      );

    it('a c1 note edited to add c2 (or c1,2) gains the second card, new, in the same deck', async () => {
      const note = await add('{{c1::Paris}} is on the Seine.');
      const [own] = await cardsOf(note);
      assert.equal((await cardsOf(note)).length, 1);
      await update(note, '{{c1,2::Paris}} is on the {{c2::Seine}}.');
      const cards = await cardsOf(note);
      assert.deepEqual(
        cards.map((c: any) => [c.ord, c.deck, c.type]),
        [
          [0, 'Edits', 0],
          [1, 'Edits', 0],
        ],
      );
      assert.ok(
        cards.some((c: any) => c.id === own.id),
        'the card it had keeps its id',
      );
      assert.match(cards[1].question, /\[\.\.\.\]<\/span> is on the <span class="cloze">\[\.\.\.\]/);
      assert.match(cards[0].question, /\[\.\.\.\]<\/span> is on the Seine/);
    });

    it('a note whose c2 is removed keeps both cards; the c2 card shows Anki’s missing-cloze message', async () => {
      const note = await add('{{c1::Lyon}} lies on the {{c2::Rhône}}.');
      const before = await cardsOf(note);
      assert.equal(before.length, 2);
      await update(note, '{{c1::Lyon}} lies on the Rhône.');
      const after = await cardsOf(note);
      assert.deepEqual(
        after.map((c: any) => c.id),
        before.map((c: any) => c.id),
      );
      assert.match(after[1].question, /No cloze 2 found on card/);
      assert.match(after[0].question, /\[\.\.\.\]<\/span> lies on the Rhône/);
    });

    it('a card added by an edit goes to the deck the note’s cards are in (Anki’s rule), moved or not', async () => {
      const note = await add('{{c1::Oslo}} is in Norway.');
      const [own] = await cardsOf(note);
      assert.equal((await call('changeDeck', { cards: [own.id], deck: 'Moved' })).error, null);
      await update(note, '{{c1::Oslo}} is in {{c2::Norway}}.');
      assert.deepEqual(
        (await cardsOf(note)).map((c: any) => [c.ord, c.deck]),
        [
          [0, 'Moved'],
          [1, 'Moved'],
        ],
      );
    });

    it('a template card emptied by an edit stays and shows Anki’s blank-front message', async () => {
      const model = {
        modelName: 'Optional reversed',
        inOrderFields: ['Front', 'Back', 'Add Reverse'],
        cardTemplates: [
          { Name: 'Card 1', Front: '{{Front}}', Back: '{{Back}}' },
          { Name: 'Card 2', Front: '{{#Add Reverse}}{{Back}}{{/Add Reverse}}', Back: '{{Front}}' },
        ],
      };
      assert.equal((await call('createModel', model)).error, null);
      const fields = { Front: 'dog', Back: 'perro', 'Add Reverse': 'y' };
      const r = await call('addNote', { note: { deckName: 'Edits', modelName: model.modelName, fields } });
      assert.equal(r.error, null);
      const note = r.result as number;
      assert.equal((await cardsOf(note))[1].question, 'perro');
      const emptied = await call('updateNoteFields', { note: { id: note, fields: { 'Add Reverse': '' } } });
      assert.equal(emptied.error, null);
      const cards = await cardsOf(note);
      assert.deepEqual(
        cards.map((c: any) => [c.ord, c.question]),
        [
          [0, 'dog'],
          [1, '<div>The front of this card is blank.</div>'],
        ],
      );
    });

    it('a cloze note is a duplicate only of the same first field, answers and numbers included (as Anki)', async () => {
      await add('{{c1::Rome}} lies by the {{c2::Tiber}}.');
      await add('{{c1::Pisa}} lies by the {{c2::Arno}}.');
      await add('{{c2::Rome}} lies by the {{c1::Tiber}}.');
      const again = await call('addNote', {
        note: { deckName: 'Edits', modelName: 'Cloze', fields: { Text: '{{c1::Rome}} lies by the {{c2::Tiber}}.' } },
      });
      assert.equal(again.error, 'cannot create note because it is a duplicate');
    });

    it('updateNote: fields add the cards new cloze numbers make, tags are replaced; neither is refused', async () => {
      const note = await add('{{c1::Bern}} is in Switzerland.');
      const r = await call('updateNote', {
        note: { id: note, fields: { Text: '{{c1::Bern}} is in {{c2::Switzerland}}.' }, tags: ['geo::capitals'] },
      });
      assert.equal(r.error, null);
      assert.deepEqual(
        (await cardsOf(note)).map((c: any) => c.ord),
        [0, 1],
      );
      assert.deepEqual((await call('notesInfo', { notes: [note] })).result[0].tags, ['geo::capitals']);
      const none = await call('updateNote', { note: { id: note } });
      assert.equal(none.error, 'Must provide a "fields" or "tags" property.');
    });
  });
});
