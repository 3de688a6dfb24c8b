import * as path from 'node:path';

/**
 * The render font. A bare Debian may have no system fonts at all, so the card
 * renderer registers the Liberation Sans files pdf.js ships (a dependency we
 * already load) under its own family name; system families follow as
 * fallbacks for scripts Liberation lacks. Liberation Sans has Helvetica's
 * metrics, so the PDF renderer's standard Helvetica wraps exactly alike.
 */
export const RENDER_FAMILY = 'StudyBridge Sans';
const STACK = `"${RENDER_FAMILY}", "Liberation Sans", "DejaVu Sans", "Noto Sans", "Noto Sans CJK SC", sans-serif`;

let registered = false;

export async function ensureRenderFonts(): Promise<void> {
  if (registered) return;
  const { GlobalFonts } = await import('@napi-rs/canvas');
  const dir = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts');
  for (const file of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) GlobalFonts.registerFromPath(path.join(dir, file), RENDER_FAMILY);
  registered = true;
}

export interface FontSpec {
  size: number;
  bold: boolean;
}

export const cssFont = (f: FontSpec) => `${f.bold ? 'bold ' : ''}${f.size}px ${STACK}`;
