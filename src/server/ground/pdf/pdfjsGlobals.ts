import { canvasIfLoadable } from './nativeCanvas';

/**
 * Gives pdf.js the browser globals it takes from the native canvas, before it
 * loads. pdf.js only polyfills them itself from `@napi-rs/canvas`; where that
 * does not load, its first line (`new DOMMatrix()` at module level) throws
 * and every PDF would read as corrupt.
 *
 * Measured with each global trapped while reading text, outlines, metadata,
 * annotations and operator lists of the corpus: text-only work constructs
 * `DOMMatrix` (at load, and `new DOMMatrix().scaleSelf().translateSelf()`
 * with `a`–`f` for TeX's Type3 bitmap glyphs) and only tests that `Path2D`
 * and `ImageData` exist; those two are drawn with, so they stay the canvas's.
 * The fallback is @thednp/dommatrix, a maintained pure-JS DOMMatrix (the
 * methods pdf.js's drawing code also uses, invertSelf and preMultiplySelf,
 * are not needed: nothing draws without the canvas).
 */
export function provideCanvasGlobals(): void {
  const g = globalThis as Record<string, unknown>;
  if (g.DOMMatrix) return;
  const canvas = canvasIfLoadable();
  if (canvas) {
    g.DOMMatrix = canvas.DOMMatrix;
    g.ImageData ??= canvas.ImageData;
    g.Path2D ??= canvas.Path2D;
    return;
  }
  // Its CommonJS build exports the class itself (the package's types describe only its ES module).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  g.DOMMatrix = require('@thednp/dommatrix') as unknown;
}
