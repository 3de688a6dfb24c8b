import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import type { Store } from '../../ground/store/store';

// ts-fsrs's CommonJS build (its typings are ESM-only): see deckScheduling.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { default_w, forgetting_curve } = require('ts-fsrs') as typeof TsFsrs;

const DAY_MS = 86_400_000;
/** Ten buckets of recall probability, as Anki's retrievability graph. */
const BUCKETS = 10;

/**
 * The FSRS retrievability distribution: for each card with a memory state
 * (not new, not suspended), its probability of recall now, R = forgetting
 * curve of the days since its last review over its stability, with the
 * deck's weights (their decay) or FSRS-6's defaults.
 */
export function retrievabilityOf(store: Store, deckId: string, now: Date, fsrsParameters: readonly number[] | null) {
  const w = fsrsParameters?.length ? fsrsParameters : default_w;
  const counts = new Array<number>(BUCKETS).fill(0);
  let cards = 0;
  let sum = 0;
  for (const r of store.all<{ f: string | null }>(
    `SELECT fsrs AS f FROM deck_cards WHERE deck_id = ? AND state <> 0 AND coalesce(queue, '') <> 'suspended'`,
    [deckId],
  )) {
    const s = readMemory(r.f);
    if (!s) continue;
    const elapsed = Math.max(0, (now.getTime() - s.lastReview) / DAY_MS);
    const R = forgetting_curve(w, elapsed, s.stability);
    if (!Number.isFinite(R)) continue;
    cards++;
    sum += R;
    counts[Math.min(BUCKETS - 1, Math.floor(R * BUCKETS))]++;
  }
  return {
    cards,
    average: cards ? sum / cards : null,
    buckets: counts.map((n, i) => ({ range: `${i * 10}-${(i + 1) * 10}%`, cards: n })),
  };
}

/** Stability and last review of a stored schedule; undefined when it has none (never reviewed, unreadable). */
function readMemory(json: string | null): { stability: number; lastReview: number } | undefined {
  if (!json) return undefined;
  try {
    const s = JSON.parse(json) as { stability?: unknown; last_review?: unknown };
    const lastReview = typeof s.last_review === 'string' ? Date.parse(s.last_review) : NaN;
    if (typeof s.stability !== 'number' || !(s.stability > 0) || !Number.isFinite(lastReview)) return undefined;
    return { stability: s.stability, lastReview };
  } catch {
    return undefined;
  }
}
