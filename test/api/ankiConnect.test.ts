import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { YankiConnect as YankiConnectType } from 'yanki-connect' with { 'resolution-mode': 'import' };
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { rawRequest } from '../helpers/rawHttp';

/** AnkiConnect (#19 §2) through a real AnkiConnect client, yanki-connect, against the bridge's second port. */

const YOMITAN = 'chrome-extension://likgccmbimhjbgkjambclfkhldnlhbnn';

async function yanki(port: number, key: string | undefined): Promise<YankiConnectType> {
  const { YankiConnect } = await import('yanki-connect');
  return new YankiConnect({ host: 'http://127.0.0.1', port, key, autoLaunch: false });
}

/** A raw AnkiConnect POST: status, CORS header and body. */
async function post(port: number, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    allowOrigin: res.headers.get('access-control-allow-origin'),
    json: (await res.json()) as { result: any; error: string | null },
  };
}

async function png(width: number, height: number): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const c = createCanvas(width, height);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#c03030';
  ctx.fillRect(0, 0, width, height);
  return c.encode('png');
}

describe('AnkiConnect: a real client (yanki-connect) on --ankiconnect-port', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let port: number;
  let client: YankiConnectType;
  let key: string;
  const importDir = tempDir('sb-anki-import-');

  before(async () => {
    t = await startBridge({ ankiConnect: { port: 0, allowedOrigins: [YOMITAN] }, importFolders: [importDir] });
    port = t.bridge.ankiConnectPort!;
    assert.ok(port > 0 && port !== t.bridge.port, 'a second port');
    key = (await t.bridge.services.tokens.issue('yomitan', 'write')).token;
    client = await yanki(port, key);
  });
  after(() => t.stop());

  it('version, models, addNote into a new deck → a card of its study set and a review card in GET /decks/{id}/cards; findNotes, notesInfo, updateNoteFields', async () => {
    assert.equal(await client.miscellaneous.version(), 6);
    assert.deepEqual(await client.model.modelNames(), ['Basic', 'Cloze']);
    assert.deepEqual(await client.model.modelFieldNames({ modelName: 'Basic' }), ['Front', 'Back']);
    assert.deepEqual(await client.model.modelFieldNames({ modelName: 'Cloze' }), ['Text', 'Back Extra']);
    assert.deepEqual(await client.deck.deckNames(), []);
    const revision = t.bridge.services.events.revision;

    const noteId = (await client.note.addNote({
      note: {
        deckName: 'Spanish::Verbs',
        modelName: 'Basic',
        fields: { Front: '<b>hablar</b>', Back: 'to speak<br>(regular -ar)' },
        tags: ['spanish::verbs', 'core'],
      },
    }))!;
    assert.equal(typeof noteId, 'number');
    assert.deepEqual(await client.deck.deckNames(), ['Spanish::Verbs']);
    const ids = await client.deck.deckNamesAndIds();
    assert.equal(typeof ids['Spanish::Verbs'], 'number');

    // Over the main HTTP API: the deck, its review card, the study set's card.
    const decks = (await t.owner.call('GET /decks')).decks;
    assert.equal(decks.length, 1);
    assert.equal(decks[0].title, 'Spanish::Verbs');
    // Visible at once: the change events (which the Review Decks view follows) name the deck and the card.
    const replay = t.bridge.services.events.since(revision);
    assert.ok('events' in replay);
    const changed = (kind: string) => replay.events.filter((e) => e.kind === kind).flatMap((e) => e.ids);
    assert.ok(changed('deck').includes(decks[0].deckId), 'a deck event');
    const cards = await t.owner.call('GET /decks/{id}/cards', { params: { id: decks[0].deckId } });
    assert.equal(cards.count, 1);
    assert.equal(cards.cards[0].title, 'hablar');
    assert.equal(cards.cards[0].questionMode, 'automatic');
    assert.equal(cards.cards[0].state, 'new');
    const sets = (await t.owner.call('GET /library/study-sets')).studySets;
    assert.deepEqual(
      sets.map((s) => s.title),
      ['Spanish::Verbs'],
      'the deck got a study set of its name',
    );
    const got = await t.owner.call('POST /notes/batch-get', {
      body: { noteIds: [cards.cards[0].sourceNoteId] },
    });
    const card = got.notes[0];
    assert.equal(card.topicid, sets[0].topicid);
    assert.ok(changed('card').includes(card.noteid), 'a card event');
    assert.equal(card.title, 'hablar');
    assert.equal(card.texts.find((x) => x.index === 0)?.text, 'to speak\n(regular -ar)');
    assert.deepEqual([...card.hashtags].sort(), ['core', 'spanish/verbs']);

    assert.deepEqual(await client.note.findNotes({ query: 'deck:Spanish::Verbs' }), [noteId]);
    assert.deepEqual(
      await client.note.findNotes({ query: '"deck:Spanish"' }),
      [noteId],
      'a deck search takes its subdecks',
    );
    assert.deepEqual(await client.note.findNotes({ query: 'tag:spanish' }), [noteId], 'and a tag its child tags');
    assert.deepEqual(await client.note.findNotes({ query: 'hablar' }), [noteId]);
    assert.deepEqual(await client.note.findNotes({ query: 'speak -tag:core' }), []);
    assert.deepEqual(await client.note.findNotes({ query: 'deck:French' }), []);

    const [info] = await client.note.notesInfo({ notes: [noteId] });
    assert.equal(info.noteId, noteId);
    assert.equal(info.modelName, 'Basic');
    assert.deepEqual(info.fields, {
      Front: { value: '<b>hablar</b>', order: 0 },
      Back: { value: 'to speak<br>(regular -ar)', order: 1 },
    });
    assert.deepEqual([...info.tags].sort(), ['core', 'spanish::verbs']);
    assert.equal(info.cards.length, 1);
    assert.deepEqual(
      await client.note.notesInfo({ notes: [123456789] }),
      [{}],
      'an unknown note: an empty object, as AnkiConnect answers',
    );

    await client.note.updateNoteFields({ note: { id: noteId, fields: { Back: 'to talk' } } });
    const [after] = await client.note.notesInfo({ notes: [noteId] });
    assert.equal(after.fields.Back.value, 'to talk');
    assert.equal(after.fields.Front.value, '<b>hablar</b>', 'a field not given stays');
    const again = await t.owner.call('POST /notes/batch-get', { body: { noteIds: [card.noteid] } });
    assert.equal(again.notes[0].texts.find((x) => x.index === 0)?.text, 'to talk');

    // The same front again is a duplicate, as in Anki; allowDuplicate lets it in.
    const dup = { deckName: 'Spanish::Verbs', modelName: 'Basic', fields: { Front: 'hablar', Back: 'x' } };
    assert.deepEqual(
      await client.note.canAddNotes({ notes: [dup, { ...dup, fields: { Front: 'comer', Back: 'to eat' } }] }),
      [false, true],
    );
    await assert.rejects(client.note.addNote({ note: dup }), /cannot create note because it is a duplicate/);
  });

  it('Cloze: Text with {{c1::…}} → a review card asking with […]; notesInfo gives the Text back', async () => {
    const noteId = await client.note.addNote({
      note: {
        deckName: 'Geography',
        modelName: 'Cloze',
        fields: { Text: '{{c1::Paris}} is the capital of {{c2::France::country}}', Extra: 'since 508' },
      },
    });
    const [info] = await client.note.notesInfo({ notes: [noteId!] });
    assert.equal(info.modelName, 'Cloze');
    assert.deepEqual(info.fields, {
      Text: { value: '{{c1::Paris}} is the capital of {{c2::France::country}}', order: 0 },
      'Back Extra': { value: 'since 508', order: 1 },
    });
    const deck = (await t.owner.call('GET /decks')).decks.find((d) => d.title === 'Geography');
    assert.ok(deck, 'the Geography deck');
    const due = await t.owner.call('GET /decks/{id}/due', { params: { id: deck.deckId } });
    // One card per cloze number, as Anki makes them, each rendered through the Cloze template.
    assert.equal(due.count, 2);
    assert.deepEqual(
      due.cards.map((c) => c.question.html),
      [
        '<span class="cloze">[...]</span> is the capital of France',
        'Paris is the capital of <span class="cloze">[country]</span>',
      ],
    );
    assert.equal(
      due.cards[1].answer.html,
      'Paris is the capital of <span class="cloze">France</span><br />\nsince 508',
    );
    assert.deepEqual(await client.note.findNotes({ query: 'note:Cloze' }), [noteId]);
    await assert.rejects(
      client.note.addNote({
        note: { deckName: 'Geography', modelName: 'Cloze', fields: { Text: 'no deletion here' } },
      }),
      /no cloze deletions/,
    );
  });

  it('storeMediaFile (base64) + addNote with <img src> → the card has that image as an image part; url refused; a path outside the import folders refused', async () => {
    const bytes = await png(48, 32);
    assert.equal(
      await client.media.storeMediaFile({ filename: 'verb.png', data: bytes.toString('base64') }),
      'verb.png',
    );
    const noteId = await client.note.addNote({
      note: {
        deckName: 'Spanish::Verbs',
        modelName: 'Basic',
        fields: { Front: 'ver', Back: 'to see <img src="verb.png">' },
      },
    });
    const [info] = await client.note.notesInfo({ notes: [noteId!] });
    assert.equal(info.fields.Back.value, 'to see <img src="verb.png">', 'the field as sent, as Anki keeps it');
    const deck = (await t.owner.call('GET /decks')).decks.find((d) => d.title === 'Spanish::Verbs');
    assert.ok(deck, 'the Spanish::Verbs deck');
    const source = (await t.owner.call('GET /decks/{id}/cards', { params: { id: deck.deckId } })).cards.find(
      (c) => c.title === 'ver',
    )?.sourceNoteId;
    assert.ok(source, 'the card ver');
    const card = (await t.owner.call('POST /notes/batch-get', { body: { noteIds: [source] } })).notes[0];
    const image = card.parts.find((p) => p.kind === 'image');
    assert.ok(image, 'an image part');
    assert.equal(image.mimeType, 'image/png');
    const content = await t.owner.raw('GET', `/notes/${source}/content/${image.contentId}`);
    assert.equal(content.status, 200);
    assert.equal(content.bytes.readUInt32BE(16), 48, 'the stored picture, 48 px wide');
    assert.equal(content.bytes.readUInt32BE(20), 32);

    // As mokuro updates the last card added: added:1, then updateNoteFields with a picture for one field (the others kept).
    const recent = await client.note.findNotes({ query: 'added:1 hablar' });
    assert.equal(recent.length, 1);
    await client.note.updateNoteFields({
      note: {
        id: recent[0],
        fields: {},
        picture: [{ filename: 'page-12.png', data: (await png(30, 40)).toString('base64'), fields: ['Back'] }],
      },
    });
    const [updated] = await client.note.notesInfo({ notes: recent });
    assert.equal(updated.fields.Back.value, 'to talk<img src="page-12.png">');
    assert.equal(updated.fields.Front.value, '<b>hablar</b>');
    const hablar = (await t.owner.call('GET /decks/{id}/cards', { params: { id: deck.deckId } })).cards.find(
      (c) => c.title === 'hablar',
    )?.sourceNoteId;
    assert.ok(hablar, 'the card hablar');
    const parts = (await t.owner.call('POST /notes/batch-get', { body: { noteIds: [hablar] } })).notes[0].parts.filter(
      (p) => p.kind === 'image',
    );
    assert.equal(parts.length, 1);
    assert.equal(
      (await t.owner.raw('GET', `/notes/${hablar}/content/${parts[0].contentId}`)).bytes.readUInt32BE(20),
      40,
      'the 30 × 40 picture',
    );
    assert.deepEqual(await client.note.findNotes({ query: 'added:1 deck:Nowhere' }), []);

    // From a file in an import folder, too.
    writeFileSync(join(importDir, 'leer.png'), await png(20, 10));
    assert.equal(
      await client.media.storeMediaFile({ filename: 'leer.png', path: join(importDir, 'leer.png') }),
      'leer.png',
    );

    const before = storeDigest(t.bridge.services.store);
    await assert.rejects(
      client.media.storeMediaFile({ filename: 'x.png', url: 'https://example.com/x.png' }),
      /no network requests/,
    );
    const outside = tempDir('sb-anki-outside-');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.png'), bytes);
    await assert.rejects(
      client.media.storeMediaFile({ filename: 'y.png', path: join(outside, 'secret.png') }),
      /PATH_NOT_ALLOWED/,
    );
    await assert.rejects(
      client.media.storeMediaFile({ filename: '../escape.png', data: bytes.toString('base64') }),
      /invalid media file name/,
    );
    await assert.rejects(
      client.note.addNote({
        note: {
          deckName: 'Spanish::Verbs',
          modelName: 'Basic',
          fields: { Front: 'oír', Back: 'to hear' },
          audio: [{ filename: 'oir.mp3', data: 'AAAA', fields: ['Back'] }],
        },
      }),
      /audio is not served here/,
    );
    await assert.rejects(
      client.note.addNote({
        note: {
          deckName: 'Spanish::Verbs',
          modelName: 'Basic',
          fields: { Front: 'ir', Back: '<img src="missing.png">' },
        },
      }),
      /media file missing.png was not found/,
    );
    assert.equal(storeDigest(t.bridge.services.store), before, 'refusals changed nothing');
  });

  it('multi answers each action in AnkiConnect shape; an unserved action → {result:null, error:"unsupported action"}', async () => {
    const multi = await post(port, {
      action: 'multi',
      version: 6,
      key,
      params: {
        actions: [
          { action: 'version' },
          { action: 'deckNames' },
          { action: 'guiDeckOverview', params: { name: 'Geography' } },
          { action: 'modelFieldNames', params: { modelName: 'Nope' } },
        ],
      },
    });
    assert.equal(multi.status, 200);
    assert.equal(multi.json.error, null);
    assert.deepEqual(multi.json.result[0], { result: 6, error: null });
    assert.deepEqual([...multi.json.result[1].result].sort(), ['Geography', 'Spanish::Verbs']);
    assert.deepEqual(multi.json.result[2], { result: null, error: 'unsupported action' });
    assert.match(multi.json.result[3].error, /model was not found: Nope/);

    // Without a version (AnkiConnect's old protocol, 4): the bare result.
    assert.equal((await post(port, { action: 'version', key })).json, 6);

    const before = storeDigest(t.bridge.services.store);
    const unsupported = await post(port, {
      action: 'deleteDecks',
      version: 6,
      key,
      params: { decks: ['Geography'], cardsToo: true },
    });
    assert.equal(unsupported.status, 200);
    assert.deepEqual(unsupported.json, { result: null, error: 'unsupported action' });
    assert.deepEqual(Object.keys(unsupported.json).sort(), ['error', 'result'], 'exactly AnkiConnect’s two fields');
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('refusals: no key or a wrong one (401), a read token cannot add (403), a foreign Origin (403); nothing changes', async () => {
    const note = { deckName: 'Refused', modelName: 'Basic', fields: { Front: 'nope', Back: 'nope' } };
    const reader = (await t.bridge.services.tokens.issue('reader', 'read')).token;
    const before = storeDigest(t.bridge.services.store);

    const wrong = await post(port, { action: 'addNote', version: 6, key: 'sbt0.not-a-token', params: { note } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.result, null);
    assert.match(wrong.json.error!, /valid api key must be provided/);
    assert.equal((await post(port, { action: 'deckNames', version: 6 })).status, 401, 'no key');
    await assert.rejects((await yanki(port, 'wrong')).deck.deckNames(), /status is 401/);

    assert.deepEqual(
      (await post(port, { action: 'deckNames', version: 6, key: reader })).json.result.sort(),
      ['Geography', 'Spanish::Verbs'],
      'a read token reads',
    );
    const readAdd = await post(port, { action: 'addNote', version: 6, key: reader, params: { note } });
    assert.equal(readAdd.status, 403);
    assert.match(readAdd.json.error!, /addNote needs a write token/);
    const readMulti = await post(port, {
      action: 'multi',
      version: 6,
      key: reader,
      params: { actions: [{ action: 'addNote', params: { note } }] },
    });
    assert.match(readMulti.json.result[0].error, /needs a write token/);

    const page = await post(
      port,
      { action: 'addNote', version: 6, key, params: { note } },
      { Origin: 'https://evil.example' },
    );
    assert.equal(page.status, 403);
    assert.match(page.json.error!, /FORBIDDEN_ORIGIN/);
    assert.equal(page.allowOrigin, null, 'no CORS grant for it');
    const rebinding = await rawRequest(port, {
      method: 'POST',
      path: '/',
      headers: { Host: `evil.example:${port}` },
      body: JSON.stringify({ action: 'addNote', version: 6, key, params: { note } }),
    });
    assert.equal(rebinding.status, 403, 'a foreign Host (DNS rebinding) too');
    assert.match(rebinding.json().error, /FORBIDDEN_HOST/);
    assert.equal(storeDigest(t.bridge.services.store), before, 'refusals changed nothing');

    // requestPermission: headless has nobody to ask, so an unlisted origin is denied; a listed one is granted.
    const denied = await post(port, { action: 'requestPermission', version: 6 }, { Origin: 'https://evil.example' });
    assert.deepEqual(denied.json, { result: { permission: 'denied' }, error: null });
    const granted = await post(port, { action: 'requestPermission', version: 6 }, { Origin: YOMITAN });
    assert.deepEqual(granted.json, { result: { permission: 'granted', requireApikey: true, version: 6 }, error: null });

    // The listed origin is served, with CORS for it.
    const yomitan = await post(
      port,
      { action: 'addNote', version: 6, key, params: { note: { ...note, deckName: 'Yomitan' } } },
      { Origin: YOMITAN },
    );
    assert.equal(yomitan.status, 200);
    assert.equal(yomitan.json.error, null);
    assert.equal(typeof yomitan.json.result, 'number');
    assert.equal(yomitan.allowOrigin, YOMITAN);
  });

  it('guiBrowse opens the card found in the UI (GET /context focuses it)', async () => {
    const cards = await client.graphical.guiBrowse({ query: 'hablar' });
    assert.equal(cards.length, 1);
    const ctx = await t.owner.call('GET /context');
    const [found] = await client.note.notesInfo({ query: 'hablar' } as never);
    assert.equal(ctx.studySet?.title, 'Spanish::Verbs');
    assert.ok(ctx.focusedNote, 'a card is focused');
    assert.equal(typeof found.noteId, 'number');
  });
});
