import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { ankiConnectBridge } from '../helpers/ankiConnectPost';
import { buildApkg, crtDaysAgo, type BuildPackage } from '../helpers/ankiPackageBuilder';

/**
 * A note with one card that gains more keeps that card on its own template:
 * when its one card is not its first template (Card 2 of a two-sided type,
 * or c2 of a cloze), the card, its scheduling and review log stay at that
 * ordinal, and the new card is the one added (Anki's cards keep their ord).
 */

const SIDES = {
  modelName: 'Two sides',
  inOrderFields: ['A', 'B'],
  cardTemplates: [
    { Name: 'Card 1', Front: '{{B}}', Back: '{{FrontSide}}<hr id=answer>{{A}}' },
    { Name: 'Card 2', Front: '{{A}}', Back: '{{FrontSide}}<hr id=answer>{{B}}' },
  ],
};

describe('Anki cards keep their template when a note gains cards', function () {
  this.timeout(60_000);

  describe('AnkiConnect updateNoteFields', () => {
    let t: TestBridge;
    let call: Awaited<ReturnType<typeof ankiConnectBridge>>['call'];
    before(async () => {
      ({ t, call } = await ankiConnectBridge());
      assert.equal((await call('createModel', SIDES)).error, null);
    });
    after(() => t.stop());

    const infos = async (cards: number[]) =>
      (await call('cardsInfo', { cards })).result as Array<{
        cardId: number;
        ord: number;
        reps: number;
        question: string;
      }>;
    const cardsOf = async (note: number) => (await call('notesInfo', { notes: [note] })).result[0].cards as number[];

    async function gainsFirst(model: string, before: Record<string, string>, after: Record<string, string>) {
      const added = await call('addNote', { note: { deckName: 'Sides', modelName: model, fields: before } });
      assert.equal(added.error, null);
      const [only] = await cardsOf(added.result);
      assert.deepEqual(
        (await infos([only])).map((c) => c.ord),
        [1],
        'its one card is the second template',
      );
      assert.deepEqual((await call('answerCards', { answers: [{ cardId: only, ease: 3 }] })).result, [true]);
      assert.equal((await call('updateNoteFields', { note: { id: added.result, fields: after } })).error, null);
      const cards = await infos(await cardsOf(added.result));
      const kept = cards.find((c) => c.cardId === only);
      assert.ok(kept, 'the card it had is still its card');
      return { kept, cards };
    }

    it('a two-sided note with only Card 2 given B: Card 2 keeps its id and review; Card 1 is the new card', async () => {
      const { kept, cards } = await gainsFirst('Two sides', { A: 'perro', B: '' }, { B: 'dog' });
      assert.equal(kept.ord, 1, 'still Card 2');
      assert.equal(kept.reps, 1);
      assert.match(kept.question, /perro/);
      assert.deepEqual(cards.map((c) => [c.ord, c.reps]).sort(), [
        [0, 0],
        [1, 1],
      ]);
    });

    it('a cloze note with only c2 given c1: the c2 card keeps its id and review; c1 is the new card', async () => {
      const { kept, cards } = await gainsFirst(
        'Cloze',
        { Text: 'The {{c2::Seine}} flows.', 'Back Extra': '' },
        { Text: '{{c1::Paris}}: the {{c2::Seine}} flows.' },
      );
      assert.equal(kept.ord, 1, 'still c2');
      assert.equal(kept.reps, 1);
      assert.deepEqual(cards.map((c) => [c.ord, c.reps]).sort(), [
        [0, 0],
        [1, 1],
      ]);
    });
  });

  describe('.apkg import again, the note now with more cards', () => {
    let t: TestBridge;
    before(async () => (t = await startBridge()));
    after(() => t.stop());

    const pkg = (ords: number[]): BuildPackage => ({
      crt: crtDaysAgo(30),
      decks: ['Sides'],
      models: [
        {
          name: SIDES.modelName,
          fields: SIDES.inOrderFields,
          templates: SIDES.cardTemplates.map((c) => ({ name: c.Name, qfmt: c.Front, afmt: c.Back })),
        },
      ],
      notes: [
        {
          guid: 'sides-1',
          model: SIDES.modelName,
          fields: ['dog', 'perro'],
          cards: ords.map((ord) =>
            ord === 1 ? { ord, type: 2, queue: 2, due: 35, ivl: 7, reps: 3, lapses: 0 } : { ord, type: 0, due: 1 },
          ),
        },
      ],
    });
    const importBytes = async (bytes: Uint8Array) => {
      const res = await t.client.raw('POST', '/decks/import', { bytes, query: { filename: 'Sides.apkg', confirm: 1 } });
      assert.equal(res.status, 200, res.text());
      return res.json<{ deckId: string; cards: number }>();
    };

    it("the one card (Card 2) stays Card 2's: its review card and log go to Card 2's child, Card 1's is new", async () => {
      const one = await importBytes(await buildApkg(pkg([1])));
      const store = t.bridge.services.store;
      const [old] = (await t.client.cards.deckCards(one.deckId)).cards;
      await t.client.request('POST', `/decks/${one.deckId}/reviews`, {
        body: { cardNoteId: old.cardNoteId, rating: 'good', confirm: true },
      });
      const again = await importBytes(await buildApkg(pkg([0, 1])));
      assert.equal(again.cards, 2);
      const ordOf = (cardNoteId: string) =>
        store.get<{ ord: number }>(
          'SELECT a.ord FROM deck_cards c JOIN anki_cards a ON a.noteid = c.source_note_id WHERE c.card_note_id = ?',
          [cardNoteId],
        )?.ord;
      assert.equal(ordOf(old.cardNoteId), 1, 'the card that was Card 2 is still Card 2');
      const cards = (await t.client.cards.deckCards(one.deckId)).cards;
      assert.equal(cards.length, 2);
      const logs = (id: string) =>
        store.get<{ n: number }>('SELECT count(*) AS n FROM review_logs WHERE card_note_id = ?', [id])!.n;
      assert.ok(logs(old.cardNoteId) >= 1, 'its review log stays with it');
      const other = cards.find((c: any) => c.cardNoteId !== old.cardNoteId)!;
      assert.equal(ordOf(other.cardNoteId), 0);
      const parent = store.get<{ noteid: string }>("SELECT noteid FROM anki_notes WHERE guid = 'sides-1'")!.noteid;
      assert.ok(
        cards.every((c: any) => c.sourceNoteId !== parent),
        "no review card is left on the note's own card",
      );
    });
  });
});
