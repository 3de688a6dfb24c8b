/**
 * Hostile annotated PDFs for the annotation import's memory bounds, written
 * with pdf-lib's low-level objects: a page holding tens of thousands of
 * highlights, and a highlight whose /Contents is megabytes long (as a plain
 * object, or packed in an object stream).
 */
import { PDFDocument, PDFName, PDFString, StandardFonts, type PDFRef } from 'pdf-lib';

/** A one-page PDF with a line of text, for the annotations to mark. */
async function textPage(): Promise<{ doc: PDFDocument }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('Hostile annotations mark this line of text.', { x: 72, y: 700, size: 12, font });
  return { doc };
}

/** A Highlight over the text line (PDF points, bottom-left origin), its /Contents as given. */
function highlight(doc: PDFDocument, contents: PDFString, dx = 0): PDFRef {
  const [x1, y1, x2, y2] = [72 + dx, 696, 300 + dx, 714];
  return doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Highlight',
      Rect: [x1, y1, x2, y2],
      QuadPoints: [x1, y2, x2, y2, x1, y1, x2, y1],
      C: [1, 1, 0],
      F: 4,
      Contents: contents,
    }),
  );
}

/** A PDF of the given objects (object 1 the catalog), numbered in order, with its xref table. */
function pdfOf(objects: string[]): Uint8Array {
  const parts: string[] = ['%PDF-1.7\n'];
  const offsets: number[] = [];
  let at = parts[0].length;
  objects.forEach((o, i) => {
    const text = `${i + 1} 0 obj\n${o}\nendobj\n`;
    offsets.push(at);
    parts.push(text);
    at += text.length;
  });
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const off of offsets) parts.push(`${String(off).padStart(10, '0')} 00000 n \n`);
  parts.push(`trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${at}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

const LINE = 'BT /F1 12 Tf 72 700 Td (Hostile annotations mark this line of text.) Tj ET';

/** A Highlight with a short note of its own (so it would be a card) over x1..x1+228, y1..y1+h. */
const highlightObject = (x1: number, y1: number, h: number, note: string) =>
  `<</Type/Annot/Subtype/Highlight/Rect[${x1} ${y1} ${x1 + 228} ${y1 + h}]/QuadPoints[${x1} ${y1 + h} ${x1 + 228} ${y1 + h} ${x1} ${y1} ${x1 + 228} ${y1}]/C[1 1 0]/F 4/Contents(${note})>>`;

/**
 * One page with `count` highlights over its line of text, each with a short
 * note of its own (so each would be a card). Written as PDF text directly:
 * pdf-lib takes a minute for 50,000 annotations.
 */
export function manyHighlightsPdf(count: number): Uint8Array {
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R/Annots 6 0 R>>',
    '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>',
    `<</Length ${LINE.length}>>stream\n${LINE}\nendstream`,
    `[${Array.from({ length: count }, (_, i) => `${i + 7} 0 R`).join(' ')}]`,
  ];
  for (let i = 0; i < count; i++) objects.push(highlightObject(72 + (i % 50) * 0.01, 696, 18, `note ${i}`));
  return pdfOf(objects);
}

/**
 * `pages` pages of `perPage` highlights each (at most 500: the import reads no
 * more of a page), each its own card: a distinct rectangle (1.5 pt apart, more
 * than the import's 1 pt key) and a note of its own; those over the line of
 * text are excerpts with the note as comment.
 */
export function highlightPagesPdf(pages: number, perPage: number): Uint8Array {
  const fixed = 4;
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    `<</Type/Pages/Kids[${Array.from({ length: pages }, (_, p) => `${fixed + 1 + p * (perPage + 2)} 0 R`).join(' ')}]/Count ${pages}>>`,
    '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>',
    `<</Length ${LINE.length}>>stream\n${LINE}\nendstream`,
  ];
  for (let p = 0; p < pages; p++) {
    const first = objects.length + 1;
    objects.push(
      `<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 3 0 R>>>>/Contents 4 0 R/Annots ${first + 1} 0 R>>`,
      `[${Array.from({ length: perPage }, (_, i) => `${first + 2 + i} 0 R`).join(' ')}]`,
    );
    for (let i = 0; i < perPage; i++) objects.push(highlightObject(72, 20 + i * 1.5, 1.2, `note ${p}.${i}`));
  }
  return pdfOf(objects);
}

/** One highlight whose /Contents is `chars` characters of prose; `objectStreams`: packed in an object stream. */
export async function hugeContentsPdf(chars: number, objectStreams: boolean): Promise<Uint8Array> {
  const { doc } = await textPage();
  const text = 'lorem ipsum '.repeat(Math.ceil(chars / 12)).slice(0, chars);
  doc.getPage(0).node.set(PDFName.of('Annots'), doc.context.obj([highlight(doc, PDFString.of(text))]));
  return doc.save({ useObjectStreams: objectStreams });
}
