/**
 * An import of more than 1,000 notes writes its rows unnoted (RowChanges.pause: no update hook call a row). Its
 * commit must still say what changed: every kind the same import's rows name when noted, cut (re-read it), and the
 * card index as all changed; and a due pick kept from before must not outlive a re-import that changed its cards.
 */
import assert from 'node:assert/strict';
import { RowChanges } from '../../src/server/ground/store/rowChanges';
import type { CardIndexChange, ChangeKind, LibraryChange } from '../../src/server/ground/store/store';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, type BuildNote } from '../helpers/ankiPackageBuilder';

const NOTES = 1_100;

/** Basic and reversed notes: `back` is only on the card's answer side (not a deck_cards column, unlike the question). */
function reversedPackage(back: string): Promise<Uint8Array> {
  const notes: BuildNote[] = [];
  for (let i = 0; i < NOTES; i++)
    notes.push({
      guid: `unnoted${i}`,
      model: 'Basic (and reversed card)',
      fields: [`front ${i}`, `${back} ${i}`],
      cards: [
        { ord: 0, type: 0, due: i },
        { ord: 1, type: 0, due: i },
      ],
    });
  return buildApkg({ crt: crtDaysAgo(30), models: [BASIC_AND_REVERSED], decks: ['Unnoted'], notes });
}

/** Imports and returns what each acknowledged batch announced meanwhile. */
async function importAnnounced(t: TestBridge, bytes: Uint8Array) {
  const seen: Array<{ changes: readonly LibraryChange[]; cardIndex: CardIndexChange }> = [];
  const off = t.bridge.services.store.onCommit((_r, changes, cardIndex) => seen.push({ changes, cardIndex }));
  try {
    const result = await t.client.anki.importPackage(bytes, 'Unnoted.apkg');
    return { result, seen };
  } finally {
    off();
  }
}

const byKind = (seen: Array<{ changes: readonly LibraryChange[] }>) =>
  new Map(seen.flatMap((s) => s.changes).map((c) => [c.kind, c]));

describe('a large Anki import, its rows unnoted', () => {
  let bytes: Uint8Array;
  const bridges: TestBridge[] = [];
  const bridge = async () => {
    const t = await startBridge();
    bridges.push(t);
    return t;
  };
  before(async () => {
    bytes = await reversedPackage('back');
  });
  after(() => Promise.all(bridges.map((t) => t.stop())));

  it('announces every kind its rows name when noted, each cut, and the card index all changed', async () => {
    // The same import with every row noted, to compare with: pause() made a no-op.
    const pause = Object.getOwnPropertyDescriptor(RowChanges.prototype, 'pause')!;
    Object.defineProperty(RowChanges.prototype, 'pause', { ...pause, value: () => undefined });
    let noted: Map<ChangeKind, LibraryChange>;
    try {
      noted = byKind((await importAnnounced(await bridge(), bytes)).seen);
    } finally {
      Object.defineProperty(RowChanges.prototype, 'pause', pause);
    }
    const { result, seen } = await importAnnounced(await bridge(), bytes);
    assert.equal(result.cards, NOTES * 2);
    const unnoted = byKind(seen);
    assert.ok(noted.size >= 3, `noted kinds: ${[...noted.keys()].join(', ')}`);
    assert.ok(noted.get('card')!.ids.length > 0, 'the comparison noted its rows: it names cards');
    for (const kind of noted.keys())
      assert.deepEqual(unnoted.get(kind), { kind, ids: [], truncated: true }, `${kind} announced, cut`);
    assert.deepEqual([...unnoted.keys()].sort(), ['card', 'deck', 'set']);
    assert.ok(
      seen.some((s) => s.cardIndex.all),
      'the card index announced all changed',
    );
  });

  it('a due pick kept before a re-import that changes its cards is made anew: the new text is shown', async () => {
    const t = await bridge();
    const { deckId } = await t.client.anki.importPackage(bytes, 'Unnoted.apkg');
    const answers = async () => {
      const { cards } = await t.owner.call('GET /decks/{id}/due', { params: { id: deckId }, query: { limit: 5 } });
      return JSON.stringify(cards.map((c) => c.answer));
    };
    assert.match(await answers(), /back 0/);
    assert.match(await answers(), /back 0/, 'asked again: the kept pick');
    const again = await t.client.anki.importPackage(await reversedPackage('changed'), 'Unnoted.apkg');
    assert.equal(again.deckId, deckId);
    const now = await answers();
    assert.match(now, /changed 0/);
    assert.doesNotMatch(now, /back 0/);
  });
});
