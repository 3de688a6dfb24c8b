import type { TextItem } from '../pdf/pdfTypes';
import { foldItems, type FoldedText } from './fold';

/**
 * Tokens of folded text, the matcher's unit. A token is a run of key chars
 * (letters and digits) that stood together in one text item; whitespace,
 * punctuation and hyphens separate tokens, soft hyphens, zero-width
 * characters and combining marks do not. A Chinese, Japanese or Korean
 * character is a token of its own, so a CJK line break or the absence of
 * spaces never matters.
 */

export interface KeyToken {
  /** Folded key of the token. */
  key: string;
  /** Key range [start, end) in the folded text it came from. */
  start: number;
  end: number;
  /** Weight in the alignment score: key length capped at 10 (a long identifier is one word), a CJK character 2. */
  weight: number;
  /** Page tokens: LINE_START | LINE_END when the token begins or ends its line. */
  edge: number;
}

export const LINE_START = 1;
export const LINE_END = 2;
const MAX_WEIGHT = 10;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const cjkCache = new Map<number, boolean>();

/** True for a Han, kana or Hangul key char code. */
export function isCjkCode(code: number): boolean {
  if (code < 0x2e80) return false;
  let v = cjkCache.get(code);
  if (v === undefined) cjkCache.set(code, (v = CJK.test(String.fromCharCode(code))));
  return v;
}

/** Characters between two key chars of one item that do not end a token. */
const JOINER = /^[\p{M}\u00ad\u200b-\u200d\u2060\ufeff]*$/u;

/** Tokens of key range [from, to) of folded items (a page, or a span of a bundle's pages). */
export function keyTokens(items: readonly TextItem[], f: FoldedText, from = 0, to = f.length): KeyToken[] {
  const out: KeyToken[] = [];
  let start = from;
  const close = (end: number) => {
    if (end <= start) return;
    let key = '';
    let weight = 0;
    for (let k = start; k < end; k++) {
      key += String.fromCharCode(f.codes[k]);
      weight += isCjkCode(f.codes[k]) ? 2 : 1;
    }
    out.push({ key, start, end, weight: Math.min(weight, MAX_WEIGHT), edge: 0 });
    start = end;
  };
  for (let k = from + 1; k <= to; k++) {
    if (k === to) {
      close(k);
      break;
    }
    if (isCjkCode(f.codes[k]) || isCjkCode(f.codes[k - 1]) || f.itemOf[k] !== f.itemOf[k - 1]) {
      close(k);
      continue;
    }
    const a = f.offsetOf[k - 1];
    const b = f.offsetOf[k];
    if (b - a <= 1) continue; // same source char (a ligature) or the next one
    const s = items[f.itemOf[k]].str;
    const first = s.codePointAt(a)! > 0xffff ? a + 2 : a + 1;
    if (!JOINER.test(s.slice(first, b))) close(k);
  }
  markLineEdges(items, f, out);
  return out;
}

/** A line break lies between items a < b: an end-of-line flag, or b starts lower or higher than a by half a line. */
function lineBreakBetween(items: readonly TextItem[], a: number, b: number): boolean {
  if (a === b) return false;
  for (let k = a; k < b; k++) if (items[k].eol) return true;
  const x = items[a];
  const y = items[b];
  return Math.abs(y.y - x.y) > Math.max(x.h, y.h, 1) / 2;
}

function markLineEdges(items: readonly TextItem[], f: FoldedText, tokens: KeyToken[]): void {
  for (let t = 0; t < tokens.length; t++) {
    const item = f.itemOf[tokens[t].start];
    if (t === 0 || lineBreakBetween(items, f.itemOf[tokens[t - 1].start], item)) tokens[t].edge |= LINE_START;
    if (t === tokens.length - 1 || lineBreakBetween(items, item, f.itemOf[tokens[t + 1].start]))
      tokens[t].edge |= LINE_END;
  }
}

const ASCII_WORD = /[A-Za-z0-9]+/g;
/** ASCII beside the common Han ideographs (U+4E00–U+9FEF: NFKC leaves them as they are) and 、。: most cards of a Chinese library. */
const ASCII_HAN = /^[\x00-\x7f\u3001\u3002\u4e00-\u9fef]*$/;

/** A free text's tokens, with offsets into the text (for search tokenizers and quotes). */
export function tokenize(text: string): { key: string; from: number; to: number }[] {
  // Plain ASCII (most Latin pages): the same tokens, letters and digits lower-cased, at a third of the cost.
  if (/^[\x00-\x7f]*$/.test(text))
    return Array.from(text.matchAll(ASCII_WORD), (m) => ({
      key: m[0].toLowerCase(),
      from: m.index,
      to: m.index + m[0].length,
    }));
  // The same with Han characters, a token each (a fifth of the cost: card search makes a snippet of every hit it lists).
  if (ASCII_HAN.test(text)) return asciiHanTokens(text);
  return foldedTokens(text);
}

/** Tokens of a text ASCII_HAN accepts: runs of ASCII letters and digits (lower-cased), and each Han character; a char-code loop (match objects cost more than the tokens). */
function asciiHanTokens(text: string): { key: string; from: number; to: number }[] {
  const out: { key: string; from: number; to: number }[] = [];
  let from = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (word) {
      if (from < 0) from = i;
      continue;
    }
    if (from >= 0) out.push({ key: text.slice(from, i).toLowerCase(), from, to: i });
    from = -1;
    if (c >= 0x4e00) out.push({ key: text[i], from: i, to: i + 1 });
  }
  return out;
}

/** tokenize() through the whole folding, for any text (the shortcuts above give the same tokens). */
export function foldedTokens(text: string): { key: string; from: number; to: number }[] {
  const items: TextItem[] = [{ str: text, x: 0, y: 0, w: 0, h: 0, fontHeight: 0 }];
  const f = foldItems(items);
  return keyTokens(items, f).map((t) => {
    const last = f.offsetOf[t.end - 1];
    return { key: t.key, from: f.offsetOf[t.start], to: last + (text.codePointAt(last)! > 0xffff ? 2 : 1) };
  });
}

/** A quote's tokens (keys and weights only). */
export function quoteTokens(text: string): KeyToken[] {
  const items: TextItem[] = [{ str: text, x: 0, y: 0, w: 0, h: 0, fontHeight: 0 }];
  return keyTokens(items, foldItems(items));
}
