import type { TextItem } from '../pdf/pdfTypes';

/**
 * The one folding of text for matching, shared by locate, bundle anchoring
 * and card creation with an excerpt (see docs/TEXT-MATCHING.md).
 *
 * Text is reduced to a key of letters and digits only: NFKC (ligatures,
 * full-width forms and Kangxi radicals unfold), diacritics removed (but not
 * the kana voicing marks: ド is not ト), lower case. Everything else
 * (whitespace, line breaks, line-end hyphens, soft hyphens, quotes, dashes,
 * punctuation) is dropped, so the key is blind to how an extractor laid the
 * words out. Folded page text keeps, for every key character, the item it
 * came from and its offset in that item's string, so a match maps back to
 * the page.
 */

const foldCache = new Map<string, string>();

/** Combining marks but the kana (semi-)voicing marks, which NFKC puts back on their kana. */
const DIACRITIC = /(?![\u3099\u309a])\p{M}/gu;

/** Letters and digits of one character after NFKC, lower case and diacritics removed ('' for the rest). */
export function foldChar(c: string): string {
  let f = foldCache.get(c);
  if (f === undefined) {
    f = c
      .normalize('NFKD')
      .replace(DIACRITIC, '')
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, '');
    if (foldCache.size < 20000) foldCache.set(c, f);
  }
  return f;
}

/** The key of a free text (a quote, an excerpt). */
export function foldKey(text: string): string {
  let out = '';
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code < 128) {
      // ASCII fast path, as appendItems: digits and letters, lower-cased.
      if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122)) out += text[k];
      else if (code >= 65 && code <= 90) out += String.fromCharCode(code + 32);
      continue;
    }
    const pair = code >= 0xd800 && code <= 0xdbff && k + 1 < text.length;
    out += foldChar(pair ? text.slice(k, k + 2) : text[k]);
    if (pair) k++;
  }
  return out;
}

/** Folded page text: the key as char codes, and where each key char came from. */
export interface FoldedText {
  readonly codes: Uint16Array;
  /** Item index (within its page) of each key char. */
  readonly itemOf: Int32Array;
  /** Offset of each key char inside its item's string (the first code unit of the source character). */
  readonly offsetOf: Int32Array;
  readonly length: number;
}

/** Growable folded text; pages are appended one after the other. */
export class FoldBuffer implements FoldedText {
  codes: Uint16Array;
  itemOf: Int32Array;
  offsetOf: Int32Array;
  length = 0;

  /** `capacity`: key chars expected (it grows past them); a short text (a card, a query) needs no 4,096. */
  constructor(capacity = 1 << 12) {
    this.codes = new Uint16Array(capacity);
    this.itemOf = new Int32Array(capacity);
    this.offsetOf = new Int32Array(capacity);
  }

  private push(code: number, item: number, offset: number): void {
    if (this.length === this.codes.length) {
      const grow = <T extends Uint16Array | Int32Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      this.codes = grow(this.codes);
      this.itemOf = grow(this.itemOf);
      this.offsetOf = grow(this.offsetOf);
    }
    this.codes[this.length] = code;
    this.itemOf[this.length] = item;
    this.offsetOf[this.length++] = offset;
  }

  /** Appends the folded text of a page's items. */
  appendItems(items: readonly TextItem[]): void {
    for (let idx = 0; idx < items.length; idx++) {
      const s = items[idx].str;
      for (let k = 0; k < s.length; k++) {
        const code = s.charCodeAt(k);
        if (code < 128) {
          // ASCII fast path: digits and letters, lower-cased.
          if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122)) this.push(code, idx, k);
          else if (code >= 65 && code <= 90) this.push(code + 32, idx, k);
          continue;
        }
        // A surrogate pair is one character (maths italic letters fold to plain ones).
        const pair = code >= 0xd800 && code <= 0xdbff && k + 1 < s.length;
        const f = foldChar(pair ? s.slice(k, k + 2) : s[k]);
        for (let j = 0; j < f.length; j++) this.push(f.charCodeAt(j), idx, k);
        if (pair) k++;
      }
    }
  }

  /** The used part, trimmed to its length. */
  done(): FoldedText {
    return {
      codes: this.codes.subarray(0, this.length),
      itemOf: this.itemOf.subarray(0, this.length),
      offsetOf: this.offsetOf.subarray(0, this.length),
      length: this.length,
    };
  }
}

/** Folds one page's items. */
export function foldItems(items: readonly TextItem[]): FoldedText {
  let chars = 0;
  for (const i of items) chars += i.str.length;
  const b = new FoldBuffer(Math.max(16, chars + (chars >> 3)));
  b.appendItems(items);
  return b.done();
}

/** The key of folded text as a string (for indexOf / startsWith). */
export function keyString(f: FoldedText): string {
  let key = '';
  for (let i = 0; i < f.length; i += 8192)
    key += String.fromCharCode.apply(null, Array.from(f.codes.subarray(i, Math.min(f.length, i + 8192))));
  return key;
}
