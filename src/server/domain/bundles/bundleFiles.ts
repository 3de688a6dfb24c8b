import { createHash } from 'node:crypto';
import type { StoredPage } from '../library/pageReader';
import { pageBlocks } from './bundleSource';

/**
 * The files of a bundle folder (docs/CONTRACT-CHOICES.md, "Bundle folder"). They are written for an agent
 * that reads them cold: every rule it must follow is stated in TASK.md, the
 * grammar in OUTPUT-CONTRACT.md, and the mistakes agents make with bundles
 * are rules here, not footnotes.
 */

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface BundleMeta {
  bundleId: string;
  jobId: string;
  topicid: string;
  bookmd5: string;
  documentTitle: string;
  title: string;
  preset: string;
  anchorMode: string;
  segments: { startPage: number; endPage: number; title?: string }[];
  pages: number[];
  defaultFillIndex: number | null;
  createdAt: string;
}

export const RECEIPT_FILE = '.receipt.json';
export const BUNDLE_FILES = ['TASK.md', 'OUTPUT-CONTRACT.md', 'manifest.json', 'source.json', 'result.md'] as const;

const PRESET_TASK: Record<string, string> = {
  'book-breakdown':
    'Reorganise the chapters into a study outline (narrative breakdown): one heading per idea worth a card, ordered for learning, each backed by verbatim `[excerpt: …]` quotes of the sentences that state it.',
  'source-structure':
    "Follow the source's own structure faithfully: one heading per chapter, section and numbered item, in the source's order and wording; quote the defining sentences with `[excerpt: …]` (or `[block: …]`).",
  'exam-general':
    "One card per question: the heading is the question's own title or number, kept exactly as printed (never rewrite answer titles); under it the question block and its answer block as `[block: b_<page>_<seq>]` (source.json gives each block's `role`).",
  dictionary:
    'One card per canonical term: the heading is the term itself, the body its definition as `[excerpt: …]`; `[[ ]]` has no meaning here and is stripped.',
};

export function taskMarkdown(m: BundleMeta): string {
  const pages = ranges(m.pages);
  return `# Task: split "${m.documentTitle}" pages ${pages} into cards

Bundle \`${m.bundleId}\` · preset **${m.preset}** · anchor mode **${m.anchorMode}** · study set \`${m.topicid}\`

${PRESET_TASK[m.preset] ?? PRESET_TASK['book-breakdown']}

## What to do
1. Read \`source.json\` (${m.anchorMode === 'block' ? "each page's blocks with ids, roles and rectangles" : "each page's text"}). Pages are PDF page order: ${pages}.
2. Write \`result.md\` following \`OUTPUT-CONTRACT.md\` exactly. A first draft from the book's outline is already there.
3. Check it without importing: \`POST /bundles/${m.bundleId}/check\` (free, writes nothing) and fix every problem it lists
   and every excerpt it reports as not anchored.
4. Only then submit: \`POST /bundles/${m.bundleId}/submit\` (once).
5. Read the receipt: \`parsed.headings\` must equal \`parsed.importedCards\` (else cards were lost) and
   \`parsed.excerptsTotal\` must equal \`parsed.excerptsAnchored\` (else see \`failedExcerpts[]\`: line and reason). Report both to the user.

## Rules
- \`[excerpt: …]\` is a **verbatim** copy of the page text (line breaks, hyphenation, quotes and spacing may differ). Never
  paraphrase, translate, abbreviate or join sentences from different places inside one excerpt: it will not anchor.
- \`[[Title]]\` is **not a link**. A heading that is exactly \`## [[Title]]\` merges its section into the card titled Title and
  disappears. To refer to another card, write its title as plain text.
- At most 6 heading levels (\`######\`). Deeper headings are not imported.
${m.anchorMode === 'block' ? '- Block mode: use `[block: b_<page>_<seq>]` with ids from source.json; formulas and figures are quoted by block, never retyped as excerpts.\n' : '- Page-text mode: quote sentences with `[excerpt: …]`; formulas and figures cannot be excerpted, describe them in plain text.\n'}- Do not use submit as a test: it writes to the study set (a snapshot is taken first). Use check.
- One submit at a time. A 409 \`SUBMIT_IN_FLIGHT\` means an import is running: read \`GET /bundles\` instead of retrying.
  Submitting again later replaces the whole imported tree.
- Do not touch \`${RECEIPT_FILE}\` or \`manifest.json\`. Only \`result.md\` is yours to edit.
${m.preset === 'exam-general' ? '- Keep question and answer titles exactly as printed; if an import changed one, fix it with `POST /notes/{id}/title`.\n' : ''}`;
}

