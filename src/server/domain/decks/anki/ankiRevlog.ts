import type { Database } from 'sql.js';
import { queryAll, queryAllSteps } from '../../../ground/store/sqlite';
import { inSlices } from '../../../ground/store/writeSteps';
import type { CountedReview } from '../counterTally';

/**
 * Anki's review log (revlog) read per card and mapped onto our review_logs
 * rows. A revlog id is the review's epoch ms; ease 1–4 is again/hard/good/
 * easy, the same numbers as our grades; type 0 learn, 1 review, 2 relearn,
 * 3 filtered (cram). Rows with ease 0 (a manual reschedule, type 4) record no
 * grade and are left out. What the log alone cannot tell (the memory state
 * before each review) is the interval Anki had scheduled as stability and 0
 * as difficulty, which no reader of the log takes for a measured value.
 */

export interface AnkiRevlog {
  id: number;
  ease: number;
  /** Interval after the review: days when positive, seconds when negative. */
  ivl: number;
  lastIvl: number;
  /** Time taken, ms. */
  time: number;
  type: number;
}

/** Each card's graded reviews, oldest first (read in slices of the event loop); empty when the package has no revlog table. */
export async function revlogOf(db: Database): Promise<Map<number, AnkiRevlog[]>> {
  const out = new Map<number, AnkiRevlog[]>();
  const has =
    queryAll<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'revlog'").length >
    0;
  if (!has) return out;
  const rows = await inSlices(
    queryAllSteps<AnkiRevlog & { cid: number }>(
      db,
      'SELECT id, cid, ease, ivl, lastIvl, time, type FROM revlog WHERE ease BETWEEN 1 AND 4 ORDER BY cid, id',
    ),
  );
  for (const r of rows) {
    const row = {
      id: Number(r.id),
      ease: Number(r.ease),
      ivl: Number(r.ivl) || 0,
      lastIvl: Number(r.lastIvl) || 0,
      time: Math.max(0, Number(r.time) || 0),
      type: Number(r.type) || 0,
    };
    const list = out.get(r.cid);
    if (list) list.push(row);
    else out.set(r.cid, [row]);
  }
  return out;
}

const DAY_MS = 86_400_000;

/** Our state before a review, from the revlog type (a first learning step finds the card new). */
function stateBefore(r: AnkiRevlog, first: boolean): number {
  if (r.type === 1) return 2;
  if (r.type === 2) return 3;
  if (r.type === 3) return r.lastIvl > 0 ? 2 : 1;
  return first ? 0 : 1;
}

/** When the review scheduled the card next (ms): a positive ivl counts days, a negative one seconds. */
const dueAfterMs = (r: AnkiRevlog) => r.id + (r.ivl > 0 ? r.ivl * DAY_MS : r.ivl < 0 ? -r.ivl * 1000 : 0);

/** The columns of review_logs after (id, deck_id, card_note_id), in insert order. */
export const REVIEW_LOG_COLUMNS =
  'rating, state_before, due_before, stability, difficulty, elapsed_days, last_elapsed_days, scheduled_days, learning_steps, reviewed_at, duration_ms, due_after, actor, token_id';

/** What the deck counters count of one of reviewLogValues' rows (REVIEW_LOG_COLUMNS order). */
export const reviewCounted = (deckId: string, v: readonly (string | number | null)[]): CountedReview => ({
  deck_id: deckId,
  rating: v[0] as number,
  state_before: v[1] as number,
  elapsed_days: v[5] as number,
  reviewed_at: v[9] as string,
  duration_ms: v[10] as number | null,
});

/** One card's revlog as review_logs values (without the leading id, deck and card). */
export function reviewLogValues(
  log: readonly AnkiRevlog[],
  actor: { kind: string; tokenId: string | null },
): Array<Array<string | number | null>> {
  let prevAt: number | undefined;
  let prevDue: number | undefined;
  let prevElapsed = 0;
  return log.map((r, i) => {
    const elapsed = prevAt === undefined ? 0 : Math.max(0, Math.round((r.id - prevAt) / DAY_MS));
    const scheduled = Math.max(0, r.lastIvl);
    const values = [
      r.ease,
      stateBefore(r, i === 0),
      new Date(prevDue ?? r.id).toISOString(),
      scheduled,
      0,
      elapsed,
      prevElapsed,
      scheduled,
      0,
      new Date(r.id).toISOString(),
      r.time,
      new Date(dueAfterMs(r)).toISOString(),
      actor.kind,
      actor.tokenId,
    ];
    prevAt = r.id;
    prevDue = dueAfterMs(r);
    prevElapsed = elapsed;
    return values;
  });
}
