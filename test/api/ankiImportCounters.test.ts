import assert from 'node:assert/strict';
import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/server/ground/store/store';
import { DUE_DAYS_RECOUNT, REVIEW_HOURS_RECOUNT } from '../../src/server/ground/store/deckDueDaysMigration';
import { INSERT_TRIGGERS } from '../../src/server/domain/decks/anki/ankiImportTriggers';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { card, newDeck, newSet } from '../helpers/libraryFixtures';
import {
  BASIC_AND_REVERSED,
  buildApkg,
  crtDaysAgo,
  type BuildCard,
  type BuildNote,
} from '../helpers/ankiPackageBuilder';

/**
 * An import writes its rows without the per-row insert triggers and writes
 * what they would have once (ankiImportTriggers.ts). Checked here in
 * library.db after an import, a re-import that changes scheduling and a
 * grade after it, beside a deck of another set: the deck counters equal a
 * recount from the cards and the log, each review card's state is its FSRS
 * state, every card has its card_edits stamp, and the triggers are back.
 */

const DAY = 86_400_000;
/** Whole seconds: both packages give the same first review the same instant. */
const BASE = Math.floor((Date.now() - 20 * DAY) / 1000) * 1000;
/** The triggers the import drops and must create again (each must exist in the schema, too). */
const TRIGGERS = INSERT_TRIGGERS;

function reviewed(i: number, ord: number, shift: number): BuildCard {
  if ((i + ord) % 3 === 2) return { ord, type: 0, due: i };
  // An hour and a bit apart, earlier and earlier: a large package's reviews fall in thousands of hours.
  const t = BASE - i * 3_661_000 + ord * 7_000;
  return {
    ord,
    type: (i + ord) % 3 === 0 ? 2 : 1,
    queue: i % 7 === 0 ? -1 : i % 5 === 0 ? -3 : 2,
    due: 30 + ((i + shift) % 9),
    ivl: 1 + (i % 4),
    reps: 2,
    flags: i % 8,
    data: JSON.stringify({ s: 5 + i, d: 3 + (i % 5) }),
    revlog: [
      { id: t, ease: 3, ivl: -600, lastIvl: 0, time: 5000, type: 0 },
      { id: t + (3 + shift) * DAY, ease: 1 + (i % 4), ivl: 8 + i, lastIvl: -600, time: 7000, type: 1 },
    ],
  };
}

/** Cards of the package below with a review log (two revlog rows each, one of them moved by `shift`). */
const REVIEWED = Array.from({ length: 24 }, (_, i) => (i % 4 === 0 ? [0] : [0, 1]))
  .flatMap((ords, i) => ords.map((ord) => (i + ord) % 3 !== 2))
  .filter(Boolean).length;

function reversedPackage(shift: number, count = 24) {
  const notes: BuildNote[] = [];
  for (let i = 0; i < count; i++)
    notes.push({
      guid: `cnt${i}`,
      model: i % 4 === 0 ? 'Basic' : 'Basic (and reversed card)',
      fields: [`front ${i}`, `back ${i}`],
      tags: [`Level::${i % 3}`],
      cards: i % 4 === 0 ? [reviewed(i, 0, shift)] : [reviewed(i, 0, shift), reviewed(i, 1, shift)],
    });
  return buildApkg({
    crt: crtDaysAgo(30),
    models: [BASIC_AND_REVERSED, { name: 'Basic', fields: ['Front', 'Back'] }],
    decks: ['Counters'],
    notes,
  });
}

