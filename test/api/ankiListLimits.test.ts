import assert from 'node:assert/strict';
import { MAX_LIST_ITEMS } from '../../src/server/api/ankiconnect/ankiLimits';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

/**
 * A list parameter of an AnkiConnect action (addNotes' notes, notesInfo's
 * notes, cardsInfo's cards, multi's actions, …) holds at most MAX_LIST_ITEMS
 * items: one more is refused in AnkiConnect's shape (HTTP 200, result null,
 * an error naming the list and the limit) before anything is read or
 * written; at the limit the action runs.
 */

describe('AnkiConnect: list parameters capped at MAX_LIST_ITEMS per call', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let port: number;
  let noteId: number;
  let cardId: number;

  const post = async (action: string, params: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      body: JSON.stringify({ action, version: 6, key: t.bridge.token, params }),
    });
    return { status: res.status, json: (await res.json()) as { result: any; error: string | null } };
  };
  const note = (i: number) => ({ deckName: 'Lists', modelName: 'Basic', fields: { Front: `front ${i}`, Back: 'b' } });

  before(async () => {
    t = await startBridge({ ankiConnect: { port: 0 } });
    port = t.bridge.ankiConnectPort!;
    const added = await post('addNotes', { notes: [note(0)] });
    noteId = added.json.result[0];
    cardId = (await post('findCards', { query: 'deck:Lists' })).json.result[0];
  });
  after(() => t.stop());

  const over = MAX_LIST_ITEMS + 1;
  const cases: Array<[string, string, (i: number) => unknown, Record<string, unknown>]> = [
    ['addNotes', 'notes', note, {}],
    ['canAddNotes', 'notes', note, {}],
    ['notesInfo', 'notes', () => 0, {}],
    ['cardsInfo', 'cards', () => 0, {}],
    ['deleteNotes', 'notes', () => 0, {}],
    ['addTags', 'notes', () => 0, { tags: 'capped' }],
    ['changeDeck', 'cards', () => 0, { deck: 'Elsewhere' }],
    ['suspend', 'cards', () => 0, {}],
    ['getDeckStats', 'decks', () => 'Lists', {}],
  ];
  for (const [action, list, item, rest] of cases)
    it(`${action} with ${over} ${list}: refused with the limit named, nothing changed`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const items = Array.from({ length: over }, (_, i) => item(i));
      // The real ids first: were the list read before the limit, these would be acted on.
      if (list === 'notes' && typeof items[0] === 'number') items[0] = noteId;
      if (list === 'cards') items[0] = cardId;
      const res = await post(action, { ...rest, [list]: items });
      assert.equal(res.status, 200);
      assert.equal(res.json.result, null);
      assert.equal(
        res.json.error,
        `${action}: ${list} has ${over} items; one call takes at most ${MAX_LIST_ITEMS} (send the rest in further calls)`,
      );
      assert.equal(storeDigest(t.bridge.services.store), before, `${action} changed nothing`);
    });

  it(`multi with ${over} actions is refused; inside multi, an action's list is capped the same way`, async () => {
    const actions = Array.from({ length: over }, () => ({ action: 'version' }));
    const res = await post('multi', { actions });
    assert.deepEqual(res.json, {
      result: null,
      error: `multi: actions has ${over} items; one call takes at most ${MAX_LIST_ITEMS}`,
    });
    const inner = await post('multi', {
      actions: [{ action: 'notesInfo', params: { notes: Array.from({ length: over }, () => noteId) } }],
    });
    assert.match(inner.json.result[0].error, /^notesInfo: notes has 1001 items; one call takes at most 1000/);
  });

  it('at the limit the action runs: notesInfo and cardsInfo of MAX_LIST_ITEMS ids', async () => {
    const notes = Array.from({ length: MAX_LIST_ITEMS }, (_, i) => (i === 0 ? noteId : 1 + i));
    const info = await post('notesInfo', { notes });
    assert.equal(info.json.error, null);
    assert.equal(info.json.result.length, MAX_LIST_ITEMS);
    assert.equal(info.json.result[0].fields.Front.value, 'front 0');
    const cards = await post('cardsInfo', { cards: Array.from({ length: MAX_LIST_ITEMS }, () => cardId) });
    assert.equal(cards.json.error, null);
    assert.equal(cards.json.result.length, MAX_LIST_ITEMS);
  });
});
