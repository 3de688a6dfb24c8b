import type { TextItem } from '../pdf/pdfTypes';

/**
 * The page's characters beside a match that the quote has too. The key
 * holds letters and digits only, so a quote's opening bracket, closing
 * punctuation, or a bullet or operator standing as a word of its own
 * ("– pJ", "&&") is not in the match; anchor rectangles still cover them,
 * as the quote includes them. Walked in content order, across spaces, line
 * breaks and items, character by character, stopping at the first one the
 * page does not have.
 */

/** Part [from, to) of an item's string. */
export interface ItemRun {
  item: number;
  from: number;
  to: number;
}

const isKeyChar = (c: string) => /[\p{L}\p{N}]/u.test(c);
const isSpace = (c: string) => /\s/u.test(c);
const same = (a: string, b: string) => a === b || a.normalize('NFKC') === b.normalize('NFKC');

/** The quote's characters (no spaces) before its first and after its last letter or digit. */
export function quoteEnds(quote: string | undefined): { head: string[]; tail: string[] } {
  const cs = [...(quote ?? '').trim()];
  const first = cs.findIndex(isKeyChar);
  if (first < 0) return { head: [], tail: [] };
  let last = cs.length - 1;
  while (!isKeyChar(cs[last])) last--;
  const keep = (xs: string[]) => xs.filter((c) => !isSpace(c));
  return { head: keep(cs.slice(0, first)), tail: keep(cs.slice(last + 1)) };
}

function pushRun(runs: ItemRun[], item: number, from: number, to: number): void {
  const prev = runs[runs.length - 1];
  if (prev && prev.item === item && (prev.to === from || prev.from === to)) {
    prev.from = Math.min(prev.from, from);
    prev.to = Math.max(prev.to, to);
  } else runs.push({ item, from, to });
}

/** Runs of page characters from (item, at) onwards that are `want`, in order (spaces and item ends skipped). */
export function walkAfter(items: readonly TextItem[], item: number, at: number, want: readonly string[]): ItemRun[] {
  const runs: ItemRun[] = [];
  let i = item;
  let k = at;
  for (const c of want) {
    while (i < items.length && (k >= items[i].str.length || isSpace(items[i].str[k]))) {
      if (k >= items[i].str.length) [i, k] = [i + 1, 0];
      else k++;
    }
    if (i >= items.length) break;
    const ch = String.fromCodePoint(items[i].str.codePointAt(k)!);
    if (!same(ch, c)) break;
    pushRun(runs, i, k, k + ch.length);
    k += ch.length;
  }
  return runs;
}

/** Runs of page characters before (item, at) that are `want` read backwards (its last first), in page order. */
export function walkBefore(items: readonly TextItem[], item: number, at: number, want: readonly string[]): ItemRun[] {
  const runs: ItemRun[] = [];
  let i = item;
  let k = at - 1;
  for (let n = want.length - 1; n >= 0; n--) {
    while (i >= 0 && (k < 0 || isSpace(items[i].str[k]))) {
      if (k < 0) {
        i--;
        k = i >= 0 ? items[i].str.length - 1 : -1;
      } else k--;
    }
    if (i < 0) break;
    let from = k;
    if (from > 0 && /[\udc00-\udfff]/.test(items[i].str[from])) from--;
    const ch = items[i].str.slice(from, k + 1);
    if (!same(ch, want[n])) break;
    pushRun(runs, i, from, k + 1);
    k = from - 1;
  }
  return runs.reverse();
}
