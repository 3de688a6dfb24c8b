/**
 * Words as the text index sees them, the way FTS4's unicode61 tokenizer did:
 * runs of letters and digits, lower-cased, accents removed (é → e).
 */
const WORD = /[\p{L}\p{N}]+/gu;

/** Accents off and lower case; the fast path skips NFD for plain ASCII. */
export function foldWord(w: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(w)) return w.toLowerCase();
  return w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Every token of a text, in order (folded). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const w = foldWord(m[0]);
    // Folding can leave nothing or split nothing; only words with letters or digits count.
    if (w) out.push(w);
  }
  return out;
}
