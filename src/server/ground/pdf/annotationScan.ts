import { pdfLib } from './pdfLib';

/** What a quick pdf-lib read of every page's /Annots says, before pdf.js reads a page's annotations. */
export interface AnnotationScan {
  /** Pages holding a note without the Print flag: only pdf.js's display intent lists it. */
  unprinted: Set<number>;
  /** Pages pdf.js should not read, and why: too many annotations, or a note too long to parse safely. */
  refused: Map<number, string>;
}

const PRINT = 4;
const HIDDEN = 2;
/** Not notes a person wrote: links, form fields, and the popups that only show their parent's /Contents. */
const NOT_NOTES = new Set(['Link', 'Widget', 'Popup']);
/** Characters kept of a string while scanning: the scan needs only /Contents' length. */
const KEPT = 64;

const fmt = (n: number) => n.toLocaleString('en-US');

type Parser = {
  bytes: { done(): boolean; next(): number; peek(): number; position(): unknown; assertNext(b: number): void };
};

/** pdf-lib's literal-string parse, keeping KEPT characters: a 20 MB string costs a scan, not ~700 MB of concatenation. */
function cappedString(this: Parser) {
  const { PDFString } = pdfLib();
  let nesting = 0;
  let escaped = false;
  let kept = '';
  let length = -1; // the opening parenthesis is not the string's
  while (!this.bytes.done()) {
    const byte = this.bytes.next();
    if (!escaped && byte === 0x28) nesting++;
    if (!escaped && byte === 0x29) nesting--;
    escaped = byte === 0x5c ? !escaped : false;
    if (nesting === 0) return Object.assign(PDFString.of(kept), { scannedLength: length });
    if (length >= 0 && kept.length < KEPT) kept += String.fromCharCode(byte);
    length++;
  }
  throw new Error('unbalanced string');
}

/** The same for <hex> strings (UTF-16 notes are usually written so): two digits a character, FEFF BOM and all. */
function cappedHexString(this: Parser) {
  const { PDFHexString } = pdfLib();
  this.bytes.assertNext(0x3c);
  let digits = 0;
  while (!this.bytes.done() && this.bytes.peek() !== 0x3e) {
    this.bytes.next();
    digits++;
  }
  this.bytes.assertNext(0x3e);
  return Object.assign(PDFHexString.of(''), { scannedLength: Math.ceil(digits / 2) });
}

/** The entries of an annotation the scan reads; the rest (quads, appearance, dates…) are dropped as parsed. */
const SCANNED_KEYS = new Set(['Type', 'Subtype', 'Contents', 'F']);

type DictLike = { keys(): { decodeText(): string }[]; delete(key: unknown): boolean; has(key: unknown): boolean };

/**
 * pdf-lib's dictionary parse, keeping of an annotation (a dict with /Rect
 * and /Subtype) only what the scan reads: pdf-lib parses every object of the
 * file up front, and 50,000 highlights kept whole (quads, colours, rects as
 * objects) cost it ~100 MB of heap, the worker's RSS twice that.
 */
function leanDict(parseDict: () => DictLike) {
  const { PDFName } = pdfLib();
  const [rect, subtype] = [PDFName.of('Rect'), PDFName.of('Subtype')];
  return function (this: unknown) {
    const dict = parseDict.call(this);
    if (dict.has(rect) && dict.has(subtype))
      for (const key of dict.keys()) if (!SCANNED_KEYS.has(key.decodeText())) dict.delete(key);
    return dict;
  };
}

/** Runs `fn` with pdf-lib's parses made lean (above); the worker runs one task at a time, so no other load sees them. */
async function withLeanParse<T>(fn: () => Promise<T>): Promise<T> {
  const proto = pdfLib().PDFObjectParser.prototype as unknown as Record<string, unknown>;
  const [literal, hex, dict] = [proto.parseString, proto.parseHexString, proto.parseDict];
  proto.parseString = cappedString;
  proto.parseHexString = cappedHexString;
  proto.parseDict = leanDict(dict as () => DictLike);
  try {
    return await fn();
  } finally {
    proto.parseString = literal;
    proto.parseHexString = hex;
    proto.parseDict = dict;
  }
}

/**
 * Every page's /Annots, read with pdf-lib (strings capped, see above):
 * which pages hold unprinted notes, and which pages pdf.js must not read,
 * since pdf.js parses all of a page's annotations at once, whole: more than
 * `maxPerPage` of them, or a /Contents of megabytes, costs it hundreds of
 * MB. A /Contents is refused here past 2 × `maxChars` bytes (more than
 * `maxChars` characters even as UTF-16); a shorter one over `maxChars`
 * characters is skipped after pdf.js reads it. Undefined when pdf-lib
 * cannot read the file.
 */
export async function scanAnnotations(
  bytes: Uint8Array,
  maxPerPage: number,
  maxChars: number,
): Promise<AnnotationScan | undefined> {
  try {
    const { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber } = pdfLib();
    const doc = await withLeanParse(() =>
      PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false }),
    );
    const scan: AnnotationScan = { unprinted: new Set(), refused: new Map() };
    doc.getPages().forEach((page, i) => {
      const annots = page.node.lookup(PDFName.of('Annots'));
      if (!(annots instanceof PDFArray)) return;
      if (annots.size() > maxPerPage) {
        scan.refused.set(
          i + 1,
          `The page has ${fmt(annots.size())} annotations; at most ${fmt(maxPerPage)} a page are imported, so this page's were not read.`,
        );
        return;
      }
      for (let k = 0; k < annots.size(); k++) {
        const a = annots.lookup(k);
        if (!(a instanceof PDFDict)) continue;
        const sub = a.lookup(PDFName.of('Subtype'));
        if (sub instanceof PDFName && NOT_NOTES.has(sub.decodeText())) continue;
        const length = (a.lookup(PDFName.of('Contents')) as { scannedLength?: number } | undefined)?.scannedLength ?? 0;
        if (length > 2 * maxChars + 2)
          scan.refused.set(
            i + 1,
            `A ${sub instanceof PDFName ? sub.decodeText() : 'note'}'s note (/Contents) is ${fmt(length)} bytes; a card holds at most ${fmt(maxChars)} characters, so this page's annotations were not read.`,
          );
        const f = a.lookup(PDFName.of('F'));
        const flags = f instanceof PDFNumber ? f.asNumber() : 0;
        if (!(flags & PRINT) && !(flags & HIDDEN)) scan.unprinted.add(i + 1);
      }
    });
    return scan;
  } catch {
    return undefined;
  }
}
