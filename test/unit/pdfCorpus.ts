/** Shared by the PDF unit tests and benchmarks: the corpus and the pdftotext reference. */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

export const corpusDir = path.resolve(__dirname, '../../../shared/corpus');
export const corpusFile = (name: string) => path.join(corpusDir, name);

/** `pdftotext` (poppler) text of pages first..last, reading order (no -layout). */
export function pdftotext(file: string, first?: number, last?: number): string {
  const args = ['-enc', 'UTF-8'];
  if (first) args.push('-f', String(first));
  if (last) args.push('-l', String(last));
  return execFileSync('pdftotext', [...args, file, '-'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/**
 * Words of a text: NFKC, split on whitespace, punctuation trimmed from both
 * ends; tokens without a letter or digit (maths symbols, bullets, glyphs a
 * converter maps to nothing) are not words.
 */
export const words = (text: string) =>
  text
    .normalize('NFKC')
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => /[\p{L}\p{N}]/u.test(w));

/** Share of the reference's words (as a multiset) that also occur in `ours`. */
export function wordOverlap(reference: string, ours: string, opts: { lettersOnly?: boolean } = {}): number {
  const pick = (t: string) => (opts.lettersOnly ? words(t).filter((w) => /\p{L}/u.test(w)) : words(t));
  const ref = pick(reference);
  if (!ref.length) return 1;
  const have = new Map<string, number>();
  for (const w of pick(ours)) have.set(w, (have.get(w) ?? 0) + 1);
  let hit = 0;
  for (const w of ref) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      hit++;
      have.set(w, n - 1);
    }
  }
  return hit / ref.length;
}

export interface Bookmark {
  title: string;
  page: number;
  level: number;
}

/** The bookmarks of a PDF as qpdf reads them (independent of pdf.js): depth-first, 1-based pages. */
export function qpdfBookmarks(file: string): Bookmark[] {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json', '--json-key=outlines', '--json-key=pages', file], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
  const pageOf = new Map<string, number>();
  for (const p of json.pages as { object: string; pageposfrom1: number }[]) pageOf.set(p.object, p.pageposfrom1);
  type Node = { title: string; dest: unknown; destpageposfrom1: number | null; kids: Node[] };
  const out: Bookmark[] = [];
  const walk = (nodes: Node[], level: number) => {
    for (const n of nodes) {
      let page = n.destpageposfrom1 ?? undefined;
      const d = n.dest as { '/D'?: unknown[] } | unknown[] | null;
      const arr = Array.isArray(d) ? d : d?.['/D'];
      if (page === undefined && Array.isArray(arr) && typeof arr[0] === 'string') page = pageOf.get(arr[0]);
      out.push({ title: n.title.replace(/\s+/g, ' ').trim(), page: page ?? -1, level });
      walk(n.kids ?? [], level + 1);
    }
  };
  walk(json.outlines as Node[], 0);
  return out;
}

/** Page count as qpdf reads it. */
export const qpdfPageCount = (file: string) =>
  Number(execFileSync('qpdf', ['--show-npages', file], { encoding: 'utf8' }).trim());

/** `qpdf --check`: true when the file is structurally sound. */
export function qpdfCheck(file: string): { ok: boolean; output: string } {
  try {
    return {
      ok: true,
      output: execFileSync('qpdf', ['--check', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    };
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    // exit 3 = warnings only
    return { ok: err.status === 3, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}
