/**
 * Anki's wildcards without a backtracking regex: `*` any run (also none), one
 * wildcard character (`_` in searches, `?` in media names) exactly one
 * character, everything else literal; case-insensitive; the whole value.
 *
 * A pattern is its literal segments between the stars. The first is anchored
 * at the start, the last at the end, and each one between is placed at its
 * earliest place after the one before: an earlier place never leaves less room
 * for the rest, so when this placement fails no other one succeeds. The work
 * is at most (value length × pattern length), whatever the stars, where a
 * regex of `*a*a*…*b` tries every way of splitting the value.
 */

export type GlobTest = (value: string) => boolean;

const fold = (s: string) => s.toLowerCase();

/** `segment` (already folded) at `at` in `text` (folded), `one` matching any single character. */
function segmentAt(text: string, at: number, segment: string, one: string): boolean {
  for (let j = 0; j < segment.length; j++) {
    const c = segment[j];
    if (c !== one && c !== text[at + j]) return false;
  }
  return true;
}

/** The earliest index ≥ `from` where `segment` fits before `limit`, or -1. */
function findSegment(text: string, from: number, limit: number, segment: string, one: string): number {
  if (!segment.includes(one)) {
    const i = text.indexOf(segment, from);
    return i >= 0 && i + segment.length <= limit ? i : -1;
  }
  for (let i = from; i + segment.length <= limit; i++) if (segmentAt(text, i, segment, one)) return i;
  return -1;
}

/** Compiles `pattern`; `one` is the single-character wildcard. */
export function compileGlob(pattern: string, one = '_'): GlobTest {
  const segments = fold(pattern).split('*');
  const first = segments[0];
  if (segments.length === 1)
    return (value) => {
      const text = fold(value);
      return text.length === first.length && segmentAt(text, 0, first, one);
    };
  const last = segments[segments.length - 1];
  const middle = segments.slice(1, -1).filter((s) => s !== '');
  return (value) => {
    const text = fold(value);
    const tail = text.length - last.length;
    if (tail < first.length || !segmentAt(text, 0, first, one) || !segmentAt(text, tail, last, one)) return false;
    let pos = first.length;
    for (const segment of middle) {
      const at = findSegment(text, pos, tail, segment, one);
      if (at < 0) return false;
      pos = at + segment.length;
    }
    return true;
  };
}

/** Whether `pattern` occurs anywhere in a value (Anki's plain-text terms). */
export const containsGlob = (pattern: string): GlobTest => compileGlob(`*${pattern}*`);
