import { cjkQueryTerms, cjkRunTerms, foldCompat, hasCjk, splitCjk } from './cjk';

/**
 * Words as the text index sees them, the way FTS4's unicode61 tokenizer did:
 * runs of letters and digits, lower-cased, accents removed (é → e). CJK runs
 * become character bigrams (cjk.ts).
 */
const WORD = /[\p{L}\p{N}]+/gu;
/** A raw token before folding: combining marks stay inside it, as NFD folding would drop them. */
const RAW_WORD = /[\p{L}\p{N}\p{M}]+/gu;

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
  text = foldCompat(text);
  if (!hasCjk(text)) return (text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(WORD) as string[] | null) ?? [];
  // CJK is not folded (NFD would split Hangul into jamo and strip kana voicing): its runs become bigrams.
  const out: string[] = [];
  for (const [raw] of text.matchAll(RAW_WORD)) {
    for (const part of splitCjk(raw)) {
      if (part.cjk) out.push(...cjkRunTerms(part.text));
      else out.push(...((foldWord(part.text).match(WORD) as string[] | null) ?? []));
    }
  }
  return out;
}

/**
 * What the book text index is asked for one query word: its folded pieces
 * (a Latin word, the bigrams of a CJK run, or a lone CJK character, which
 * matches as a prefix of the bigrams like any query word does).
 */
export function queryTerms(word: string): string[] {
  word = foldCompat(word);
  if (!hasCjk(word)) return [foldWord(word)].filter(Boolean);
  const out: string[] = [];
  for (const part of splitCjk(word)) {
    if (part.cjk) out.push(...cjkQueryTerms(part.text).terms);
    else out.push(...((foldWord(part.text).match(WORD) as string[] | null) ?? []));
  }
  return out;
}
