import * as path from 'node:path';
import type { TextItem } from './pdfTypes';

type TesseractWorker = import('tesseract.js').Worker;

/** Where the English traineddata lives (the @tesseract.js-data/eng package; no download). */
export function tesseractLangPath(): string {
  const pkg = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  return path.join(pkg, '4.0.0_best_int');
}

/** One tesseract.js worker, created on first use, reused, closed with `close()`. */
export class PageOcr {
  private worker?: Promise<TesseractWorker>;

  private get(): Promise<TesseractWorker> {
    this.worker ??= (async () => {
      const { createWorker, OEM } = await import('tesseract.js');
      return createWorker('eng', OEM.LSTM_ONLY, {
        langPath: tesseractLangPath(),
        gzip: true,
        cacheMethod: 'none',
        logger: () => undefined,
        errorHandler: () => undefined,
      });
    })();
    return this.worker;
  }

  /**
   * OCR of a rendered page image. `scale` is the image pixels per page point;
   * returned items are in page points (top-left origin), one per word, with
   * `eol` on each line's last word.
   */
  async recognize(png: Buffer, scale: number): Promise<{ items: TextItem[]; text: string; confidence: number }> {
    const worker = await this.get();
    const { data } = await worker.recognize(png, {}, { text: true, blocks: true });
    const items: TextItem[] = [];
    for (const block of data.blocks ?? []) {
      for (const para of block.paragraphs) {
        for (const line of para.lines) {
          const words = line.words.filter((w) => w.text.trim() !== '');
          const lineH = (line.bbox.y1 - line.bbox.y0) / scale;
          words.forEach((w, i) => {
            const h = (w.bbox.y1 - w.bbox.y0) / scale;
            const r2 = (n: number) => Math.round(n * 100) / 100;
            const item: TextItem = {
              str: w.text,
              x: r2(w.bbox.x0 / scale),
              y: r2(w.bbox.y0 / scale),
              w: r2((w.bbox.x1 - w.bbox.x0) / scale),
              h: r2(h),
              fontHeight: r2(lineH * 0.8),
            };
            if (i === words.length - 1) item.eol = true;
            items.push(item);
          });
        }
      }
    }
    return { items, text: (data.text ?? '').trim(), confidence: data.confidence ?? 0 };
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w).terminate().catch(() => undefined);
  }
}
