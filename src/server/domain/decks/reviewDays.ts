import type { Store } from '../../ground/store/store';

/**
 * Reviews per study day (count, time) and true retention by interval bucket,
 * from review_hours (migration 17: the review log summed by deck and UTC
 * hour, kept by triggers): a day [a, b) is the hours from a's to b's, with
 * the reviews of each bound's own hour before the bound, read from the log's
 * index, put right (none when the day starts on the hour).
 */

/** Interval buckets for true retention, in days since the last review (Anki's young/mature split at 21); migration 17 sums by them. */
export const BUCKETS: ReadonlyArray<{ label: string; below: number }> = [
  { label: '<7d', below: 7 },
  { label: '7-20d', below: 21 },
  { label: '21-89d', below: 90 },
  { label: '90d+', below: Infinity },
];

/** A study day's name: its local date. */
export const localDate = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The reviews of deck ?1 in [the hour of `x`, x): json_array(count, time). */
const hourHead = (x: string) =>
  `(SELECT json_array(count(*), sum(coalesce(duration_ms, 0))) FROM review_logs
    WHERE deck_id = ?1 AND reviewed_at >= substr(${x}, 1, 13) AND reviewed_at < ${x})`;

export function reviewsByDay(store: Store, deckId: string, days: Date[], shift: (d: Date, n: number) => Date) {
  const perDay = new Map<string, { reviews: number; timeMs: number }>();
  const rows = perStudyDay<{ h: string; pa: string; pb: string }>(
    store,
    [deckId],
    days.map((d) => [d.toISOString(), shift(d, 1).toISOString()]),
    `(SELECT json_array(coalesce(sum(n), 0), coalesce(sum(ms), 0)) FROM review_hours
      WHERE deck_id = ?1 AND hour >= substr(days.a, 1, 13) AND hour < substr(days.b, 1, 13)) AS h,
     ${hourHead('days.a')} AS pa, ${hourHead('days.b')} AS pb`,
  );
  rows.forEach((r, i) => {
    const [h, a, b] = [r.h, r.pa, r.pb].map((j) => (JSON.parse(j) as Array<number | null>).map((x) => x ?? 0));
    const n = h[0] + b[0] - a[0];
    if (n) perDay.set(localDate(days[i]), { reviews: n, timeMs: h[1] + b[1] - a[1] });
  });
  return { perDay, retention: retentionSince(store, deckId, days.length ? days[0].toISOString() : '') };
}

/** Reviews of cards in review state since `start`, and how many passed, by interval bucket. */
function retentionSince(store: Store, deckId: string, start: string) {
  const retention = BUCKETS.map((b) => ({ interval: b.label, reviews: 0, passed: 0 }));
  const cols = BUCKETS.flatMap((_, i) => [`coalesce(sum(r${i}), 0) AS r${i}`, `coalesce(sum(p${i}), 0) AS p${i}`]);
  const sums = store.get<Record<string, number>>(
    `SELECT ${cols.join(', ')} FROM review_hours WHERE deck_id = ? AND hour >= substr(?, 1, 13)`,
    [deckId, start],
  )!;
  retention.forEach((b, i) => {
    b.reviews += sums[`r${i}`];
    b.passed += sums[`p${i}`];
  });
  // The bucket's number: how many bucket bounds the interval has reached.
  const bucket = BUCKETS.filter((b) => Number.isFinite(b.below))
    .map((b) => `(elapsed_days >= ${b.below})`)
    .join(' + ');
  // Those hours' reviews from the start of the first hour to the start of the window are not in it.
  for (const r of store.all<{ b: number; n: number; p: number }>(
    `SELECT ${bucket} AS b, count(*) AS n, sum(rating > 1) AS p FROM review_logs
     WHERE deck_id = ? AND reviewed_at >= substr(?, 1, 13) AND reviewed_at < ? AND state_before = 2 GROUP BY b`,
    [deckId, start, start],
  )) {
    retention[r.b].reviews -= r.n;
    retention[r.b].passed -= r.p;
  }
  return retention;
}

/**
 * One row per study day [a, b): `select` reads the day as days.a and days.b (correlated subqueries over an
 * index range each), so SQL sums every day without sorting the rows. `params` are ?1… before the days'.
 */
function perStudyDay<T>(store: Store, params: string[], days: Array<[string, string]>, select: string): T[] {
  if (!days.length) return [];
  const at = params.length + 1;
  const values = days.map((_, i) => `(${i}, ?${at + 2 * i}, ?${at + 2 * i + 1})`).join(', ');
  return store.all<T>(`WITH days(i, a, b) AS (VALUES ${values}) SELECT ${select} FROM days ORDER BY i`, [
    ...params,
    ...days.flat(),
  ]);
}
