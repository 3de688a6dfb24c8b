import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { ankiConnectBridge } from '../helpers/ankiConnectPost';
import { buildApkg, crtDaysAgo, type BuildPackage } from '../helpers/ankiPackageBuilder';

/**
 * Which cards a note has follows Anki's rule (rslib template.rs), with
 * "Basic (optional reversed card)": its reverse card exists only when Add
 * Reverse is filled. Through AnkiConnect (addNote; updateNoteFields adds a
 * card that becomes non-empty and, as Anki, never removes one that becomes
 * empty) and through an .apkg (the cards come in as Anki made them, and the
 * export's legacy `req` says what Anki computes, so an older Anki makes them).
 */

const FIELDS = ['Front', 'Back', 'Add Reverse'];
const REVERSE_FRONT = '{{#Add Reverse}}{{Back}}{{/Add Reverse}}';
const OPTIONAL = {
  modelName: 'Basic (optional reversed card)',
  inOrderFields: FIELDS,
  cardTemplates: [
    { Name: 'Card 1', Front: '{{Front}}', Back: '{{FrontSide}}<hr id=answer>{{Back}}' },
    { Name: 'Card 2', Front: REVERSE_FRONT, Back: '{{FrontSide}}<hr id=answer>{{Front}}' },
  ],
};

describe('Anki card generation: a card exists when its front is non-empty by Anki’s rule', function () {
  this.timeout(60_000);

  describe('AnkiConnect', () => {
    let t: TestBridge;
    let call: Awaited<ReturnType<typeof ankiConnectBridge>>['call'];
    before(async () => {
      ({ t, call } = await ankiConnectBridge());
      assert.equal((await call('createModel', OPTIONAL)).error, null);
    });
    after(() => t.stop());

    const add = async (fields: Record<string, string>) => {
      const r = await call('addNote', { note: { deckName: 'Optional', modelName: OPTIONAL.modelName, fields } });
      assert.equal(r.error, null);
      return r.result as number;
    };
    const cardsOf = async (note: number) => (await call('notesInfo', { notes: [note] })).result[0].cards as number[];
    const ordsOf = async (note: number) =>
      ((await call('cardsInfo', { cards: await cardsOf(note) })).result as Array<{ ord: number }>).map((c) => c.ord);

    it('addNote: the reverse card only when Add Reverse is filled (&nbsp; fills it, an empty <br> does not)', async () => {
      assert.deepEqual(await ordsOf(await add({ Front: 'dog', Back: 'perro', 'Add Reverse': '' })), [0]);
      assert.deepEqual(await ordsOf(await add({ Front: 'cat', Back: 'gato', 'Add Reverse': 'y' })), [0, 1]);
      assert.deepEqual(await ordsOf(await add({ Front: 'cow', Back: 'vaca', 'Add Reverse': '&nbsp;' })), [0, 1]);
      assert.deepEqual(await ordsOf(await add({ Front: 'ant', Back: 'hormiga', 'Add Reverse': '<br>' })), [0]);
      assert.deepEqual(await ordsOf(await add({ Front: 'owl', Back: '', 'Add Reverse': 'y' })), [0]);
    });

    it('updateNoteFields adds the reverse card once Add Reverse is filled, and keeps it when emptied again', async () => {
      const note = await add({ Front: 'bird', Back: 'pájaro', 'Add Reverse': '' });
      const [own] = await cardsOf(note);
      const update = (v: string) => call('updateNoteFields', { note: { id: note, fields: { 'Add Reverse': v } } });
      assert.equal((await update('y')).error, null);
      const both = await cardsOf(note);
      assert.deepEqual(await ordsOf(note), [0, 1]);
      assert.ok(both.includes(own), 'the card it had stays, with its id');
      assert.equal((await update('')).error, null);
      assert.deepEqual(await cardsOf(note), both, 'Anki never removes a card on an edit');
    });
  });

  describe('.apkg import and export', () => {
    let t: TestBridge;
    let u: TestBridge;
    before(async () => {
      t = await startBridge();
      u = await startBridge();
    });
    after(async () => {
      await t.stop();
      await u.stop();
    });

    const pkg = (): BuildPackage => ({
      crt: crtDaysAgo(10),
      decks: ['Optional'],
      models: [
        {
          name: OPTIONAL.modelName,
          fields: FIELDS,
          templates: OPTIONAL.cardTemplates.map((c) => ({ name: c.Name, qfmt: c.Front, afmt: c.Back })),
        },
      ],
      notes: [
        { guid: 'one-way', model: OPTIONAL.modelName, fields: ['dog', 'perro', ''], cards: [{ ord: 0, due: 1 }] },
        {
          guid: 'two-way',
          model: OPTIONAL.modelName,
          fields: ['cat', 'gato', 'y'],
          cards: [
            { ord: 0, due: 2 },
            { ord: 1, due: 3 },
          ],
        },
      ],
    });
    const importBytes = (b: TestBridge, bytes: Uint8Array) =>
      b.client.raw('POST', '/decks/import', { bytes, query: { filename: 'Optional.apkg', confirm: 1 } });

    async function readBack(bytes: Uint8Array) {
      const { readAnkiPackage } = await import('anki-reader');
      const { collection } = await readAnkiPackage(new Blob([new Uint8Array(bytes)]));
      const db = collection.getRawCollection();
      const rows = (sql: string) => (db.exec(sql)[0]?.values ?? []) as unknown[][];
      const cards = rows('SELECT n.guid, c.ord FROM cards c JOIN notes n ON n.id = c.nid ORDER BY n.guid, c.ord');
      const models = JSON.parse(String(rows('SELECT models FROM col')[0][0])) as Record<string, any>;
      return { cards, model: Object.values(models).find((m) => m.name === OPTIONAL.modelName) };
    }

    it('imports the cards Anki made (one for the note without Add Reverse, two with), exports them and their req', async () => {
      const fixture = await readBack(await buildApkg(pkg()));
      assert.deepEqual(fixture.cards, [
        ['one-way', 0],
        ['two-way', 0],
        ['two-way', 1],
      ]);
      const res = await importBytes(t, await buildApkg(pkg()));
      assert.equal(res.status, 200, res.text());
      const first = res.json<{ deckId: string; cards: number }>();
      assert.equal(first.cards, 3);

      const out = await t.client.raw('GET', `/decks/${first.deckId}/apkg`);
      assert.equal(out.status, 200);
      const r = await readBack(out.bytes);
      assert.deepEqual(r.cards, fixture.cards);
      // Anki's requirements: card 1 needs Front; card 2 needs both Back and Add Reverse.
      assert.deepEqual(r.model.req, [
        [0, 'any', [0]],
        [1, 'all', [1, 2]],
      ]);
      const again = (await importBytes(u, out.bytes)).json<{ cards: number }>();
      assert.equal(again.cards, 3);
    });
  });
});
