import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';

/**
 * A font file on this machine that draws Chinese, Japanese and Korean. We
 * ship none (a CJK font is 10–20 MB), so renders and prints look for one:
 * the usual files of Linux distributions (fonts-noto-cjk and friends), macOS
 * and Windows, then fontconfig's list of fonts covering Chinese. A machine
 * without one gets a warning with the answer instead of boxes or "?".
 */
const KNOWN: readonly string[] = [
  // Linux: Debian/Ubuntu fonts-noto-cjk, Fedora, Arch, then older fallbacks.
  '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc',
  '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc',
  '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc',
  '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf',
  // macOS.
  '/System/Library/Fonts/PingFang.ttc',
  '/System/Library/Fonts/Hiragino Sans GB.ttc',
  '/System/Library/Fonts/STHeiti Light.ttc',
  '/Library/Fonts/Arial Unicode.ttf',
  '/System/Library/Fonts/Supplemental/Arial Unicode.ttf',
  // Windows.
  'C:\\Windows\\Fonts\\msyh.ttc',
  'C:\\Windows\\Fonts\\simsun.ttc',
  'C:\\Windows\\Fonts\\YuGothM.ttc',
  'C:\\Windows\\Fonts\\msgothic.ttc',
];

/** Set to a font file to use it, or to `none` to act as if the machine had no CJK font (tests of the warning). */
export const CJK_FONT_ENV = 'STUDY_BRIDGE_CJK_FONT';

let found: string | null | undefined;

/** The CJK font file to use, or null when this machine has none (the search runs once per process). */
export function cjkFontFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const forced = env[CJK_FONT_ENV];
  if (forced) return forced === 'none' || !existsSync(forced) ? null : forced;
  if (found === undefined) found = KNOWN.find((f) => existsSync(f)) ?? fontconfigCjk() ?? null;
  return found;
}

/** Fontconfig's files covering Chinese, a sans regular face first; null without fc-list. */
function fontconfigCjk(pattern = ':lang=zh'): string | null {
  if (process.platform === 'win32') return null;
  try {
    const files = execFileSync('fc-list', ['-f', '%{file}\n', pattern], {
      encoding: 'utf8',
      timeout: 3000,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\n')
      .filter((f) => /\.(ttf|otf|ttc)$/i.test(f));
    const score = (f: string) =>
      (/sans/i.test(f) ? 2 : 0) + (/regular/i.test(f) ? 1 : 0) - (/bold|italic/i.test(f) ? 2 : 0);
    return files.sort((a, b) => score(b) - score(a))[0] ?? null;
  } catch {
    return null;
  }
}

let foundForPrint: string | null | undefined;

/**
 * The CJK font to embed in a printed PDF: one with TrueType outlines. pdf-lib
 * subsets those well; a CFF-outline font (Noto CJK's OTF/TTC) comes out of
 * its subsetter invalid (viewers draw nothing), and embedding it whole would
 * add 16 MB to every print. Null when the machine has no TrueType CJK font.
 */
export function cjkPrintFontFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const forced = env[CJK_FONT_ENV];
  if (forced) return forced === 'none' || !existsSync(forced) || !hasTrueTypeOutlines(forced) ? null : forced;
  if (foundForPrint === undefined)
    foundForPrint =
      KNOWN.find((f) => existsSync(f) && hasTrueTypeOutlines(f)) ??
      [fontconfigCjk(':lang=zh:fontformat=TrueType')].find((f) => !!f && hasTrueTypeOutlines(f)) ??
      null;
  return foundForPrint;
}

/** Reads the sfnt version of the file's (first) font: 0x00010000 or 'true' = TrueType outlines, 'OTTO' = CFF. */
export function hasTrueTypeOutlines(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    if (readSync(fd, head, 0, 16, 0) < 16) return false;
    let version = head.readUInt32BE(0);
    if (head.toString('latin1', 0, 4) === 'ttcf') {
      // A collection: the first font's offset table says what its outlines are.
      const first = Buffer.alloc(4);
      if (readSync(fd, first, 0, 4, head.readUInt32BE(12)) < 4) return false;
      version = first.readUInt32BE(0);
    }
    return version === 0x00010000 || version === 0x74727565; // 'true' (old Apple TrueType)
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Chinese, Japanese or Korean letters in a text (what needs the CJK font). */
export const needsCjkFont = (text: string) => /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u.test(text);

export const NO_CJK_FONT_WARNING =
  'No Chinese/Japanese/Korean font was found on this machine, so CJK characters cannot be drawn (they show as boxes or "?"). Install one (for example fonts-noto-cjk on Debian/Ubuntu) or set STUDY_BRIDGE_CJK_FONT to a font file, then restart the bridge.';
