import assert from 'node:assert/strict';
import type { TestBridge } from '../helpers/bridgeFixture';
import { ankiConnectBridge } from '../helpers/ankiConnectPost';

/**
 * AnkiConnect's notes make the cards Anki makes: one per template whose
 * front renders non-empty, one per cloze number; fields are HTML, shown on
 * review through the server's sanitiser.
 */

const THREE = {
  modelName: 'Three ways',
  inOrderFields: ['Word', 'Meaning', 'Audio'],
  cardTemplates: [
    { Name: 'Read', Front: '{{Word}}', Back: '{{FrontSide}}<hr id=answer>{{Meaning}}' },
    { Name: 'Recall', Front: '{{Meaning}}', Back: '{{FrontSide}}<hr id=answer>{{Word}}' },
    { Name: 'Listen', Front: '{{#Audio}}Listen: {{Audio}}{{/Audio}}', Back: '{{FrontSide}}<hr id=answer>{{Word}}' },
  ],
};

describe('AnkiConnect: a note makes the cards Anki makes, its fields HTML', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let call: Awaited<ReturnType<typeof ankiConnectBridge>>['call'];
  const deckOf = async (title: string) => {
    const deck = (await t.owner.call('GET /decks')).decks.find((d) => d.title === title);
    assert.ok(deck, `the deck ${title}`);
    return deck;
  };
  const due = async (title: string) =>
    (await t.owner.call('GET /decks/{id}/due', { params: { id: (await deckOf(title)).deckId } })).cards;

  before(async () => {
    ({ t, call } = await ankiConnectBridge());
    assert.equal((await call('createModel', THREE)).error, null);
  });
  after(() => t.stop());

  it('a 3-template type: 3 cards a note, none for a template whose front renders empty; updateNoteFields adds it', async () => {
    const full = await call('addNote', {
      note: { deckName: 'Words', modelName: 'Three ways', fields: { Word: 'gato', Meaning: 'cat', Audio: 'gah-toh' } },
    });
    assert.equal(full.error, null);
    const part = await call('addNote', {
      note: { deckName: 'Words', modelName: 'Three ways', fields: { Word: 'perro', Meaning: 'dog', Audio: '' } },
    });
    const [a, b] = (await call('notesInfo', { notes: [full.result, part.result] })).result;
    assert.equal(a.cards.length, 3);
    assert.equal(b.cards.length, 2, 'the Listen front is empty without Audio: no card, as in Anki');
    const infos = (await call('cardsInfo', { cards: [...a.cards, ...b.cards] })).result;
    assert.deepEqual(
      infos.map((c: any) => [c.note, c.ord]),
      [
        [full.result, 0],
        [full.result, 1],
        [full.result, 2],
        [part.result, 0],
        [part.result, 1],
      ],
    );
    assert.deepEqual((await call('findCards', { query: 'gato' })).result, a.cards);
    assert.deepEqual((await call('findNotes', { query: '"note:Three ways"' })).result, [full.result, part.result]);
    const questions = (await due('Words')).map((c) => c.question.html);
    assert.deepEqual(questions, ['gato', 'cat', 'Listen: gah-toh', 'perro', 'dog']);

    assert.equal(
      (await call('updateNoteFields', { note: { id: part.result, fields: { Audio: 'peh-rroh' } } })).error,
      null,
    );
    const [after] = (await call('notesInfo', { notes: [part.result] })).result;
    assert.equal(after.cards.length, 3, 'the edit makes the Listen card, as Anki does');
    assert.deepEqual(after.cards.slice(0, 2), b.cards, 'the cards it had stay');
    assert.ok((await due('Words')).some((c) => c.question.html === 'Listen: peh-rroh'));
  });

  it('a note of several cards: getTags reads its tags; deleteNotes takes all its cards; the deck export gives them back', async () => {
    const added = await call('addNote', {
      note: {
        deckName: 'Gone',
        modelName: 'Three ways',
        fields: { Word: 'pez', Meaning: 'fish', Audio: 'peth' },
        tags: ['sea::life'],
      },
    });
    assert.ok((await call('getTags')).result.includes('sea::life'));
    const deck = await deckOf('Gone');
    const res = await t.client.raw('GET', `/decks/${deck.deckId}/apkg`);
    assert.equal(res.status, 200);
    const { readAnkiPackage } = await import('anki-reader');
    const { collection } = await readAnkiPackage(new Blob([new Uint8Array(res.bytes)]));
    const rows = (sql: string) => (collection.getRawCollection().exec(sql)[0]?.values ?? []) as unknown[][];
    assert.deepEqual(
      rows('SELECT n.flds, c.ord FROM cards c JOIN notes n ON n.id = c.nid ORDER BY c.ord').map((r) => [
        String(r[0]).split('\x1f'),
        r[1],
      ]),
      [0, 1, 2].map((ord) => [['pez', 'fish', 'peth'], ord]),
      'one note, its three cards by ordinal',
    );
    const removed = await call('deleteNotes', { notes: [added.result] });
    assert.equal(removed.error, null);
    // Review cards whose card was deleted stay, their source gone, as POST /notes/delete leaves them.
    assert.deepEqual(
      (await due('Gone')).map((c) => c.sourceAlive),
      [false, false, false],
    );
    assert.deepEqual((await call('notesInfo', { notes: [added.result] })).result, [{}]);
    assert.deepEqual((await call('findCards', { query: 'deck:Gone' })).result, []);
  });

  it('Cloze with c1..c3: 3 cards, each asking one deletion', async () => {
    const added = await call('addNote', {
      note: {
        deckName: 'Clozes',
        modelName: 'Cloze',
        fields: { Text: '{{c1::Water}} boils at {{c2::100}} °C at {{c3::sea level}}', 'Back Extra': '' },
      },
    });
    assert.equal(added.error, null);
    const [info] = (await call('notesInfo', { notes: [added.result] })).result;
    assert.equal(info.cards.length, 3);
    const questions = (await due('Clozes')).map((c) => c.question.html);
    assert.deepEqual(questions, [
      '<span class="cloze">[...]</span> boils at 100 °C at sea level',
      'Water boils at <span class="cloze">[...]</span> °C at sea level',
      'Water boils at 100 °C at <span class="cloze">[...]</span>',
    ]);
  });

  it('a one-card note given a second deletion: its review card moves to the first of two child cards, keeping its id', async () => {
    const added = await call('addNote', {
      note: { deckName: 'Grow', modelName: 'Cloze', fields: { Text: '{{c1::Rome}} is in Italy' } },
    });
    const [before] = (await call('notesInfo', { notes: [added.result] })).result;
    assert.equal(before.cards.length, 1);
    const changed = await call('updateNoteFields', {
      note: { id: added.result, fields: { Text: '{{c1::Rome}} is in {{c2::Italy}}' } },
    });
    assert.equal(changed.error, null);
    const [after] = (await call('notesInfo', { notes: [added.result] })).result;
    assert.equal(after.cards.length, 2);
    assert.equal(after.cards[0], before.cards[0], 'the review card it had is its c1 card');
    const infos = (await call('cardsInfo', { cards: after.cards })).result;
    assert.deepEqual(
      infos.map((c: any) => [c.note, c.ord]),
      [
        [added.result, 0],
        [added.result, 1],
      ],
    );
    assert.deepEqual(
      (await due('Grow')).map((c) => c.question.html),
      ['<span class="cloze">[...]</span> is in Italy', 'Rome is in <span class="cloze">[...]</span>'],
    );
    const cards = (await t.owner.call('GET /decks/{id}/cards', { params: { id: (await deckOf('Grow')).deckId } }))
      .cards;
    assert.deepEqual(
      cards.map((c) => c.questionMode),
      ['automatic', 'automatic'],
      'each child card asks its own face',
    );
  });

  it('HTML fields: kept as sent, shown as HTML on review, sanitised (no script, no on* handler)', async () => {
    const front = '<b>bold</b><br>line two<script>alert(1)</script>';
    const back = '<ol><li onclick="alert(2)">gloss</li></ol><a href="javascript:alert(3)">x</a>';
    const added = await call('addNote', {
      note: { deckName: 'Html', modelName: 'Basic', fields: { Front: front, Back: back } },
    });
    assert.equal(added.error, null);
    const [info] = (await call('notesInfo', { notes: [added.result] })).result;
    assert.equal(info.fields.Front.value, front, 'notesInfo gives the field back as sent');
    const [card] = await due('Html');
    assert.match(card.question.html, /<b>bold<\/b><br \/>line two/);
    assert.match(card.answer.html, /<ol><li>gloss<\/li><\/ol>/);
    for (const html of [card.question.html, card.answer.html]) {
      assert.doesNotMatch(html, /script|alert|onclick|javascript:/i);
      assert.doesNotMatch(html, /&lt;b&gt;/, 'not escaped');
    }
    // The deck's export gives the note back under Basic with its fields as sent.
    const res = await t.client.raw('GET', `/decks/${(await deckOf('Html')).deckId}/apkg`);
    const { readAnkiPackage } = await import('anki-reader');
    const { collection } = await readAnkiPackage(new Blob([new Uint8Array(res.bytes)]));
    const rows = (sql: string) => (collection.getRawCollection().exec(sql)[0]?.values ?? []) as unknown[][];
    const models = JSON.parse(String(rows('SELECT models FROM col')[0][0])) as Record<string, any>;
    const [note] = rows('SELECT flds, mid FROM notes');
    assert.deepEqual(String(note[0]).split('\x1f'), [front, back]);
    assert.equal(models[String(note[1])]?.name, 'Basic');
  });
});
