import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, type BuildRevlog } from '../helpers/ankiPackageBuilder';

/**
 * Each imported Anki card keeps its own review log (every graded revlog row),
 * flag, queue (suspended, buried), lapses, due date and FSRS memory state,
 * and an export gives them back: import → export → import into a new library
 * gives equal logs, flags, queues and due dates. Packages are read back with
 * the independent reader (anki-reader) before and after.
 */

const DAY = 86_400_000;
const crt = crtDaysAgo(30);
const b = crt * 1000 + 2 * DAY + 3_600_000;

const REVLOG_A0: BuildRevlog[] = [
  { id: b, ease: 3, ivl: -600, lastIvl: 0, time: 8000, type: 0 },
  { id: b + DAY, ease: 3, ivl: 3, lastIvl: -600, time: 5000, type: 0 },
  { id: b + 4 * DAY, ease: 1, ivl: -600, lastIvl: 3, time: 12_000, type: 1 },
  { id: b + 4 * DAY + 700_000, ease: 3, ivl: 2, lastIvl: -600, time: 4000, type: 2 },
  { id: b + 6 * DAY, ease: 4, ivl: 12, lastIvl: 2, time: 3000, type: 1 },
];
const MANUAL: BuildRevlog = { id: b + 7 * DAY, ease: 0, ivl: 12, lastIvl: 12, time: 0, type: 4 };
const REVLOG_A1: BuildRevlog[] = [
  { id: b + 2 * DAY + 1, ease: 3, ivl: 1, lastIvl: -600, time: 6000, type: 0 },
  { id: b + 3 * DAY + 1, ease: 2, ivl: 5, lastIvl: 1, time: 9000, type: 1 },
];
const REVLOG_B: BuildRevlog[] = [{ id: b + 5 * DAY + 2, ease: 3, ivl: 3, lastIvl: 1, time: 7000, type: 1 }];
/** Each card's graded reviews by its title (front): what the import must log. */
const GRADED: Record<string, BuildRevlog[]> = { hablar: REVLOG_A0, 'to speak': REVLOG_A1, comer: REVLOG_B, vivir: [] };

function historyPackage() {
  return buildApkg({
    crt,
    models: [BASIC_AND_REVERSED, { name: 'Basic', fields: ['Front', 'Back'] }],
    decks: ['Spanish::History'],
    notes: [
      {
        guid: 'histA',
        model: 'Basic (and reversed card)',
        fields: ['hablar', 'to speak'],
        cards: [
          {
            ord: 0,
            type: 2,
            queue: 2,
            due: 40,
            ivl: 12,
            reps: 5,
            lapses: 1,
            flags: 3,
            data: JSON.stringify({ s: 12.5, d: 6.2 }),
            revlog: [...REVLOG_A0, MANUAL],
          },
          { ord: 1, type: 2, queue: -1, due: 35, ivl: 5, reps: 2, flags: 7, revlog: REVLOG_A1 },
        ],
      },
      {
        guid: 'histB',
        model: 'Basic',
        fields: ['comer', 'to eat'],
        cards: [{ type: 2, queue: -3, due: 33, ivl: 3, reps: 1, flags: 1, revlog: REVLOG_B }],
      },
      { guid: 'histC', model: 'Basic', fields: ['vivir', 'to live'], cards: [{ type: 0, queue: -2, due: 1 }] },
    ],
  });
}

/** The package's cards (flag, queue, due, front) and revlog rows, through anki-reader's database. */
async function readBack(bytes: Uint8Array) {
  const { readAnkiPackage } = await import('anki-reader');
  const { collection } = await readAnkiPackage(new Blob([new Uint8Array(bytes)]));
  const db = collection.getRawCollection();
  const rows = (sql: string) => {
    const r = db.exec(sql)[0];
    return (r?.values ?? []).map((v: unknown[]) =>
      Object.fromEntries(r.columns.map((c: string, i: number) => [c, v[i]])),
    );
  };
  const cards = rows(
    'SELECT c.id, c.ord, c.flags, c.queue, c.type, c.due, c.ivl, c.lapses, n.guid FROM cards c JOIN notes n ON n.id = c.nid ORDER BY n.guid, c.ord',
  );
  const revlog = rows('SELECT id, cid, ease, time FROM revlog ORDER BY id');
  return { cards, revlog };
}

const importInto = async (t: TestBridge, bytes: Uint8Array) =>
  (await t.client.raw('POST', '/decks/import', { bytes, query: { filename: 'History.apkg', confirm: 1 } })).json<any>();

