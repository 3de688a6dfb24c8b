// Review decks at 100k cards and 100k reviews: GET /decks/{id}/due under the
// daily limits (goal p95 ≤ 20 ms) and GET /decks/{id}/stats (goal ≤ 200 ms),
// over HTTP beside the same domain call alone. The deck is written with
// direct store writes (seeded), with cards in every state, suspended and
// buried ones, and a year of review log. `npm run bench -- decks` runs only this file.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge } from '../src/server/bridge';
import { dueQueue } from '../src/server/domain/decks/deckDue';
import { deckStats } from '../src/server/domain/decks/deckStats';
import { counterDrift } from '../src/server/domain/decks/counterRepair';
import type { Store } from '../src/server/ground/store/store';
import { percentile, printTable } from './table';
import { uuid } from './fixtures/cardLibrary';

const CARDS = 100_000;
const REVIEWS = 100_000;
const RUNS = 40;
/**
 * The due figures before, by limit: HTTP p50 / p95 on a quiet machine when every call picked its cards, read their
 * faces and counted the deck anew (before the kept pick of dueCache.ts); 1 and 20 were not measured then.
 */
const BEFORE_DUE = { 200: '18.3 / 21.7 ms', 1000: '16.7 / 30.5 ms' };
const DAY = 86_400_000;

