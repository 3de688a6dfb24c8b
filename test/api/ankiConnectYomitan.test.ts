import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/**
 * Yomitan's calls, replayed with its request shapes against the real
 * AnkiConnect port (yomidevs/yomitan ext/js/comm/anki-connect.js): a POST of
 * `{action, params, version: 2, key}` from its extension origin (version 2:
 * AnkiConnect answers the bare result, an error as `{result: null, error}`),
 * `multi` with the key in each action, notes built as anki-note-builder.js
 * builds them. Each answer is checked against AnkiConnect's documented shape.
 */

const YOMITAN = 'chrome-extension://likgccmbimhjbgkjambclfkhldnlhbnn';
// A 1×1 PNG, as Yomitan's screenshot or dictionary picture would be stored.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('AnkiConnect: Yomitan’s call sequence with its request shapes', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let port: number;
  let key: string;

  /** Yomitan's _invoke: same headers and body; answers the parsed JSON (a bare result at version 2). */
  async function invoke(action: string, params: Record<string, unknown>): Promise<any> {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: YOMITAN },
      body: JSON.stringify({ action, params, version: 2, key }),
    });
    assert.equal(res.status, 200, `${action}: HTTP ${res.status}`);
    assert.equal(res.headers.get('access-control-allow-origin'), YOMITAN);
    return res.json();
  }

  /** Yomitan throws on an object answer that has `error`: a replayed call must not have one. */
  const ok = (answer: unknown, action: string) => {
    if (answer && typeof answer === 'object' && !Array.isArray(answer))
      assert.ok(!('error' in answer), `${action} answered an error: ${JSON.stringify(answer)}`);
    return answer as any;
  };

  before(async () => {
    t = await startBridge({ ankiConnect: { port: 0, allowedOrigins: [YOMITAN] } });
    port = t.bridge.ankiConnectPort!;
    key = (await t.bridge.services.tokens.issue('yomitan', 'write')).token;
    await t.owner.request('POST', '/decks', { body: { title: 'Japanese::Mining', confirm: true } });
  });
  after(() => t.stop());

  it('version, apiReflect, deckNames, modelNames, modelFieldNames: what Yomitan reads before it adds', async () => {
    // _getVersion: a number, at least Yomitan's own 2.
    assert.equal(ok(await invoke('version', {}), 'version'), 6);
    // apiExists(action): apiReflect(['actions'], [action]) → {scopes, actions} of strings.
    const one = ok(await invoke('apiReflect', { scopes: ['actions'], actions: ['guiEditNote'] }), 'apiReflect');
    assert.deepEqual(one, { scopes: ['actions'], actions: ['guiEditNote'] });
    const asked = ['addNote', 'canAddNotesWithErrorDetail', 'guiBrowse', 'guiEditNote', 'guiDeckOverview', 'sync'];
    const some = ok(await invoke('apiReflect', { scopes: ['actions'], actions: asked }), 'apiReflect');
    assert.deepEqual(some.actions, ['addNote', 'canAddNotesWithErrorDetail', 'guiBrowse', 'guiEditNote', 'sync']);
    // All of them: strings, sorted, no duplicates, each answering something other than "unsupported action".
    const all = ok(await invoke('apiReflect', { scopes: ['actions'], actions: null }), 'apiReflect');
    assert.deepEqual(all.scopes, ['actions']);
    assert.deepEqual([...all.actions].sort(), all.actions);
    assert.equal(new Set(all.actions).size, all.actions.length);
    for (const a of ['createModel', 'guiCurrentCard', 'guiAddCards', 'guiEditNote', 'multi', 'findNotes'])
      assert.ok(all.actions.includes(a), a);
    for (const a of all.actions as string[]) {
      const answer = await invoke(a, {});
      assert.notEqual(answer?.error, 'unsupported action', `${a} is listed but not served`);
    }

    assert.deepEqual(ok(await invoke('deckNames', {}), 'deckNames'), ['Japanese::Mining']);
    const models = ok(await invoke('modelNames', {}), 'modelNames');
    assert.ok(Array.isArray(models) && models.includes('Basic') && models.every((m) => typeof m === 'string'));
    assert.deepEqual(ok(await invoke('modelFieldNames', { modelName: 'Basic' }), 'modelFieldNames'), ['Front', 'Back']);
  });

  it('canAddNotesWithErrorDetail, storeMediaFile, addNote, findNotes (also in multi), notesInfo, guiBrowse', async () => {
    const options = {
      allowDuplicate: false,
      duplicateScope: 'collection',
      duplicateScopeOptions: { deckName: null, checkChildren: false, checkAllModels: false },
    };
    const note = {
      fields: { Front: '食べる', Back: '<div>to eat</div><img src="yomitan_picture_1.png">' },
      tags: ['yomitan'],
      deckName: 'Japanese::Mining',
      modelName: 'Basic',
      options,
    };
    // partitionAddibleNotes: the first field only, duplicates not allowed → [{canAdd}] per note.
    const stripped = { ...note, fields: { Front: note.fields.Front } };
    const before = ok(await invoke('canAddNotesWithErrorDetail', { notes: [stripped] }), 'canAddNotesWithErrorDetail');
    assert.deepEqual(before, [{ canAdd: true }]);

    // storeMediaFile {filename, data}: the stored name (a string).
    const stored = ok(await invoke('storeMediaFile', { filename: 'yomitan_picture_1.png', data: PNG }), 'store');
    assert.equal(stored, 'yomitan_picture_1.png');

    const noteId = ok(await invoke('addNote', { note }), 'addNote');
    assert.ok(Number.isSafeInteger(noteId) && noteId > 0, `a note id: ${noteId}`);

    // The same note again: Yomitan reads the error text for "duplicate".
    const after = ok(await invoke('canAddNotesWithErrorDetail', { notes: [stripped] }), 'canAddNotesWithErrorDetail');
    assert.equal(after.length, 1);
    assert.equal(after[0].canAdd, false);
    assert.ok(after[0].error.includes('cannot create note because it is a duplicate'), after[0].error);
    const again = await invoke('addNote', { note });
    assert.deepEqual(again, { result: null, error: 'cannot create note because it is a duplicate' });

    // findNoteIds: `"front:<text>"` for the collection scope, sent through multi with the key in each action.
    const query = `"front:${note.fields.Front}"`;
    assert.deepEqual(ok(await invoke('findNotes', { query }), 'findNotes'), [noteId]);
    const multi = ok(await invoke('multi', { actions: [{ action: 'findNotes', params: { query }, key }] }), 'multi');
    assert.deepEqual(multi, [[noteId]], 'a bare result per action at version 2');
    const deckQuery = `"deck:Japanese::Mining" ${query}`;
    assert.deepEqual(ok(await invoke('findNotes', { query: deckQuery }), 'findNotes'), [noteId]);

    // notesInfo: AnkiConnect's note object.
    const [info] = ok(await invoke('notesInfo', { notes: [noteId] }), 'notesInfo');
    assert.deepEqual(Object.keys(info).sort(), ['cards', 'fields', 'mod', 'modelName', 'noteId', 'profile', 'tags']);
    assert.equal(info.noteId, noteId);
    assert.equal(info.modelName, 'Basic');
    assert.deepEqual(info.tags, ['yomitan']);
    assert.deepEqual(info.fields.Front, { value: '食べる', order: 0 });
    assert.equal(info.fields.Back.order, 1);
    assert.match(info.fields.Back.value, /to eat.*<img src="yomitan_picture_1\.png">/);
    assert.ok(Number.isInteger(info.mod));
    assert.equal(info.cards.length, 1);

    // guiBrowseNote: guiBrowse `nid:<id>` → the card ids; the card is what the window shows (headless: remembered).
    const cards = ok(await invoke('guiBrowse', { query: `nid:${noteId}` }), 'guiBrowse');
    assert.deepEqual(cards, info.cards);
    const context = await t.bridge.services.ui.context();
    assert.equal(context.available, true);
    assert.ok(context.focusedNote, 'a card is focused');
  });
});
