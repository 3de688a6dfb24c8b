import assert from 'node:assert/strict';
import type { TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { ankiConnectBridge, post } from '../helpers/ankiConnectPost';

/** AnkiConnect's createModel: a note type a client makes, then notes of it added, read, searched and changed. */

const VOCAB = {
  modelName: 'Vocab (reading)',
  inOrderFields: ['Word', 'Meaning', 'Reading'],
  css: '.card { color: navy; }',
  cardTemplates: [
    { Name: 'Recognise', Front: '{{Word}}', Back: '{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Reading}}' },
    { Front: '{{Meaning}}', Back: '{{FrontSide}}<hr id=answer>{{Word}}' },
  ],
};

describe('AnkiConnect: createModel → addNote → notesInfo', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let port: number;
  let call: Awaited<ReturnType<typeof ankiConnectBridge>>['call'];

  before(async () => {
    ({ t, port, call } = await ankiConnectBridge());
  });
  after(() => t.stop());

  it('createModel answers Anki’s notetype dict; the type is listed, with its fields, templates and styling', async () => {
    const made = await call('createModel', VOCAB);
    assert.equal(made.error, null);
    const m = made.result;
    assert.equal(m.name, 'Vocab (reading)');
    assert.equal(m.type, 0);
    assert.equal(m.css, '.card { color: navy; }');
    assert.ok(Number.isSafeInteger(m.id));
    assert.deepEqual(
      m.flds.map((f: any) => [f.name, f.ord]),
      [
        ['Word', 0],
        ['Meaning', 1],
        ['Reading', 2],
      ],
    );
    assert.deepEqual(
      m.tmpls.map((x: any) => [x.name, x.ord, x.qfmt]),
      [
        ['Recognise', 0, '{{Word}}'],
        ['Card 2', 1, '{{Meaning}}'],
      ],
    );
    for (const k of ['sortf', 'did', 'latexPre', 'latexPost', 'mod', 'usn', 'vers', 'tags', 'req'])
      assert.ok(k in m, k);

    assert.deepEqual((await call('modelNames')).result, ['Basic', 'Cloze', 'Vocab (reading)']);
    assert.equal((await call('modelNamesAndIds')).result['Vocab (reading)'], m.id);
    assert.deepEqual((await call('modelFieldNames', { modelName: 'Vocab (reading)' })).result, VOCAB.inOrderFields);
    assert.deepEqual((await call('modelStyling', { modelName: 'Vocab (reading)' })).result, {
      css: '.card { color: navy; }',
    });
    assert.deepEqual((await call('modelTemplates', { modelName: 'Vocab (reading)' })).result, {
      Recognise: { Front: '{{Word}}', Back: '{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Reading}}' },
      'Card 2': { Front: '{{Meaning}}', Back: '{{FrontSide}}<hr id=answer>{{Word}}' },
    });
    // The default styling when none is given, and a cloze type.
    const cloze = await call('createModel', {
      modelName: 'My Cloze',
      inOrderFields: ['Text', 'Notes'],
      isCloze: true,
      cardTemplates: [{ Front: '{{cloze:Text}}', Back: '{{cloze:Text}}<br>{{Notes}}' }],
    });
    assert.equal(cloze.result.type, 1);
    assert.match(cloze.result.css, /font-family: arial/);
  });

  it('refusals in AnkiConnect’s words, nothing stored: a name taken (built in or made), no fields, no templates', async () => {
    const before = storeDigest(t.bridge.services.store);
    for (const name of ['Basic', 'Cloze', 'Vocab (reading)'])
      assert.deepEqual(await call('createModel', { ...VOCAB, modelName: name }), {
        result: null,
        error: 'Model name already exists',
      });
    assert.equal(
      (await call('createModel', { ...VOCAB, modelName: 'X', inOrderFields: [] })).error,
      'Must provide at least one field for inOrderFields',
    );
    assert.equal(
      (await call('createModel', { ...VOCAB, modelName: 'X', cardTemplates: [] })).error,
      'Must provide at least one card for cardTemplates',
    );
    assert.match(
      (await call('createModel', { ...VOCAB, modelName: 'X', cardTemplates: [{}] })).error!,
      /Front and Back/,
    );
    assert.match((await call('createModel', { ...VOCAB, modelName: '' })).error!, /modelName/);
    assert.equal((await call('modelTemplates', { modelName: 'X' })).error, 'model was not found: X');
    assert.equal(storeDigest(t.bridge.services.store), before);
    // A read token cannot make a note type.
    const reader = (await t.bridge.services.tokens.issue('reader', 'read')).token;
    const refused = await post(port, {
      action: 'createModel',
      version: 6,
      key: reader,
      params: { ...VOCAB, modelName: 'R' },
    });
    assert.equal(refused.status, 403);
  });

  it('addNote with the made type → notesInfo gives every field back; findNotes note:, duplicates, updateNoteFields', async () => {
    const note = {
      deckName: 'Japanese',
      modelName: 'Vocab (reading)',
      fields: { Word: '<b>猫</b>', Meaning: 'cat', Reading: 'ねこ' },
      tags: ['animals'],
    };
    const added = await call('addNote', { note });
    assert.equal(added.error, null);
    const id = added.result as number;
    const [info] = (await call('notesInfo', { notes: [id] })).result;
    assert.equal(info.modelName, 'Vocab (reading)');
    assert.deepEqual(info.fields, {
      Word: { value: '<b>猫</b>', order: 0 },
      Meaning: { value: 'cat', order: 1 },
      Reading: { value: 'ねこ', order: 2 },
    });
    assert.deepEqual(info.tags, ['animals']);
    assert.equal(info.cards.length, 2, 'one card per template whose front is not empty, as Anki makes');

    // The card in the study set: the first field its title, the others its text.
    const decks = (await t.owner.call('GET /decks')).decks;
    const cards = await t.owner.call('GET /decks/{id}/cards', { params: { id: decks[0].deckId } });
    assert.equal(cards.cards[0].title, '猫');

    assert.deepEqual((await call('findNotes', { query: '"note:Vocab (reading)"' })).result, [id]);
    assert.deepEqual((await call('findNotes', { query: 'reading:ねこ' })).result, [id]);
    assert.deepEqual((await call('findNotes', { query: 'note:Basic' })).result, []);
    const [cardInfo] = (await call('cardsInfo', { cards: info.cards })).result;
    assert.equal(cardInfo.modelName, 'Vocab (reading)');
    assert.equal(cardInfo.css, '.card { color: navy; }');
    assert.deepEqual(Object.keys(cardInfo.fields), VOCAB.inOrderFields);

    // Same type and first field: a duplicate; a Basic note with that front is not (Anki compares within a type).
    assert.equal((await call('addNote', { note })).error, 'cannot create note because it is a duplicate');
    const basic = { deckName: 'Japanese', modelName: 'Basic', fields: { Front: '<b>猫</b>', Back: 'cat' } };
    assert.equal((await call('canAddNotes', { notes: [basic] })).result[0], true);
    assert.match(
      (await call('addNote', { note: { ...note, fields: { Nope: 'x' } } })).error!,
      /field Nope does not exist/,
    );

    assert.equal((await call('updateNoteFields', { note: { id, fields: { Reading: 'ネコ' } } })).error, null);
    const [updated] = (await call('notesInfo', { notes: [id] })).result;
    assert.deepEqual(updated.fields.Reading, { value: 'ネコ', order: 2 });
    assert.deepEqual(updated.fields.Word, { value: '<b>猫</b>', order: 0 });
  });

  it('the deck’s .apkg gives the note back with its made type and fields (read by anki-reader)', async () => {
    const decks = (await t.owner.call('GET /decks')).decks;
    const deck = decks.find((d) => d.title === 'Japanese');
    assert.ok(deck);
    const res = await t.client.raw('GET', `/decks/${deck.deckId}/apkg`);
    assert.equal(res.status, 200);
    const { readAnkiPackage } = await import('anki-reader');
    const { collection } = await readAnkiPackage(new Blob([new Uint8Array(res.bytes)]));
    const db = collection.getRawCollection();
    const rows = (sql: string) => (db.exec(sql)[0]?.values ?? []) as unknown[][];
    const models = JSON.parse(String(rows('SELECT models FROM col')[0][0])) as Record<string, any>;
    const vocab = Object.values(models).find((m: any) => m.name === 'Vocab (reading)');
    assert.ok(
      vocab,
      `the made type is exported: ${Object.values(models)
        .map((m: any) => m.name)
        .join(', ')}`,
    );
    assert.deepEqual(
      vocab.flds.map((f: any) => f.name),
      VOCAB.inOrderFields,
    );
    assert.deepEqual(
      vocab.tmpls.map((x: any) => x.name),
      ['Recognise', 'Card 2'],
    );
    const notes = rows('SELECT n.flds, n.mid FROM notes n');
    assert.deepEqual(
      notes.map((n) => String(n[0]).split('\x1f')),
      [['<b>猫</b>', 'cat', 'ネコ']],
    );
    assert.equal(String(notes[0][1]), String(vocab.id));
  });

  it('a made cloze type: its first field’s deletions make the review question', async () => {
    const added = await call('addNote', {
      note: {
        deckName: 'Geo',
        modelName: 'My Cloze',
        fields: { Text: '{{c1::Paris}} is in France', Notes: 'capital' },
      },
    });
    assert.equal(added.error, null);
    const [info] = (await call('notesInfo', { notes: [added.result] })).result;
    assert.equal(info.modelName, 'My Cloze');
    assert.deepEqual(info.fields.Text, { value: '{{c1::Paris}} is in France', order: 0 });
    const noCloze = await call('addNote', {
      note: { deckName: 'Geo', modelName: 'My Cloze', fields: { Text: 'no deletion', Notes: '' } },
    });
    assert.match(noCloze.error!, /no cloze deletions/);
  });
});