/** What must hold in library.db: each a list of offending rows (empty when right). */
async function problems(dataDir: string) {
  const store = await Store.open(dataDir, { idleCheckpointMs: 0 });
  try {
    const rows = (sql: string) => store.all(sql);
    return {
      dueDays: rows(`${DUE_DAYS_RECOUNT} EXCEPT SELECT * FROM deck_due_days`).concat(
        rows(`SELECT * FROM deck_due_days EXCEPT ${DUE_DAYS_RECOUNT}`),
      ),
      reviewHours: rows(`${REVIEW_HOURS_RECOUNT} EXCEPT SELECT * FROM review_hours`).concat(
        rows(`SELECT * FROM review_hours EXCEPT ${REVIEW_HOURS_RECOUNT}`),
      ),
      state: rows(`SELECT card_note_id FROM deck_cards
        WHERE state IS NOT (CASE WHEN json_valid(fsrs) THEN coalesce(json_extract(fsrs, '$.state'), 0) ELSE 0 END)`),
      unstamped: rows(`SELECT n.noteid FROM notes n LEFT JOIN card_edits e ON e.noteid = n.noteid
        WHERE e.stamp IS NOT (SELECT ifnull(max(rowid), 0) FROM snapshots)`),
      orphanStamps: rows(
        `SELECT e.noteid FROM card_edits e LEFT JOIN notes n ON n.noteid = e.noteid WHERE n.noteid IS NULL`,
      ),
      triggers: store
        .all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'trigger'`)
        .map((r) => r.name)
        .filter((n) => TRIGGERS.includes(n))
        .sort(),
      reviews: store.get<{ n: number }>('SELECT count(*) AS n FROM review_logs')!.n,
      states: store.all<{ state: number }>('SELECT DISTINCT state FROM deck_cards ORDER BY state').map((r) => r.state),
    };
  } finally {
    await store.close();
  }
}

describe('an Anki import keeps the deck counters, card states and edit stamps its triggers would have', () => {
  const dataDir = tempDir('sb-anki-counters-');
  let t: TestBridge | undefined;
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const importPackage = async (bytes: Uint8Array) =>
    (await t!.client.raw('POST', '/decks/import', { bytes, query: { filename: 'Counters.apkg', confirm: 1 } })).json<{
      deckId: string;
      cards: number;
      created: number;
      updated: number;
    }>();

  /** library.db and library.journal as a kill -9 would leave them now: opening a copy replays the journal. */
  function crashCopy(): string {
    const dir = tempDir('sb-anki-counters-crash-');
    for (const f of ['library.db', 'library.journal'])
      if (existsSync(join(dataDir, f))) copyFileSync(join(dataDir, f), join(dir, f));
    assert.ok(statSync(join(dir, 'library.journal')).size > 0, 'the writes are in the journal, not checkpointed');
    return dir;
  }

  async function expectRight(reviews: number) {
    const crashed = crashCopy();
    await t!.stop();
    t = undefined;
    const p = await problems(dataDir);
    assert.deepEqual(await problems(crashed), p, 'the journal replays to the same rows');
    rmSync(crashed, { recursive: true, force: true });
    assert.deepEqual(
      { ...p, reviews: undefined, states: undefined },
      {
        dueDays: [],
        reviewHours: [],
        state: [],
        unstamped: [],
        orphanStamps: [],
        triggers: [...TRIGGERS].sort(),
        reviews: undefined,
        states: undefined,
      },
    );
    assert.equal(p.reviews, reviews);
    assert.deepEqual(p.states, [0, 1, 2], 'new, learning and review cards among them');
    t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
  }

  it('after an import beside another deck, a re-import that moves due dates and adds reviews, and a grade', async () => {
    t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    const set = await newSet(t, 'Other set');
    const sources = [await card(t, set.topicid, { title: 'other 1' }), await card(t, set.topicid, { title: 'o 2' })];
    const other = await newDeck(t, 'Other deck', sources);
    await t.client.request('POST', `/decks/${other.deckId}/reviews`, {
      body: { cardNoteId: other.cardNoteIds[0], rating: 'good', durationMs: 900, confirm: true },
    });

    const first = await importPackage(await reversedPackage(0));
    assert.equal(first.cards, 42);
    await expectRight(1 + REVIEWED * 2);

    const again = await importPackage(await reversedPackage(2));
    assert.equal(again.updated, 24);
    await expectRight(1 + REVIEWED * 3);

    const due = await t.client.call('GET /decks/{id}/due', { params: { id: first.deckId } });
    assert.ok(due.newCount > 0);
    const deckCards = await t.owner.call('GET /decks/{id}/cards', { params: { id: first.deckId } });
    await t.client.request('POST', `/decks/${first.deckId}/reviews`, {
      body: { cardNoteId: deckCards.cards[0].cardNoteId, rating: 'easy', durationMs: 1200, confirm: true },
    });
    await expectRight(1 + REVIEWED * 3 + 1);
  });

  it('an import whose counter rows take many statements (100 rows each) is counted in full', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    const big = await importPackage(await reversedPackage(0, 1800));
    assert.equal(big.cards, 1800 * 2 - 1800 / 4);
    const count = (sql: string) => t!.bridge.services.store.get<{ n: number }>(sql)!.n;
    const reviews = count('SELECT count(*) AS n FROM review_logs');
    assert.ok(count('SELECT count(*) AS n FROM review_hours') > 1000, 'review hours in more than ten statements');
    await expectRight(reviews);
  });
});
