import * as path from 'node:path';
import { pdfJsAssetDir } from '../../ground/pdf/pdfjsLoader';
import { cjkFontFile, needsCjkFont, NO_CJK_FONT_WARNING } from './cjkFontFile';
import { nativeCanvas } from '../../ground/pdf/nativeCanvas';

/**
 * The render font. A bare Debian may have no system fonts at all, so the card
 * renderer registers the Liberation Sans files pdf.js ships (a dependency we
 * already load) under its own family name; system families follow as
 * fallbacks for scripts Liberation lacks. Liberation Sans has Helvetica's
 * metrics, so the PDF renderer's standard Helvetica wraps exactly alike.
 */
export const RENDER_FAMILY = 'StudyBridge Sans';
/** The CJK font found on the machine (cjkFontFile.ts), registered under this name: Skia falls back to it per glyph. */
const CJK_FAMILY = 'StudyBridge CJK';
const STACK = `"${RENDER_FAMILY}", "${CJK_FAMILY}", "Liberation Sans", "DejaVu Sans", "Noto Sans", "Noto Sans CJK SC", sans-serif`;

let registered = false;
let cjkRegistered = false;

/** The warning a render of `texts` carries when they hold CJK and no CJK font could be registered (call after ensureRenderFonts). */
export const cjkRenderWarning = (texts: Iterable<string>): string | undefined => {
  if (cjkRegistered) return undefined;
  for (const t of texts) if (needsCjkFont(t)) return NO_CJK_FONT_WARNING;
  return undefined;
};

export async function ensureRenderFonts(): Promise<void> {
  if (registered) return;
  const { GlobalFonts } = nativeCanvas();
  // pdf.js's fonts: beside the bundle in the VSIX (no pdfjs-dist package there), else the package (pdfjsLoader.ts).
  const dir = path.join(pdfJsAssetDir(), 'standard_fonts');
  for (const file of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf'])
    GlobalFonts.registerFromPath(path.join(dir, file), RENDER_FAMILY);
  const cjk = cjkFontFile();
  cjkRegistered = !!cjk && !!GlobalFonts.registerFromPath(cjk, CJK_FAMILY);
  registered = true;
}

export interface FontSpec {
  size: number;
  bold: boolean;
}

export const cssFont = (f: FontSpec) => `${f.bold ? 'bold ' : ''}${f.size}px ${STACK}`;
