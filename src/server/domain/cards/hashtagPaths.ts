/** Hashtags are stored as full leaf paths (`a/b/c`, no `#`); their ancestors are derived, never stored. */
export const HASHTAG_SEPARATOR = '/';

export interface HashtagPath {
  hashtag: string;
  path: string;
  name: string;
  segments: string[];
  /** Number of segments: 1 = a top-level tag. */
  depth: number;
  /** The ancestor paths, top first (`a`, `a/b` for `a/b/c`). */
  ancestors: string[];
}

export const segmentsOf = (path: string) => path.split(HASHTAG_SEPARATOR).filter((s) => s !== '');

export function hashtagPath(path: string): HashtagPath {
  const segments = segmentsOf(path);
  const clean = segments.join(HASHTAG_SEPARATOR);
  return {
    hashtag: `#${clean}`,
    path: clean,
    name: segments[segments.length - 1] ?? '',
    segments,
    depth: segments.length,
    ancestors: segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join(HASHTAG_SEPARATOR)),
  };
}
