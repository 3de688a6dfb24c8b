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

/** Every token of a text, in order (folded). Folds the whole text once: per-token folding costs 5× more. */
export function tokenize(text: string): string[] {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return (text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(WORD) as string[] | null) ?? [];
}
