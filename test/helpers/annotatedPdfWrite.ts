/**
 * PDFs with real annotations for the annotation tests, written with pdf-lib's
 * low-level objects (not the bridge's writer). pdf-lib only, so the extension
 * suite can bundle it (the pdf.js readings are in annotatedPdf.ts).
 */
import { PDFDocument, PDFHexString, PDFName, type PDFRef } from 'pdf-lib';

/** A box in top-left page points (the bridge's coordinates). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type AnnotSpec =
  /** `noPrint`: no /F (flags 0, as some writers leave it): shown on screen, not printed. */
  | {
      kind: 'Highlight' | 'Underline' | 'Squiggly' | 'StrikeOut';
      quads: Box[];
      color: [number, number, number];
      contents?: string;
      popup?: boolean;
      noPrint?: boolean;
    }
  | { kind: 'FreeText' | 'Text'; rect: Box; contents: string; color?: [number, number, number] }
  | { kind: 'Ink'; strokes: Array<Array<[number, number]>>; color: [number, number, number] };

/** A copy of `source` with the annotations added to page `pageNo` (unrotated, origin 0,0). */
export async function withAnnotations(
  source: Uint8Array,
  pageNo: number,
  specs: readonly AnnotSpec[],
): Promise<Uint8Array> {
  return withAnnotationsOnPages(source, new Map([[pageNo, specs]]));
}

/** A copy of `source` with annotations added to several pages. */
export async function withAnnotationsOnPages(
  source: Uint8Array,
  byPage: ReadonlyMap<number, readonly AnnotSpec[]>,
): Promise<Uint8Array> {
  const doc = await PDFDocument.load(source, { updateMetadata: false });
  for (const [pageNo, specs] of byPage) annotatePage(doc, pageNo, specs);
  return doc.save();
}

function annotatePage(doc: PDFDocument, pageNo: number, specs: readonly AnnotSpec[]): void {
  const page = doc.getPage(pageNo - 1);
  const top = page.getMediaBox().height + page.getMediaBox().y;
  const flip = (b: Box) => [b.x, top - b.y - b.h, b.x + b.w, top - b.y];
  const refs: PDFRef[] = [];
  for (const s of specs) {
    if ('rect' in s) {
      const dict: Record<string, unknown> = {
        Type: 'Annot',
        Subtype: s.kind,
        Rect: flip(s.rect),
        Contents: PDFHexString.fromText(s.contents),
        F: 4,
      };
      if (s.kind === 'FreeText') dict.DA = PDFHexString.fromText('/Helv 10 Tf 0 g');
      if (s.color) dict.C = s.color;
      refs.push(doc.context.register(doc.context.obj(dict as never)));
      continue;
    }
    if ('strokes' in s) {
      const pts = s.strokes.flat();
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => top - p[1]);
      const ink = s.strokes.map((st) => st.flatMap(([x, y]) => [x, top - y]));
      refs.push(
        doc.context.register(
          doc.context.obj({
            Type: 'Annot',
            Subtype: 'Ink',
            Rect: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
            InkList: ink,
            C: s.color,
            F: 4,
          }),
        ),
      );
      continue;
    }
    // QuadPoints as Acrobat writes them: top-left, top-right, bottom-left, bottom-right.
    const quadPoints = s.quads.flatMap((q) => [
      q.x,
      top - q.y,
      q.x + q.w,
      top - q.y,
      q.x,
      top - q.y - q.h,
      q.x + q.w,
      top - q.y - q.h,
    ]);
    const xs = s.quads.flatMap((q) => [q.x, q.x + q.w]);
    const ys = s.quads.flatMap((q) => [top - q.y, top - q.y - q.h]);
    const rect = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    const dict = doc.context.obj({
      Type: 'Annot',
      Subtype: s.kind,
      Rect: rect,
      QuadPoints: quadPoints,
      C: s.color,
      T: PDFHexString.fromText('A. Reader'),
    });
    if (!s.noPrint) dict.set(PDFName.of('F'), doc.context.obj(4));
    if (s.contents) dict.set(PDFName.of('Contents'), PDFHexString.fromText(s.contents));
    const ref = doc.context.register(dict);
    refs.push(ref);
    if (s.popup) {
      const popup = doc.context.register(
        doc.context.obj({
          Type: 'Annot',
          Subtype: 'Popup',
          Rect: [rect[2] + 10, rect[1], rect[2] + 150, rect[1] + 80],
          Parent: ref,
          Open: false,
        }),
      );
      dict.set(PDFName.of('Popup'), popup);
      refs.push(popup);
    }
  }
  page.node.set(PDFName.of('Annots'), doc.context.obj(refs));
}
