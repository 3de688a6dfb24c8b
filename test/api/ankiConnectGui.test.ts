import assert from 'node:assert/strict';
import { MemoryUiHost, type AnkiGuiAnswer, type AnkiGuiRequest } from '../../src/server/domain/ui/uiHost';
import { startBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { post } from '../helpers/ankiConnectPost';

/**
 * AnkiConnect's guiEditNote, guiAddCards and guiCurrentCard: headless (no
 * window) they answer as AnkiConnect does without Anki's window; with a
 * window (here the UiHost port's in-memory stand-in, which records what it is
 * asked and says which card its review panel shows) they ask it.
 */

/** A window: remembers each gui request; its review panel shows `shown`. */
class WindowUi extends MemoryUiHost {
  asked: AnkiGuiRequest[] = [];
  shown: { deckId: string; cardNoteId: string } | null = null;
  async ankiGui(req: AnkiGuiRequest): Promise<AnkiGuiAnswer> {
    this.asked.push(req);
    if (req.kind === 'editNote') await this.open({ topicid: req.topicid, title: req.title, noteid: req.noteid });
    return req.kind === 'currentCard' ? { shown: this.shown } : {};
  }
}

async function started(ui?: WindowUi) {
  const t = await startBridge({ ankiConnect: { port: 0 }, ...(ui ? { ui } : {}) });
  const port = t.bridge.ankiConnectPort!;
  const key = (await t.bridge.services.tokens.issue('anki-mcp', 'write')).token;
  const call = async (action: string, params: Record<string, unknown> = {}) =>
    (await post(port, { action, version: 6, key, params })).json;
  const added = await call('addNote', {
    note: { deckName: 'French', modelName: 'Basic', fields: { Front: 'le chat', Back: 'the cat' } },
  });
  assert.equal(added.error, null);
  return { t, call, noteId: added.result as number };
}

describe('AnkiConnect gui actions: headless answers AnkiConnect’s "not available"', function () {
  this.timeout(60_000);
  let s: Awaited<ReturnType<typeof started>>;
  before(async () => (s = await started()));
  after(() => s.t.stop());

  it('guiCurrentCard → "reviewer is not available"; guiEditNote and guiAddCards → "window is not available"; nothing changes', async () => {
    const before = storeDigest(s.t.bridge.services.store);
    assert.deepEqual(await s.call('guiCurrentCard'), { result: null, error: 'reviewer is not available' });
    const edit = await s.call('guiEditNote', { note: s.noteId });
    assert.equal(edit.result, null);
    assert.match(edit.error!, /^window is not available/);
    const add = await s.call('guiAddCards', {
      note: { deckName: 'French', modelName: 'Basic', fields: { Front: 'le chien', Back: 'the dog' } },
    });
    assert.equal(add.result, null);
    assert.match(add.error!, /^window is not available/);
    assert.equal(storeDigest(s.t.bridge.services.store), before);
    // apiReflect lists them all the same: they are served, and answer.
    const reflect = await s.call('apiReflect', {
      scopes: ['actions'],
      actions: ['guiEditNote', 'guiAddCards', 'guiCurrentCard'],
    });
    assert.deepEqual(reflect.result.actions, ['guiAddCards', 'guiCurrentCard', 'guiEditNote']);
  });
});

describe('AnkiConnect gui actions: with a window', function () {
  this.timeout(60_000);
  const ui = new WindowUi();
  let s: Awaited<ReturnType<typeof started>>;
  before(async () => (s = await started(ui)));
  after(() => s.t.stop());

  it('guiEditNote(note) shows the note’s card in its study set; an unknown note is refused', async () => {
    const edit = await s.call('guiEditNote', { note: s.noteId });
    assert.deepEqual(edit, { result: null, error: null });
    const req = ui.asked.at(-1)!;
    assert.equal(req.kind, 'editNote');
    const [info] = (await s.call('notesInfo', { notes: [s.noteId] })).result;
    assert.ok(info.noteId === s.noteId);
    const ctx = await ui.context();
    assert.equal(ctx.studySet?.title, 'French');
    assert.ok(ctx.focusedNote && req.kind === 'editNote' && ctx.focusedNote === req.noteid);
    const count = ui.asked.length;
    assert.equal((await s.call('guiEditNote', { note: 12345 })).error, 'note was not found: 12345');
    assert.equal(ui.asked.length, count, 'the window is not asked');
  });

  it('guiAddCards(note) asks New Card in the deck’s study set, prefilled; answers 0 (nothing added yet)', async () => {
    const before = storeDigest(s.t.bridge.services.store);
    const add = await s.call('guiAddCards', {
      note: {
        deckName: 'French',
        modelName: 'Basic',
        fields: { Front: '<b>le chien</b>', Back: 'the dog' },
        tags: ['nouns'],
      },
    });
    assert.deepEqual(add, { result: 0, error: null });
    const req = ui.asked.at(-1)!;
    assert.ok(req.kind === 'addCards' && req.draft);
    assert.equal(req.draft.setTitle, 'French');
    assert.equal(req.draft.title, 'le chien');
    assert.equal(req.draft.text, 'the dog');
    assert.equal(storeDigest(s.t.bridge.services.store), before, 'nothing is added until the person accepts');
    // Without a note: New Card as the person would start it.
    assert.deepEqual(await s.call('guiAddCards'), { result: 0, error: null });
    assert.deepEqual(ui.asked.at(-1), { kind: 'addCards', draft: null });
    // AnkiConnect's refusals: a deck or model that is not there.
    const noDeck = await s.call('guiAddCards', { note: { deckName: 'Nope', modelName: 'Basic', fields: {} } });
    assert.equal(noDeck.error, 'deck was not found: Nope');
    const noModel = await s.call('guiAddCards', { note: { deckName: 'French', modelName: 'Nope', fields: {} } });
    assert.equal(noModel.error, 'model was not found: Nope');
  });

  it('guiCurrentCard: null when the review panel shows nothing; else the card in AnkiConnect’s shape', async () => {
    assert.deepEqual(await s.call('guiCurrentCard'), { result: null, error: null });
    const decks = (await s.t.owner.call('GET /decks')).decks;
    const due = await s.t.owner.call('GET /decks/{id}/due', { params: { id: decks[0].deckId } });
    ui.shown = { deckId: decks[0].deckId, cardNoteId: due.cards[0].cardNoteId };
    const current = await s.call('guiCurrentCard');
    assert.equal(current.error, null);
    const c = current.result;
    const [info] = (await s.call('notesInfo', { notes: [s.noteId] })).result;
    assert.deepEqual(Object.keys(c).sort(), [
      'answer',
      'buttons',
      'cardId',
      'css',
      'deckName',
      'fieldOrder',
      'fields',
      'modelName',
      'nextReviews',
      'question',
      'template',
    ]);
    assert.equal(c.cardId, info.cards[0]);
    assert.deepEqual(c.fields, { Front: { value: 'le chat', order: 0 }, Back: { value: 'the cat', order: 1 } });
    assert.equal(c.fieldOrder, 0);
    assert.equal(c.question, 'le chat');
    assert.match(c.answer, /the cat/);
    assert.equal(c.modelName, 'Basic');
    assert.equal(c.deckName, 'French');
    assert.equal(c.template, 'Card 1');
    assert.deepEqual(c.buttons, [1, 2, 3, 4]);
    assert.equal(c.nextReviews.length, 4);
    for (const r of c.nextReviews) assert.match(r, /^\d+(\.\d)?(m|h|d|mo|y)$/);
  });
});
