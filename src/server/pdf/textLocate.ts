import type { Rect, TextItem } from './pdfTypes';

export interface LocateResult {
  found: boolean;
  /** `no_match` or `page_unreadable` when not found. */
  status: 'found' | 'no_match' | 'page_unreadable';
  matchedText?: string;
  /** 0..1: 1 − edit distance / query length. */
  score: number;
  rect?: Rect;
  algorithm: 'approximate_substring';
}

/** Characters compared: lower case, NFKC, whitespace runs as one space, soft hyphens dropped. */
function normalizeChar(c: string): string {
  return c.normalize('NFKC').toLowerCase();
}

interface Stream {
  chars: string[];
  /** Item index of each char (-1 for inserted separators). */
  owner: number[];
  /** Offset of each char inside its item's string. */
  offset: number[];
}

function buildStream(items: TextItem[]): Stream {
  const chars: string[] = [];
  const owner: number[] = [];
  const offset: number[] = [];
  let lastSpace = true;
  items.forEach((it, idx) => {
    if (!lastSpace) {
      // Line-end hyphenation: "exam-" + "ple" reads as "example".
      if (chars[chars.length - 1] === '-' && items[idx - 1]?.eol) {
        chars.pop();
        owner.pop();
        offset.pop();
      } else {
        chars.push(' ');
        owner.push(-1);
        offset.push(0);
        lastSpace = true;
      }
    }
    const s = it.str;
    for (let k = 0; k < s.length; k++) {
      if (s[k] === '\u00ad') continue;
      const isSpace = /\s/.test(s[k]);
      if (isSpace && lastSpace) continue;
      const n = isSpace ? ' ' : normalizeChar(s[k]);
      for (const ch of n) {
        chars.push(ch);
        owner.push(idx);
        offset.push(k);
      }
      lastSpace = isSpace;
    }
  });
  return { chars, owner, offset };
}

function normalizeQuery(text: string): string[] {
  return [...text.replace(/\u00ad/g, '').replace(/-\s*\n\s*/g, '').replace(/\s+/g, ' ').trim().normalize('NFKC').toLowerCase()];
}

/**
 * Finds `text` on a page by approximate substring matching (Sellers' edit
 * distance, free start and end in the page text). Found when the score is
 * at least `minScore`. The rectangle covers the matched items, cut
 * proportionally inside the first and last item.
 */
export function locateText(items: TextItem[], text: string, minScore = 0.8): LocateResult {
  const algorithm = 'approximate_substring' as const;
  const readable = items.some((i) => /[\p{L}\p{N}]/u.test(i.str));
  if (!readable) return { found: false, status: 'page_unreadable', score: 0, algorithm };
  const q = normalizeQuery(text).slice(0, 2000);
  if (!q.length) return { found: false, status: 'no_match', score: 0, algorithm };
  const s = buildStream(items);
  const n = s.chars.length;
  const m = q.length;
  // prev[j] = distance of q[0..i) against a suffix of page[0..j); start[j] = where that match starts.
  let prev = new Int32Array(n + 1);
  let prevStart = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  let curStart = new Int32Array(n + 1);
  for (let j = 0; j <= n; j++) prevStart[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    curStart[0] = 0;
    const qc = q[i - 1];
    for (let j = 1; j <= n; j++) {
      const sub = prev[j - 1] + (s.chars[j - 1] === qc ? 0 : 1);
      const del = prev[j] + 1; // skip a query char
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
  let best = Infinity;
  let end = 0;
  for (let j = 1; j <= n; j++) if (prev[j] < best) [best, end] = [prev[j], j];
  const score = Math.max(0, Math.round((1 - best / m) * 1000) / 1000);
  if (!Number.isFinite(best) || score < minScore) return { found: false, status: 'no_match', score, algorithm };
  let start = prevStart[end];
  // Trim separators at the edges.
  while (start < end && s.owner[start] < 0) start++;
  let last = end - 1;
  while (last > start && s.owner[last] < 0) last--;
  const firstItem = s.owner[start];
  const lastItem = s.owner[last];
  if (firstItem < 0 || lastItem < 0) return { found: false, status: 'no_match', score, algorithm };
  const parts: string[] = [];
  let rect: Rect | undefined;
  for (let k = firstItem; k <= lastItem; k++) {
    const it = items[k];
    const from = k === firstItem ? s.offset[start] : 0;
    const to = k === lastItem ? s.offset[last] + 1 : it.str.length;
    parts.push(it.str.slice(from, to));
    const len = it.str.length || 1;
    const r: Rect = { x: it.x + (it.w * from) / len, y: it.y, w: (it.w * (to - from)) / len, h: it.h };
    if (!rect) rect = r;
    else {
      const x = Math.min(rect.x, r.x);
      const y = Math.min(rect.y, r.y);
      rect = { x, y, w: Math.max(rect.x + rect.w, r.x + r.w) - x, h: Math.max(rect.y + rect.h, r.y + r.h) - y };
    }
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    found: true,
    status: 'found',
    matchedText: parts.join(' ').replace(/\s+/g, ' ').trim(),
    score,
    rect: rect && { x: round(rect.x), y: round(rect.y), w: round(rect.w), h: round(rect.h) },
    algorithm,
  };
}
