import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printHtmlToPdf } from './chromiumPrint';

/**
 * A PDF with Chinese, Japanese and Korean text, printed by Chromium from an
 * HTML page (the corpus has no CJK book). Page 1 is Chinese: 光合作用 five
 * times and a sentence set in a narrow column so it wraps over lines; page 2
 * is Japanese and Korean. Made once per test run (a temp dir named after the
 * process) since Chromium takes seconds to start.
 */
export const CJK_PDF = {
  /** Wraps over three lines of the 260 px column. */
  wrapped: '植物通过光合作用把光能转化为化学能并储存在葡萄糖等有机物中，这个过程主要发生在叶绿体内。',
  title: '第三章 光合作用',
  japanese: 'ミトコンドリアは細胞のエネルギー工場であり、呼吸によってエネルギーを取り出す。',
  korean: '광합성은 식물이 빛 에너지를 이용하여 포도당을 만드는 과정이다.',
};

function html(): string {
  const zh = [
    `<h1>${CJK_PDF.title}</h1>`,
    `<p class="narrow">${CJK_PDF.wrapped}</p>`,
    '<p>光合作用分为光反应和暗反应两个阶段。光反应在类囊体膜上进行，暗反应在叶绿体基质中进行。</p>',
    '<p>影响光合作用的因素包括光照强度、二氧化碳浓度和温度。提高光合作用效率可以增加作物产量。</p>',
    '<h2>叶绿体的结构与功能</h2><p>叶绿体由外膜、内膜和基质组成，基质中有许多类囊体堆叠成基粒。</p>',
  ].join('\n');
  const jaKo = [`<h2>細胞の構造</h2><p>${CJK_PDF.japanese}</p>`, `<h2>광합성</h2><p>${CJK_PDF.korean}</p>`].join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { font-family: "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", sans-serif; font-size: 16px; margin: 40px; }
    .narrow { width: 260px; }
    .page { break-after: page; }
  </style></head><body><div class="page">${zh}</div><div>${jaKo}</div></body></html>`;
}

/** The CJK test PDF's path (made on first use in this process). */
export function cjkPdf(): string {
  const dir = join(tmpdir(), `sb-cjk-pdf-${process.pid}`);
  const pdf = join(dir, 'cjk.pdf');
  if (existsSync(pdf)) return pdf;
  return printHtmlToPdf(html(), pdf, 'the CJK test PDF');
}
