/**
 * The one approximate substring matcher: Sellers' edit distance of a key
 * against the best substring of a text (free start and end), with the start
 * of that substring tracked so the match maps back to the page.
 */
export function sellers(q: string, t: string, from = 0, to = t.length): { dist: number; start: number; end: number } {
  const n = to - from;
  const m = q.length;
  let prev = new Int32Array(n + 1);
  let prevStart = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  let curStart = new Int32Array(n + 1);
  for (let j = 0; j <= n; j++) prevStart[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    curStart[0] = 0;
    const qc = q.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const sub = prev[j - 1] + (t.charCodeAt(from + j - 1) === qc ? 0 : 1);
      const del = prev[j] + 1; // skip a quote char
      const ins = cur[j - 1] + 1; // skip a page char
      if (sub <= del && sub <= ins) {
        cur[j] = sub;
        curStart[j] = prevStart[j - 1];
      } else if (del <= ins) {
        cur[j] = del;
        curStart[j] = prevStart[j];
      } else {
        cur[j] = ins;
        curStart[j] = curStart[j - 1];
      }
    }
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
  }
  let dist = m;
  let end = 0;
  for (let j = 0; j <= n; j++) if (prev[j] < dist) [dist, end] = [prev[j], j];
  return { dist, start: from + prevStart[end], end: from + end };
}

/** 0..1, three decimals: 1 − edit distance / key length. */
export function matchScore(dist: number, keyLength: number): number {
  return Math.max(0, Math.round((1 - dist / keyLength) * 1000) / 1000);
}

/** A quote whose key scores at least this is on the page (locate, anchoring, card creation alike). */
export const ACCEPT_SCORE = 0.85;
/** Between this and ACCEPT_SCORE an excerpt is "below_threshold" (close, not verbatim); under it, "no_match". */
export const REJECT_SCORE = 0.6;
