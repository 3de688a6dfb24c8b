import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cachedFixture, fontsFingerprint, toolVersion } from './fixtureCache';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Prints `html` to `pdf` with headless Chromium (Debian's, installed by .ci/run); `what` names it in errors. */
export function printHtmlToPdf(html: string, pdf: string, what: string): string {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install chromium (see .ci/run)`);
  mkdirSync(dirname(pdf), { recursive: true });
  const page = pdf.replace(/\.pdf$/, '') + '.html';
  writeFileSync(page, html);
  const args = [
    '--headless',
    '--disable-gpu',
    '--no-pdf-header-footer',
    `--user-data-dir=${dirname(pdf)}/profile`,
    `--print-to-pdf=${pdf}`,
    `file://${page}`,
  ];
  // Chromium refuses to run as root without --no-sandbox (CI containers run as root).
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  const check = () => {
    if (!existsSync(pdf) || readFileSync(pdf).subarray(0, 5).toString() !== '%PDF-')
      throw new Error(`Chromium did not print ${what}`);
  };
  // ~5 s a print: kept by the page, the flags, Chromium's version and the fonts (fixtureCache.ts).
  const flags = args.filter((a) => !a.includes(dirname(pdf)));
  cachedFixture(['chromium print-to-pdf', toolVersion(CHROMIUM), fontsFingerprint(), ...flags, html], pdf, () => {
    execFileSync(CHROMIUM, args, { stdio: 'ignore', timeout: 120_000 });
    check();
  });
  check();
  return pdf;
}
