import assert from 'node:assert/strict';
import { ankiIdOf } from '../../src/server/api/ankiconnect/ankiIds';
import { readAnkiNotes } from '../../src/server/api/ankiconnect/ankiNoteRead';
import { PAGE_CARDS } from '../../src/server/api/ankiconnect/ankiNotePages';
import { searchNotes } from '../../src/server/api/ankiconnect/ankiSearch';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/**
 * findNotes and findCards read the collection in pages of review cards, and
 * narrow by deck in SQL where the query has a deck: term. Their answers are
 * those of one read of every note searched in order (readAnkiNotes, the way
 * they answered before), over more notes than a page holds, with a note
 * whose first card is in another deck than the one searched, and refusals
 * unchanged.
 */

describe('AnkiConnect: findNotes and findCards read in pages, with the answers of one whole read', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let port: number;

  const invoke = async (action: string, params: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      body: JSON.stringify({ action, version: 6, key: t.bridge.token, params }),
    });
    return (await res.json()) as { result: any; error: string | null };
  };
  const ok = async (action: string, params: unknown) => {
    const json = await invoke(action, params);
    assert.equal(json.error, null, `${action}: ${json.error}`);
    return json.result;
  };
  const note = (deckName: string, front: string, back: string, tags: string[] = []) => ({
    deckName,
    modelName: 'Basic',
    fields: { Front: front, Back: back },
    tags,
  });
  /** The answer one whole read gives: every note read, then searched in order. */
  const wholeRead = async (query: string) =>
    (await searchNotes(readAnkiNotes(t.bridge.services.store), query)).map((n) => ankiIdOf(n.noteid));

  before(async () => {
    t = await startBridge({ ankiConnect: { port: 0 } });
    port = t.bridge.ankiConnectPort!;
    await ok('addNotes', { notes: [note('Alpha', 'shared word', 'first in Alpha', ['both'])] });
    for (let i = 0; i < PAGE_CARDS * 2 + 50; i += 250)
      await ok('addNotes', {
        notes: Array.from({ length: 250 }, (_, j) =>
          note(i + j < PAGE_CARDS ? 'Alpha' : 'Beta', `word ${i + j}`, `meaning ${i + j}`, [`n${(i + j) % 7}`]),
        ),
      });
    // The shared note gets a second card, in Beta, after every other card.
    const store = t.bridge.services.store;
    const shared = store.get<{ noteid: string }>(`SELECT noteid FROM notes WHERE title = 'shared word'`)!.noteid;
    const beta = t.bridge.services.decks.list().find((d) => d.title === 'Beta')!.deckId;
    await t.owner.request('POST', `/decks/${beta}/cards`, {
      body: { cards: [{ sourceNoteId: shared }], confirm: true },
    });
  });
  after(() => t.stop());

  it('findNotes answers as the whole read does, over more notes than two pages, deck: filtered or not', async () => {
    for (const query of [
      '',
      'word',
      'deck:Beta',
      'deck:beta',
      'deck:Alpha tag:n3',
      'deck:B* meaning*9*',
      'shared',
      '-deck:Alpha',
      'deck:Nowhere',
      'deck:* n1',
    ]) {
      const expected = await wholeRead(query);
      assert.deepEqual(await ok('findNotes', { query }), expected, query);
    }
    const all = await ok('findNotes', { query: '' });
    assert.ok(all.length > PAGE_CARDS * 2, 'the search crossed pages');
    // The note with cards in Alpha and Beta comes at its first card (Alpha), also when Beta is searched.
    const beta = await ok('findNotes', { query: 'deck:Beta' });
    const shared = (await ok('findNotes', { query: 'shared' }))[0];
    assert.equal(beta[0], shared, 'found through Beta, the shared note keeps the place of its Alpha card');
  });

  it('findCards gives every card of each note found, in the same order, through the deck filter too', async () => {
    for (const query of ['deck:Beta', 'shared', 'word 1*']) {
      const notes = await ok('notesInfo', { notes: await ok('findNotes', { query }) });
      assert.deepEqual(
        await ok('findCards', { query }),
        notes.flatMap((n: { cards: number[] }) => n.cards),
        query,
      );
    }
    const shared = await ok('findCards', { query: 'shared' });
    assert.equal(shared.length, 2, 'the shared note has its Alpha and its Beta card');
  });

  it('a bad query is refused as before, before anything is read', async () => {
    const long = await invoke('findNotes', { query: `deck:${'x'.repeat(5000)}` });
    assert.equal(long.result, null);
    assert.match(long.error ?? '', /characters/);
    const unserved = await invoke('findCards', { query: 'deck:Beta is:due' });
    assert.match(unserved.error ?? '', /is not served/);
    const missing = await invoke('findNotes', {});
    assert.match(missing.error ?? '', /needs a query string/);
  });
});
