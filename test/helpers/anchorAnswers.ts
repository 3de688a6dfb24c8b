import assert from 'node:assert/strict';

/**
 * An answer recorded by a build before multi-rectangle anchors, compared with
 * today's: every anchor now also carries `rects`, which for an old anchor must
 * be `[rect]`; checked, then left out so the rest compares as before.
 */
export function withoutRects(v: any): any {
  if (Array.isArray(v)) return v.map(withoutRects);
  if (!v || typeof v !== 'object') return v;
  const out: any = {};
  for (const [k, x] of Object.entries(v)) if (k !== 'rects' || !('rect' in v)) out[k] = withoutRects(x);
  if ('rect' in v && 'rects' in v)
    assert.deepEqual(v.rects, v.rect ? [v.rect] : [], 'old anchors read as rects = [rect]');
  return out;
}

/**
 * Fields later builds add to an answer the previous build gave: a located quote that stands on several pages
 * says so (`ambiguous`, `alsoOn`). Only together, and everything the previous build answered stays the same.
 */
export function withoutAdditions(body: any): any {
  if (!body || typeof body !== 'object' || !('alsoOn' in body)) return body;
  const { alsoOn, ambiguous, ...rest } = body;
  assert.equal(ambiguous, true, 'alsoOn comes with ambiguous: true');
  assert.ok(Array.isArray(alsoOn) && alsoOn.length > 0, 'alsoOn lists the other pages');
  return rest;
}