type Timing = { p50: number; p95: number };
/** The same GET timed by a client in a process of its own, as an agent is (fixtures/remoteGet.mjs). */
function timeRemote(runs: number, url: string, token: string): Promise<Timing> {
  const script = join(__dirname, 'fixtures', 'remoteGet.mjs');
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [script, url, token, String(runs)], (err: Error | null, out: string) =>
      err ? reject(err) : resolve(JSON.parse(out) as Timing),
    ),
  );
}
async function time(runs: number, fn: () => unknown): Promise<Timing> {
  // Warm; a socket the server closed at its keep-alive timeout fails once and is sent again.
  await Promise.resolve(fn()).catch(() => fn());
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

/** `fn` timed after an untimed `before` each time (a write, so nothing kept is reused). */
async function timeAfter(runs: number, before: () => Promise<unknown>, fn: () => unknown): Promise<Timing> {
  await before();
  await Promise.resolve(fn()).catch(() => fn());
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before();
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

const progress = (what: string) => process.stderr.write(`  … ${what}\n`);

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** A card's FSRS state by its number: 0.2 % learning, 0.1 % relearning, 35 % review, the rest new. */
function scheduleOf(i: number, rand: () => number, now: number) {
  const k = i % 1000;
  const state = k < 2 ? 1 : k < 3 ? 3 : k < 353 ? 2 : 0;
  const stability = state === 0 ? 0 : 1 + rand() * 200;
  // Reviews: due from 30 days ago to 90 days ahead; learning cards within the hour either side.
  const due =
    state === 0
      ? now - DAY
      : state === 2
        ? now + Math.round((rand() * 120 - 30) * DAY)
        : now + Math.round((rand() - 0.5) * 7_200_000);
  const last = state === 0 ? null : new Date(due - Math.max(1, stability) * DAY).toISOString();
  const fsrs = {
    due: new Date(due).toISOString(),
    stability,
    difficulty: state === 0 ? 0 : 1 + rand() * 9,
    elapsed_days: 0,
    scheduled_days: state === 2 ? Math.round(stability) : 0,
    learning_steps: 0,
    reps: state === 0 ? 0 : 1 + Math.floor(rand() * 10),
    lapses: 0,
    state,
    last_review: last,
  };
  return { fsrs: JSON.stringify(fsrs), due: fsrs.due };
}

async function buildDeck(store: Store, topicid: string, rootNoteId: string, deckId: string) {
  const rand = rng(5);
  const now = Date.now();
  const created = new Date(now - 400 * DAY).toISOString();
  for (let chunk = 0; chunk < CARDS; chunk += 5000) {
    await store.write((tx) => {
      for (let i = chunk; i < Math.min(CARDS, chunk + 5000); i++) {
        const id = uuid(i + 1);
        tx.run(
          'INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, created_at, modified_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
          [id, topicid, rootNoteId, i, `Card ${i}`, created, created],
        );
        tx.run('INSERT INTO note_texts(noteid, idx, text) VALUES (?, 0, ?)', [id, `Body of card ${i}`]);
        const s = scheduleOf(i, rand, now);
        // 2 % suspended, 1 % buried until tomorrow.
        const queue = i % 50 === 7 ? 'suspended' : i % 100 === 11 ? 'buried' : null;
        tx.run(
          `INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, fsrs, due_at, created_at, modified_at, queue, buried_until)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            uuid(CARDS + i + 1),
            deckId,
            id,
            s.fsrs,
            s.due,
            created,
            created,
            queue,
            queue === 'buried' ? new Date(now + DAY).toISOString() : null,
          ],
        );
      }
    });
  }
  // A year of reviews: 50 today, the rest over the year before.
  for (let chunk = 0; chunk < REVIEWS; chunk += 5000) {
    await store.write((tx) => {
      for (let i = chunk; i < Math.min(REVIEWS, chunk + 5000); i++) {
        const at = new Date(i % 2000 === 0 ? now - rand() * 3_600_000 : now - rand() * 365 * DAY).toISOString();
        const stateBefore = i % 4 === 0 ? 0 : i % 4 === 1 ? 1 : 2;
        tx.run(
          `INSERT INTO review_logs(id, deck_id, card_note_id, rating, state_before, due_before, stability, difficulty, elapsed_days,
             last_elapsed_days, scheduled_days, learning_steps, reviewed_at, duration_ms, due_after, actor)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?, 'bench')`,
          [
            uuid(3 * CARDS + i),
            deckId,
            uuid(CARDS + 1 + (i % CARDS)),
            rand() < 0.12 ? 1 : rand() < 0.1 ? 2 : 3,
            stateBefore,
            at,
            1 + rand() * 100,
            5,
            Math.floor(rand() * 200),
            Math.floor(rand() * 200),
            at,
            2000 + Math.floor(rand() * 8000),
            at,
          ],
        );
      }
    });
  }
}

async function main() {
  // DECKS_BENCH_DIR=<dir>: build the deck there once and keep it (for profiling runs).
  const kept = process.env.DECKS_BENCH_DIR;
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'sb-bench-decks-'));
  const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0 } });
  const { store, decks } = bridge.services;
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  const rows: Array<Array<string | number>> = [];
  // `before`, stats: HTTP p50 / p95 of the code before migration 17 (due counts and statistics from counts kept on
  // write, dueDays.ts and reviewDays.ts), on this deck, on this machine shared with other work (2 cores at load 5-20:
  // every figure here is several times what an idle machine gives, and p95 is mostly the load). Due: BEFORE_DUE.
  const row = (what: string, http: Timing, alone: Timing, goal: string, before: string, remote?: Timing) =>
    rows.push([what, http.p50, http.p95, remote?.p50 ?? '', remote?.p95 ?? '', alone.p50, alone.p95, goal, before]);
  try {
    const found = store.get<{ id: string }>(
      `SELECT topicid AS id FROM topics WHERE kind = 'deck' AND title = 'Deck bench'`,
    );
    const deckId = found?.id ?? (await client.createDeck('Deck bench')).deckId;
    if (!found) {
      const set = await client.createStudySet('Deck bench set');
      const t0 = performance.now();
      await buildDeck(store, set.topicid, set.rootNoteId!, deckId);
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      progress(`deck of ${CARDS} cards and ${REVIEWS} reviews built in ${s} s`);
      await store.checkpoint({ onThisThread: true });
    }
    // A socket the server closed at its keep-alive timeout fails once; the request is sent again.
    const get = (path: string, query?: Record<string, string>) =>
      client.request<any>('GET', path, { query }).catch(() => client.request<any>('GET', path, { query }));
    const first = await get(`/decks/${deckId}/due`, { limit: '1' });
    progress(`due: ${first.dueCount} (held back ${JSON.stringify(first.heldBack)})`);

    for (const limit of [1, 20, 200, 1000]) {
      row(
        `GET /decks/{id}/due?limit=${limit}, ${CARDS} cards`,
        await time(RUNS, () => get(`/decks/${deckId}/due`, { limit: String(limit) })),
        await time(RUNS, () => dueQueue(store, decks, deckId, { limit })),
        'p95 ≤ 20 ms',
        (BEFORE_DUE as Record<number, string>)[limit] ?? '',
        await timeRemote(RUNS, `${bridge.baseUrl}/decks/${deckId}/due?limit=${limit}`, bridge.token),
      );
      progress(`due limit ${limit} done`);
    }
    // As in a review session, where each GET follows a grade: a write first (untimed), so the pick is made anew.
    const touch = () =>
      store.write((tx) =>
        tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('decks_bench', ?)`, [`${Math.random()}`]),
      );
    row(
      `GET /decks/{id}/due?limit=200 after a write, ${CARDS} cards`,
      await timeAfter(RUNS, touch, () => get(`/decks/${deckId}/due`, { limit: '200' })),
      await timeAfter(RUNS, touch, () => dueQueue(store, decks, deckId, { limit: 200 })),
      'p95 ≤ 20 ms',
      BEFORE_DUE[200],
    );
    // A review session: each GET follows a grade of the first card shown (the pick is remade, its other cards reused).
    const gradeFirst = async () => {
      const { cards } = await get(`/decks/${deckId}/due`, { limit: '1' });
      // Each run grades ~80 cards of a kept deck: after some runs none is due.
      if (!cards.length)
        throw new Error(`no card due to grade: remove ${process.env.DECKS_BENCH_DIR} to build it anew`);
      await client.request('POST', `/decks/${deckId}/reviews`, {
        body: { cardNoteId: cards[0].cardNoteId, rating: 'good', confirm: true },
      });
    };
    row(
      `GET /decks/{id}/due?limit=200 after a grade, ${CARDS} cards`,
      await timeAfter(RUNS, gradeFirst, () => get(`/decks/${deckId}/due`, { limit: '200' })),
      await timeAfter(RUNS, gradeFirst, () => dueQueue(store, decks, deckId, { limit: 200 })),
      'p95 ≤ 20 ms',
      BEFORE_DUE[200],
    );
    row(
      `GET /decks/{id}/stats, ${REVIEWS} reviews`,
      await time(10, () => get(`/decks/${deckId}/stats`)),
      await time(10, () => deckStats(store, decks, deckId, { forecastDays: 30, historyDays: 365 })),
      '≤ 200 ms',
      '282 / 537 ms',
    );
    row(
      `GET /decks/{id}/stats?forecastDays=90, ${REVIEWS} reviews`,
      await time(10, () => get(`/decks/${deckId}/stats`, { forecastDays: '90' })),
      await time(10, () => deckStats(store, decks, deckId, { forecastDays: 90, historyDays: 365 })),
      '≤ 200 ms',
      '402 / 492 ms',
    );
    // The start-up check of the deck counters against a recount (counterRepair.ts): no HTTP, it runs before serving.
    const check = await time(5, () => counterDrift(store));
    rows.push([
      `start-up deck counter check, ${CARDS} cards + ${REVIEWS} reviews`,
      '',
      '',
      '',
      '',
      check.p50,
      check.p95,
      '',
      '',
    ]);
    printTable(
      ['what', 'HTTP p50 ms', 'HTTP p95 ms', 'other process p50', 'p95', 'alone p50', 'alone p95', 'goal', 'before'],
      rows,
    );
  } finally {
    await bridge.close();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
