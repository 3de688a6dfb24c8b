import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';
import { HASHTAG_SEPARATOR, segmentsOf } from './hashtagPaths';

interface Entry {
  path: string;
  segments: string[];
  stored: boolean;
  direct: Set<string>;
  all: Set<string>;
}

const compareSegments = (a: string[], b: string[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i].toLowerCase();
    const y = b[i].toLowerCase();
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
};

/**
 * GET /study-sets/{id}/hashtags over the set's visible cards. Stored values
 * are full leaf paths; each ancestor path is listed too, derived:true unless
 * it is also stored (derived paths are computed here and never written).
 * Paths compare case-insensitively and keep the first spelling met.
 * cardCount counts distinct cards tagged at the path or below it.
 */
export function readSetHashtags(db: Db, topicid: string) {
  assertStudySet(db, topicid);
  const rows = db.all<{ noteid: string; path: string }>(
    'SELECT h.noteid, h.path FROM note_hashtags h JOIN notes n ON n.noteid = h.noteid WHERE n.topicid = ? AND n.hidden = 0 ORDER BY h.rowid',
    [topicid],
  );
  const entries = new Map<string, Entry>();
  for (const r of rows) {
    const segs = segmentsOf(r.path);
    for (let k = 1; k <= segs.length; k++) {
      const prefix = segs.slice(0, k);
      const key = prefix.join(HASHTAG_SEPARATOR).toLowerCase();
      let e = entries.get(key);
      if (!e)
        entries.set(
          key,
          (e = {
            path: prefix.join(HASHTAG_SEPARATOR),
            segments: prefix,
            stored: false,
            direct: new Set(),
            all: new Set(),
          }),
        );
      e.all.add(r.noteid);
      if (k === segs.length) {
        e.stored = true;
        e.direct.add(r.noteid);
      }
    }
  }
  const hashtags = [...entries.values()]
    .sort((a, b) => compareSegments(a.segments, b.segments))
    .map((e) => ({
      path: e.path,
      hashtag: `#${e.path}`,
      name: e.segments[e.segments.length - 1],
      depth: e.segments.length,
      directCardCount: e.direct.size,
      cardCount: e.all.size,
      derived: !e.stored,
    }));
  return { topicid, hashtags, count: hashtags.length };
}
