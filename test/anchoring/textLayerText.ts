/**
 * A page's text as the reader's pdf.js text layer gives it to a person who
 * selects and copies: every text item in content order (whitespace items
 * included), a line break after each item pdf.js marks as ending a line.
 * Our extraction keeps the same order but drops whitespace items and joins
 * lines its own way, so quotes copied from the reader are a second order to
 * anchor, beside pdftotext's reading order.
 */
import { readFileSync } from 'node:fs';
import { closePdf, openPdf } from '../../src/server/ground/pdf/pdfjsLoader';

/** Page texts (index 0 is page 1) of the given pages of a PDF file. */
export async function textLayerPages(file: string, pages: readonly number[]): Promise<Map<number, string>> {
  const bytes = readFileSync(file);
  const doc = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), true);
  const out = new Map<number, string>();
  try {
    for (const n of pages) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const it of content.items) if ('str' in it) text += it.str + (it.hasEOL ? '\n' : '');
      out.set(n, text);
      page.cleanup();
    }
  } finally {
    await closePdf(doc);
  }
  return out;
}
