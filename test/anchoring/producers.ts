/**
 * Books of several PDF producers for the false-anchor measure: pdfTeX (the
 * corpus books), and made in the test from the same kind of prose: groff
 * (gropdf), Chromium (Skia, a printed HTML page in two columns), LibreOffice
 * Writer and pdf-lib (the layout PDFs). Each book's pages are extracted as the
 * bridge does; `pdfinfo` names the producer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile } from '../unit/pdfCorpus';
import { extracted, sharedPool } from '../unit/pdfExtracted';
import { corpusSentences, writeLayoutPdfs } from './layoutPdfs';
import { printHtmlToPdf } from '../helpers/chromiumPrint';
import { cachedFixture, fontsFingerprint, toolVersion } from '../helpers/fixtureCache';

export interface ProducerBook {
  file: string;
  book: string;
  /** As pdfinfo reads it. */
  producer: string;
  pages: PageData[];
}

/** Paragraphs of five sentences from `from` on (round the list again when it ends). */
function paragraphs(sentences: string[], from: number, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push([0, 1, 2, 3, 4].map((k) => sentences[(from + i * 5 + k) % sentences.length]).join(' '));
  return out;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function groffPdf(dir: string, paras: string[]): string {
  const src = join(dir, 'groff.ms');
  // A leading dot or quote would be a request: the prose starts with a capital letter.
  writeFileSync(src, `.TL\nNotes on lattices\n${paras.map((p) => `.PP\n${p}\n`).join('')}`);
  const key = ['groff -Tpdf -ms', toolVersion('groff'), readFileSync(src, 'utf8')];
  return cachedFixture(key, join(dir, 'groff.pdf'), (out) =>
    writeFileSync(out, execFileSync('groff', ['-Tpdf', '-ms', src], { maxBuffer: 64 << 20 })),
  );
}

function chromiumPdf(dir: string, paras: string[]): string {
  return printHtmlToPdf(
    `<!doctype html><html><head><meta charset="utf-8"><style>body{font:11pt serif;column-count:2;column-gap:2em}h1{column-span:all}</style></head><body><h1>Drawing with paths</h1>${paras.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}</body></html>`,
    join(dir, 'chromium.pdf'),
    'the producers test page',
  );
}

/** ~13 s a conversion (a fresh profile each time): kept by the text, LibreOffice's version and the fonts (fixtureCache.ts). */
function libreOfficePdf(dir: string, paras: string[]): string {
  const src = join(dir, 'writer.txt');
  writeFileSync(src, paras.join('\n\n'));
  const key = ['soffice --convert-to pdf', toolVersion('soffice'), fontsFingerprint(), readFileSync(src, 'utf8')];
  return cachedFixture(key, join(dir, 'writer.pdf'), () =>
    execFileSync(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${join(dir, 'lo-profile')}`,
        '--convert-to',
        'pdf',
        '--outdir',
        dir,
        src,
      ],
      { stdio: 'ignore', timeout: 180_000 },
    ),
  );
}

async function extractFile(file: string): Promise<PageData[]> {
  const pages: PageData[] = [];
  const h = sharedPool().extractDocument({ key: file, path: file }, { onPage: (p) => pages.push(p) });
  await h.info;
  await h.done;
  return pages.sort((a, b) => a.page - b.page);
}

/** True when the command runs here (LibreOffice is optional: CI installs it, a developer may not have it). */
function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

export const producerOf = (file: string) =>
  /^Producer:\s*(.*)$/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1].trim() ?? '';

/** The books, pdfTeX's first; LibreOffice's only where `soffice` runs. */
export async function producerBooks(): Promise<ProducerBook[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-producers-'));
  const asy = [...corpusSentences('asymptote.pdf', 81, 196), ...corpusSentences('4ti2_manual.pdf', 1, 59)];
  const corpus = ['4ti2_manual.pdf', 'CAD.pdf', 'asymptote.pdf'];
  const files = corpus.map(corpusFile);
  files.push(groffPdf(dir, paragraphs(asy, 0, 60)));
  files.push(chromiumPdf(dir, paragraphs(asy, 300, 60)));
  if (has('soffice')) files.push(libreOfficePdf(dir, paragraphs(asy, 600, 60)));
  files.push(...(await writeLayoutPdfs(dir)));
  const out: ProducerBook[] = [];
  for (const file of files) {
    // The corpus books' one extraction of the run (pdfExtracted.ts), which the other anchoring sets share.
    const book = basename(file);
    const pages = corpus.includes(book) ? (await extracted(book)).pages : await extractFile(file);
    out.push({ file, book, producer: producerOf(file), pages });
  }
  return out;
}
