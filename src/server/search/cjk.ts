/**
 * Chinese, Japanese and Korean for the search indexes. These scripts write
 * words without spaces between them, so a word-splitting tokenizer sees a
 * whole clause as one token and `光合作用` inside `植物的光合作用` is never
 * found. Both indexes (the book text index and the card FTS4 index) hold a
 * CJK run as its overlapping character bigrams plus its last character, and
 * a query asks for the bigrams of its CJK words: any substring of two or
 * more characters is found, and a single character is found as a prefix of
 * the bigrams (the last character of a run has no bigram, hence the extra
 * unigram). Ranking stays bm25 over these terms.
 *
 * Bigrams rather than dictionary words (Intl.Segmenter): segmentation splits
 * `叶绿体` or `光合作用` differently depending on the text around it, so the
 * word a student types is often not a token of the page; bigrams recall
 * every substring, at about one term per character.
 */

/**
 * A letter or digit of Han (with 々 〇 and the extension planes), kana (with
 * ー) or Hangul. Script extensions also cover CJK punctuation (。、「), which
 * the lookahead leaves out; full-width Latin is not CJK here.
 */
const ONE = String.raw`(?=[\p{L}\p{N}])[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]`;
export const CJK_CHAR = new RegExp(ONE, 'u');
const CJK_RUN = new RegExp(`(?:${ONE})+`, 'gu');
/** The rest of a token: its letters, digits and combining marks that are not CJK. */
const OTHER_RUN = new RegExp(`(?:(?!${ONE})[\\p{L}\\p{N}\\p{M}])+`, 'gu');

export const hasCjk = (s: string) => CJK_CHAR.test(s);

/**
 * Kangxi and supplementary radicals, compatibility ideographs, full- and
 * half-width forms → their ordinary characters (NFKC of those only). PDF
 * fonts often map 用 to the radical ⽤ (U+2F64, not even a letter), so page
 * text reads 光合作⽤ where the student types 光合作用.
 */
const COMPAT = /[\u2E80-\u2FDF\uF900-\uFAFF\uFF00-\uFFEF]|\uD87E[\uDC00-\uDE1F]/g;
export const foldCompat = (s: string) => s.replace(COMPAT, (c) => c.normalize('NFKC'));

/**
 * The index terms of one CJK run (NFC, so Hangul and kana voicing stay composed):
 * its bigrams in order, then its last character.
 */
export function cjkRunTerms(run: string): string[] {
  const chars = Array.from(run.normalize('NFC'));
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  if (chars.length) out.push(chars[chars.length - 1]);
  return out;
}

/**
 * What a query asks for one CJK run: its bigrams (all must be there), or the
 * single character, to be read as a prefix (it starts a bigram, or ends a run).
 */
export function cjkQueryTerms(run: string): { terms: string[]; single: boolean } {
  const chars = Array.from(run.normalize('NFC'));
  if (chars.length === 1) return { terms: chars, single: true };
  const terms: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i] + chars[i + 1]);
  return { terms, single: false };
}

/** A token split into its CJK runs and its other pieces, in order. */
export function splitCjk(token: string): Array<{ text: string; cjk: boolean }> {
  const parts: Array<{ text: string; at: number; cjk: boolean }> = [];
  for (const m of token.matchAll(CJK_RUN)) parts.push({ text: m[0], at: m.index, cjk: true });
  for (const m of token.matchAll(OTHER_RUN)) parts.push({ text: m[0], at: m.index, cjk: false });
  return parts.sort((a, b) => a.at - b.at).map(({ text, cjk }) => ({ text, cjk }));
}

/** Every CJK run of a text, as index terms, space-separated (what the card index is fed besides the text). */
export function cjkIndexTail(text: string): string {
  const terms: string[] = [];
  for (const m of text.matchAll(CJK_RUN)) terms.push(...cjkRunTerms(m[0]));
  return terms.join(' ');
}