/** Each card of a deck by title: flag, queue, scheduling and its review log. */
async function deckState(t: TestBridge, deckId: string) {
  const cards = (await t.client.cards.deckCards(deckId)).cards as any[];
  const log = (await t.client.reviews.log(deckId)).reviews;
  const out: Record<string, any> = {};
  for (const c of cards)
    out[c.title] = {
      flag: c.flag,
      suspended: c.suspended,
      buried: c.buriedUntil !== null,
      state: c.state,
      lapses: c.lapses,
      memory: c.state === 'new' ? null : [Math.round(c.stability * 1000), Math.round(c.difficulty * 1000)],
      dueDay: c.state === 'new' ? 'new' : c.due.slice(0, 10),
      reviews: log
        .filter((r) => r.cardNoteId === c.cardNoteId)
        .map((r) => ({ grade: r.grade, at: r.reviewedAt, ms: r.durationMs })),
    };
  return out;
}

const expectedReviews = (log: BuildRevlog[]) =>
  log.map((r) => ({ grade: r.ease, at: new Date(r.id).toISOString(), ms: r.time }));

describe('Anki review history, flags and queues: import and round trip', () => {
  let t: TestBridge;
  let u: TestBridge;
  let apkg: Uint8Array;
  let first: any;
  before(async () => {
    apkg = await historyPackage();
    t = await startBridge();
    u = await startBridge();
  });
  after(async () => {
    await t?.stop();
    await u?.stop();
  });

  it('the fixture reads back with anki-reader: 4 cards with flags and queues, 9 revlog rows', async () => {
    const { cards, revlog } = await readBack(apkg);
    assert.deepEqual(
      cards.map((c: any) => [c.guid, c.ord, c.flags, c.queue]),
      [
        ['histA', 0, 3, 2],
        ['histA', 1, 7, -1],
        ['histB', 0, 1, -3],
        ['histC', 0, 0, -2],
      ],
    );
    assert.equal(revlog.length, 9);
  });

  it('imports every graded review of each card into the review log, with its flag, queue and scheduling', async () => {
    first = await importInto(t, apkg);
    assert.equal(first.cards, 4);
    const s = await deckState(t, first.deckId);
    for (const [title, log] of Object.entries(GRADED)) assert.deepEqual(s[title].reviews, expectedReviews(log), title);
    assert.deepEqual(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, [v.flag, v.suspended, v.buried]])), {
      hablar: [3, false, false],
      'to speak': [7, true, false],
      comer: [1, false, true],
      vivir: [0, false, true],
    });
    assert.equal(s.hablar.lapses, 1);
    assert.equal(s.hablar.dueDay, new Date((crt + 40 * 86_400) * 1000).toISOString().slice(0, 10));
    const cards = (await t.client.cards.deckCards(first.deckId)).cards as any[];
    const hablar = cards.find((c) => c.title === 'hablar');
    assert.equal(hablar.stability, 12.5);
    assert.equal(hablar.difficulty, 6.2);
    // The log reads as POST /decks/{id}/reviews writes it: the state each review found the card in.
    const log = (await t.client.reviews.log(first.deckId, hablar.cardNoteId)).reviews;
    assert.deepEqual(
      log.map((r) => r.stateBefore),
      ['new', 'learning', 'review', 'relearning', 'review'],
    );
    assert.equal(log[4].dueAfter, new Date(REVLOG_A0[4].id + 12 * DAY).toISOString());
  });

  it('exports the same revlog rows, flags and queues, and a new library imports them equal', async () => {
    const exported = await t.client.raw('GET', `/decks/${first.deckId}/apkg`);
    assert.equal(exported.status, 200);
    const back = await readBack(exported.bytes);
    const graded = Object.values(GRADED).flat();
    assert.deepEqual(
      back.revlog.map((r: any) => [r.id, r.ease, r.time]),
      graded.sort((x, y) => x.id - y.id).map((r) => [r.id, r.ease, r.time]),
    );
    assert.deepEqual(back.cards.map((c: any) => c.flags).sort(), [0, 1, 3, 7]);
    assert.deepEqual(back.cards.map((c: any) => c.queue).sort(), [-1, -3, -3, 2]);
    const second = await importInto(u, exported.bytes);
    assert.equal(second.cards, 4);
    assert.deepEqual(await deckState(u, second.deckId), await deckState(t, first.deckId));
  });

  it('importing the export again into the first library logs no review twice', async () => {
    const exported = await t.client.raw('GET', `/decks/${first.deckId}/apkg`);
    const before = (await t.client.reviews.log(first.deckId)).count;
    assert.equal(before, 8);
    const again = await importInto(t, exported.bytes);
    assert.equal(again.deckId, first.deckId);
    assert.equal((await t.client.reviews.log(first.deckId)).count, before);
    const s = await deckState(t, first.deckId);
    assert.deepEqual(s.hablar.reviews, expectedReviews(REVLOG_A0));
  });
});