export function outputContract(m: BundleMeta): string {
  const ex = m.anchorMode === 'block';
  return `# OUTPUT-CONTRACT: the grammar of result.md

result.md is Markdown. The bridge parses it with markdown-it (CommonMark) into a card tree under one root card titled
"${m.title}", placed under the study set's root card (or \`targetParentNoteId\` at submit).

| syntax | meaning |
|---|---|
| \`# Title\` … \`###### Title\` | a card; a deeper heading is a child of the nearest shallower one. At most 6 levels. |
| text, lists, code under a heading | the card's body text |
| \`[excerpt: verbatim source text]\` | a quote of the bundle's pages, anchored to its page and rectangle. It may span lines and hold brackets, balanced or not (\`[0, 1)\`, \`A[i]\`): it ends at the \`]\` that balances its \`[\` when the rest of the paragraph has no stray \`]\`, else at the first \`]\` that ends a line (else the last \`]\` before the next marker). Simplest: one excerpt per line, your own text on the next line. |
| \`[block: b_<page>_<seq>]\` | a block of source.json (\`b_12_3\`: page 12, block 3); several: \`[block: b_12_3, b_12_4]\` |
| \`[style: colorIndex=N fillIndex=M]\` | colours the card of its section: colorIndex 0..15, fillIndex -1..2 (2 = no fill; 0 is *not* "no fill"). Default fill: ${m.defaultFillIndex ?? 'none'} |
| \`## [[Title]]\` (the whole heading) | merges this section (text, excerpts, children) into the card titled Title; no card of its own |
| \`[[Title]]\` anywhere else | not a link: the brackets are dropped (warning) |

Excerpts: with \`excerptMode: "child"\` (default) each excerpt becomes a child card of its heading's card; with
\`"link"\` it is merged into that card (first excerpt = the card's excerpt, the rest comments).${ex ? ' This bundle is in block mode: excerpts and blocks are always merged.' : ''}${m.preset === 'dictionary' ? ' Dictionary bundles always merge and strip `[[ ]]`.' : ''}

Receipt reasons for an excerpt that did not anchor: \`no_match\` (not on these pages), \`below_threshold\` (close but not verbatim),
\`invalid_excerpt\` (empty, unclosed or too short: at least 6 letters or digits), \`missing_info\` (no readable text, or a block id
of a page outside the bundle), \`no_coordinates\` (found, but the page has no positions).

## Worked example

\`\`\`markdown
# ${ex ? '1 Exercises' : 'Chapter 3: Pictures'}
[style: colorIndex=4 fillIndex=2]
${ex ? '## Exercise 1\n[block: b_12_3]\n## Answer 1\n[block: b_12_4, b_12_5]' : 'An overview in my own words (body text, not an excerpt).\n\n## Pens\n[excerpt: A pen is a drawing context that holds the color, line width and font.]\n\n### [[Pictures]]\nThis section merges into the card titled "Pictures".\n\n## Pictures\n[excerpt: Pictures are collections of drawing commands.]'}
\`\`\`
`;
}

/** manifest.json of a bundle folder (the client and the views read it with this type). */
export interface BundleManifest extends Omit<BundleMeta, 'defaultFillIndex'> {
  cardStyle: { defaultFillIndex: BundleMeta['defaultFillIndex'] };
  pagesTotal: number;
  ocrPages: number[];
  unreadablePages: number[];
  files: { task: string; contract: string; source: string; result: string };
  createdAt: string;
}

export function manifestJson(m: BundleMeta, pages: StoredPage[]): string {
  const manifest: BundleManifest = {
    bundleId: m.bundleId,
    jobId: m.jobId,
    topicid: m.topicid,
    bookmd5: m.bookmd5,
    documentTitle: m.documentTitle,
    title: m.title,
    preset: m.preset,
    anchorMode: m.anchorMode,
    cardStyle: { defaultFillIndex: m.defaultFillIndex },
    segments: m.segments,
    pages: m.pages,
    pagesTotal: m.pages.length,
    ocrPages: pages.filter((p) => p.ocr === 1).map((p) => p.page),
    unreadablePages: pages.filter((p) => p.ocr === 2).map((p) => p.page),
    files: { task: 'TASK.md', contract: 'OUTPUT-CONTRACT.md', source: 'source.json', result: 'result.md' },
    createdAt: m.createdAt,
  };
  return JSON.stringify(manifest, null, 2);
}

export function sourceJson(m: BundleMeta, pages: StoredPage[]): string {
  const block = m.anchorMode === 'block';
  return JSON.stringify({
    bundleId: m.bundleId,
    bookmd5: m.bookmd5,
    anchorMode: m.anchorMode,
    pages: pages.map((p) => ({
      page: p.page,
      source: p.ocr === 1 ? 'ocr' : p.ocr === 2 ? 'unreadable' : 'text_layer',
      width: p.width,
      height: p.height,
      text: p.text,
      ...(block ? { blocks: pageBlocks(p).map(({ page: _p, ...b }) => b) } : {}),
    })),
  });
}

/** "3–5, 9, 12–14" */
export function ranges(pages: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < pages.length;) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j] + 1) j++;
    out.push(i === j ? `${pages[i]}` : `${pages[i]}–${pages[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}
