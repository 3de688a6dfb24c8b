import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';
import { pollPrepared } from './bundlesFixture';

/**
 * Bundles end to end over HTTP on the corpus books: prepare two
 * non-contiguous chapters, write result.md from their real sentences plus
 * invented ones, check, submit, read the cards back through the tree and
 * batch-get, submit again (replace), discard. Then block mode on OCR pages.
 */

interface Receipt {
  rootNoteId: string;
  version: number;
  replaced: boolean;
  preImportSnapshotId: string;
  persisted: boolean;
  receipt: { noteid: string; title: string; parent: string; depth: number }[];
  parsed: {
    headings: number;
    importedCards: number;
    wikilinks: number;
    excerptsTotal: number;
    excerptsAnchored: number;
    failedExcerpts: { noteid: string; excerpt: string; reason: string; line: number }[];
  };
  excerptStatsTruncated: boolean;
  warnings: string[];
}
interface TreeNode {
  noteid: string;
  parent: string | null;
  title: string;
  hasExcerpt: boolean;
  page: number | null;
  colorIndex: number | null;
  fillIndex: number | null;
}
interface BatchNote {
  noteid: string;
  texts: { index: number; text: string; excerpt: boolean }[];
  sourceAnchor: {
    hasExcerpt: boolean;
    bookmd5: string | null;
    page: number | null;
    rect: { x: number; y: number; width: number; height: number } | null;
  };
}

const file = async (t: TestBridge, id: string, path: string) =>
  (await t.client.raw('GET', `/bundles/${id}/files`, { query: { path } })).text();

/** Sentences of a page's text: whole ones (capital start, full stop end), 50..220 characters, no formulas. */
function sentences(text: string): string[] {
  return (text.match(/[A-Z][^.!?]{48,218}[.]/g) ?? []).filter((s) => !/[=;{}\\$]/.test(s));
}

describe('bundles: split a book into cards, end to end', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let asy: string;
  let topicid: string;

  before(async () => {
    t = await startBridge();
    asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    topicid = (await t.client.createStudySet('Asymptote')).topicid;
    await t.client.addDocumentToStudySet(topicid, asy);
  });
  after(async () => t.stop());

  it('prepares two chapters (async), submits verbatim and invented excerpts, replaces on a second submit, discard keeps the cards', async () => {
    // Chapter 4 "Drawing commands" (pages 19–26) and chapter 7 "LaTeX usage" (90–94), given out of order and overlapping.
    const prep = await t.client.raw('POST', '/bundles/prepare', {
      body: {
        topicid,
        bookmd5: asy,
        segments: [
          { startPage: 90, endPage: 94, title: 'LaTeX usage' },
          { startPage: 19, endPage: 24 },
          { startPage: 22, endPage: 26 },
        ],
        preset: 'book-breakdown',
        anchorMode: 'page_text',
        cardStyle: { defaultFillIndex: 2 },
        title: 'Drawing and LaTeX',
        async: true,
        colour: 'red',
      },
    });
    assert.equal(prep.status, 202);
    const p = prep.json<{
      jobId: string;
      bundleId: string;
      bundlePath: string;
      state: string;
      pagesTotal: number;
      ignoredFields: string[];
    }>();
    assert.equal(p.state, 'preparing');
    assert.equal(p.pagesTotal, 13, '8 + 5 actual pages after merging the overlap');
    assert.deepEqual(p.ignoredFields, ['colour']);
    const listed = await pollPrepared(t, p.bundleId);
    assert.equal(listed.state, 'prepared');
    assert.equal(listed.version, 0);
    assert.equal(listed.progress, undefined);
    // Title and book name come with the listing (the Bundles view reads no folder).
    assert.equal(listed.title, 'Drawing and LaTeX');
    assert.equal(listed.documentTitle, 'asymptote.pdf');
    assert.deepEqual([listed.preset, listed.anchorMode, listed.pagesTotal], ['book-breakdown', 'page_text', 13]);
    assert.deepEqual(listed.segments, [
      { startPage: 19, endPage: 26 },
      { startPage: 90, endPage: 94, title: 'LaTeX usage' },
    ]);
    const rootNoteId = listed.rootNoteId as string;
    assert.match(rootNoteId, /^[0-9A-F-]{36}$/);

    // The folder: every file, the draft from the outline within those pages, source.json with the pages' text.
    const files = await t.client.request<{ files: { path: string; hidden?: boolean }[] }>(
      'GET',
      `/bundles/${p.bundleId}/files`,
    );
    assert.deepEqual(
      files.files.map((f) => f.path),
      ['.receipt.json', 'OUTPUT-CONTRACT.md', 'TASK.md', 'manifest.json', 'result.md', 'source.json'],
    );
    assert.equal(files.files[0].hidden, true);
    const draft = await file(t, p.bundleId, 'result.md');
    assert.match(draft, /^# 4 Drawing commands\n\n## draw\n/);
    assert.match(draft, /## fill\n/);
    assert.match(draft, /# 7 LaTeX usage/);
    const task = await file(t, p.bundleId, 'TASK.md');
    assert.match(task, /verbatim/);
    assert.match(task, /\[\[Title\]\]` is \*\*not a link\*\*/);
    const source = JSON.parse(await file(t, p.bundleId, 'source.json')) as { pages: { page: number; text: string }[] };
    assert.deepEqual(
      source.pages.map((x) => x.page),
      [19, 20, 21, 22, 23, 24, 25, 26, 90, 91, 92, 93, 94],
    );
    const manifest = JSON.parse(await file(t, p.bundleId, 'manifest.json'));
    assert.deepEqual(manifest.segments, [
      { startPage: 19, endPage: 26 },
      { startPage: 90, endPage: 94, title: 'LaTeX usage' },
    ]);

    // Submitting the untouched draft is refused: submit is not a test.
    const draftSubmit = await t.client.raw('POST', `/bundles/${p.bundleId}/submit`, { body: {} });
    assert.equal(draftSubmit.status, 422);
    assert.equal(draftSubmit.json<{ error: { code: string } }>().error.code, 'RESULT_IS_DRAFT');

    // Verbatim sentences from both chapters: some across a line break, some across a hyphenation.
    const pageText = new Map(source.pages.map((x) => [x.page, x.text]));
    const picks: { page: number; text: string }[] = [];
    const want = (page: number, pred: (s: string) => boolean, n: number) => {
      const got = sentences(pageText.get(page)!)
        .filter(pred)
        .filter((s) => !picks.some((q) => q.text === s))
        .slice(0, n);
      assert.equal(got.length, n, `page ${page} has ${n} such sentence(s)`);
      picks.push(...got.map((text) => ({ page, text })));
    };
    want(19, (s) => s.includes('\n'), 2);
    want(21, (s) => s.includes('\n'), 1);
    want(90, (s) => s.includes('\n'), 2);
    const hyphenated = [...pageText.entries()].flatMap(([page, text]) =>
      sentences(text)
        .filter((s) => /[a-z]-\n[a-z]/.test(s))
        .map((s) => ({ page, text: s })),
    );
    assert.ok(hyphenated.length >= 1, 'the chapters have a sentence hyphenated across lines');
    picks.push(hyphenated[0]);
    // The agent writes them as one line, and hyphenated words whole.
    const asWritten = (s: string) => s.replace(/([a-z])-\n([a-z])/g, '$1$2').replace(/\s+/g, ' ');
    const invented = [
      'Asymptote renders every picture as a watercolour painting by default.',
      'The LaTeX package asymptote requires a licence key from the publisher.',
      'Pens are sharpened automatically after each hundred strokes.',
    ];
    const md = (extraHeading: string) => `# Drawing commands [style: colorIndex=4]
The drawing commands in my own words.

## Drawing and filling
${picks
  .slice(0, 3)
  .map((x) => `[excerpt: ${asWritten(x.text)}]`)
  .join('\n')}
[excerpt: ${invented[0]}]

## Hyphenation
[excerpt: ${asWritten(picks[5].text)}]

# LaTeX usage
${picks
  .slice(3, 5)
  .map((x) => `[excerpt: ${asWritten(x.text)}]`)
  .join('\n\n')}
[excerpt: ${invented[1]}]

## [[Drawing commands]]
[excerpt: ${invented[2]}]

${extraHeading}
`;
    const first = md('## Notes\nPlain text, see [[LaTeX usage]].');

    // check: the same parse and anchoring, nothing written.
    const before = await t.client.request<{ nodes: unknown[] }>('GET', `/study-sets/${topicid}/tree`);
    const check = await t.client.request<{
      ok: boolean;
      parsed: Receipt['parsed'];
      excerpts: { line: number; anchored: boolean; page?: number; reason?: string }[];
      problems: { line: number; code: string }[];
    }>('POST', `/bundles/${p.bundleId}/check`, { body: { resultMarkdown: first } });
    assert.equal(check.ok, false);
    assert.deepEqual([check.parsed.excerptsTotal, check.parsed.excerptsAnchored], [9, 6]);
    assert.deepEqual(
      check.excerpts.filter((e) => !e.anchored).map((e) => e.reason),
      ['no_match', 'no_match', 'no_match'],
    );
    assert.ok(check.problems.some((x) => x.code === 'WIKILINK_NOT_A_LINK'));
    assert.deepEqual(
      (await t.client.request<{ nodes: unknown[] }>('GET', `/study-sets/${topicid}/tree`)).nodes.length,
      before.nodes.length,
      'check wrote nothing',
    );

    const r1 = await t.client.request<Receipt>('POST', `/bundles/${p.bundleId}/submit`, {
      body: { resultMarkdown: first },
    });
    assert.equal(r1.rootNoteId, rootNoteId);
    assert.equal(r1.version, 1);
    assert.equal(r1.replaced, false);
    assert.equal(r1.persisted, true);
    assert.match(r1.preImportSnapshotId, /^[0-9A-F-]{36}$/);
    assert.deepEqual(
      { ...r1.parsed, failedExcerpts: undefined },
      { headings: 6, importedCards: 6, wikilinks: 2, excerptsTotal: 9, excerptsAnchored: 6, failedExcerpts: undefined },
    );
    assert.deepEqual(
      r1.parsed.failedExcerpts.map((f) => [f.excerpt, f.reason]),
      invented.map((s) => [s, 'no_match']),
    );
    assert.equal(r1.excerptStatsTruncated, false);
    assert.ok(r1.warnings.some((w) => /3 of 9 excerpts did not anchor/.test(w)));

    // The tree: bundle root under the set's root; headings in order; the merged section has no card of its own.
    const tree = await t.client.request<{ rootNoteId: string; nodes: TreeNode[] }>(
      'GET',
      `/study-sets/${topicid}/tree`,
    );
    const byId = new Map(tree.nodes.map((n) => [n.noteid, n]));
    assert.equal(byId.get(rootNoteId)!.parent, tree.rootNoteId);
    assert.equal(byId.get(rootNoteId)!.title, 'Drawing and LaTeX');
    const kids = (id: string) => tree.nodes.filter((n) => n.parent === id);
    assert.deepEqual(
      kids(rootNoteId).map((n) => n.title),
      ['Drawing commands', 'LaTeX usage'],
    );
    const drawing = kids(rootNoteId)[0];
    assert.equal(drawing.colorIndex, 4);
    assert.equal(drawing.fillIndex, 2, 'cardStyle.defaultFillIndex');
    // Own sub-headings first, then the merged section's (unanchored) excerpt card.
    assert.deepEqual(
      kids(drawing.noteid).map((n) => [n.title, n.hasExcerpt]),
      [
        ['Drawing and filling', false],
        ['Hyphenation', false],
        ['', false],
      ],
    );
    const latex = kids(rootNoteId)[1];
    assert.deepEqual(
      kids(latex.noteid).map((n) => [n.title, n.hasExcerpt, n.page]),
      [
        ['', true, 90],
        ['', true, 90],
        ['', false, null],
        ['Notes', false, null],
      ],
    );
    const filling = kids(drawing.noteid)[0];
    assert.deepEqual(
      kids(filling.noteid).map((n) => [n.hasExcerpt, n.page]),
      [
        [true, picks[0].page],
        [true, picks[1].page],
        [true, picks[2].page],
        [false, null],
      ],
    );

    // The anchors through batch-get: page and rectangle on the page.
    const excerptCards = tree.nodes.filter((n) => n.hasExcerpt);
    assert.equal(excerptCards.length, 6);
    const got = await t.client.request<{ notes: BatchNote[] }>('POST', '/notes/batch-get', {
      body: { noteIds: excerptCards.map((n) => n.noteid) },
    });
    for (const n of got.notes) {
      const a = n.sourceAnchor;
      assert.equal(a.hasExcerpt, true);
      assert.equal(a.bookmd5, asy);
      assert.ok(
        a.rect &&
          a.rect.width > 0 &&
          a.rect.height > 0 &&
          a.rect.x >= 0 &&
          a.rect.y >= 0 &&
          a.rect.x + a.rect.width <= 700 &&
          a.rect.y + a.rect.height <= 900,
        JSON.stringify(a.rect),
      );
      const pick = picks.find((x) => asWritten(x.text) === n.texts[0].text)!;
      assert.ok(pick, 'the excerpt text is the one written');
      assert.equal(a.page, pick.page);
      assert.equal(n.texts[0].excerpt, true);
    }
    // The hyphenated one anchors where POST /documents/{id}/locate finds it (same page, overlapping rectangle).
    const hy = got.notes.find((n) => n.texts[0].text === asWritten(picks[5].text))!;
    const loc = await t.client.request<{
      found: boolean;
      rect: { x: number; y: number; width: number; height: number };
    }>('POST', `/documents/${asy}/locate`, { body: { page: picks[5].page, text: picks[5].text } });
    assert.equal(loc.found, true);
    const r = hy.sourceAnchor.rect!;
    assert.ok(r.y < loc.rect.y + loc.rect.height && loc.rect.y < r.y + r.height, 'rectangles overlap vertically');

    // Second submit after editing: the whole tree is replaced under the same root card.
    const oldIds = tree.nodes
      .filter((n) => n.noteid !== rootNoteId && isUnder(tree.nodes, n.noteid, rootNoteId))
      .map((n) => n.noteid);
    const second = md('## Summary\nEdited.').replace('## Hyphenation\n', '## Hyphenated words\n');
    const r2 = await t.client.request<Receipt>('POST', `/bundles/${p.bundleId}/submit`, {
      body: { resultMarkdown: second, excerptMode: 'link' },
    });
    assert.deepEqual([r2.version, r2.replaced, r2.rootNoteId], [2, true, rootNoteId]);
    assert.notEqual(r2.preImportSnapshotId, r1.preImportSnapshotId);
    assert.deepEqual(
      [r2.parsed.headings, r2.parsed.importedCards, r2.parsed.excerptsTotal, r2.parsed.excerptsAnchored],
      [6, 6, 9, 6],
    );
    const tree2 = await t.client.request<{ nodes: TreeNode[] }>('GET', `/study-sets/${topicid}/tree`);
    const gone = await t.client.request<{ notFound: string[] }>('POST', '/notes/batch-get', {
      body: { noteIds: oldIds.slice(0, 200) },
    });
    assert.deepEqual(gone.notFound.sort(), oldIds.slice(0, 200).sort(), 'the first import is gone');
    const kids2 = (id: string) => tree2.nodes.filter((n) => n.parent === id);
    assert.deepEqual(
      kids2(rootNoteId).map((n) => n.title),
      ['Drawing commands', 'LaTeX usage'],
    );
    assert.deepEqual(
      kids2(kids2(rootNoteId)[0].noteid).map((n) => n.title),
      ['Drawing and filling', 'Hyphenated words'],
    );
    assert.deepEqual(
      kids2(kids2(rootNoteId)[1].noteid).map((n) => n.title),
      ['Summary'],
    );
    // link mode: the excerpts are merged into their heading's card (first anchored one = the card's excerpt).
    const filling2 = kids2(kids2(rootNoteId)[0].noteid)[0];
    assert.equal(filling2.hasExcerpt, true);
    assert.equal(kids2(filling2.noteid).length, 0);
    const [f2] = (
      await t.client.request<{ notes: BatchNote[] }>('POST', '/notes/batch-get', {
        body: { noteIds: [filling2.noteid] },
      })
    ).notes;
    assert.deepEqual(
      f2.texts.map((x) => [x.index, x.excerpt]),
      [
        [0, true],
        [1, true],
        [2, true],
        [3, false],
      ],
    );
    assert.equal(tree2.nodes.length, before.nodes.length + r2.receipt.length);

    // The listing reports the import; discard removes the folder, the cards stay.
    const l = await t.client.request<{ bundles: Record<string, unknown>[] }>('GET', '/bundles', {
      query: { origin: 'bridge', since: String(Date.now() - 60_000) },
    });
    assert.deepEqual(
      pick(
        l.bundles.find((b) => b.bundleId === p.bundleId)!,
        ['state', 'version', 'rootNoteId'],
      ),
      { state: 'imported', version: 2, rootNoteId },
    );
    const d = await t.client.request<{ discarded: boolean; cancelledJob: unknown; folderRemoved: boolean }>(
      'POST',
      `/bundles/${p.bundleId}/discard`,
    );
    assert.deepEqual([d.discarded, d.cancelledJob, d.folderRemoved], [true, null, true]);
    assert.equal(existsSync(p.bundlePath), false);
    const again = await t.client.request<{ alreadyDiscarded: boolean }>('POST', `/bundles/${p.bundleId}/discard`);
    assert.equal(again.alreadyDiscarded, true, 'idempotent');
    const tree3 = await t.client.request<{ nodes: TreeNode[] }>('GET', `/study-sets/${topicid}/tree`);
    assert.equal(tree3.nodes.length, tree2.nodes.length, 'imported cards stay');
    assert.ok(
      !(await t.client.request<{ bundles: { bundleId: string }[] }>('GET', '/bundles')).bundles.some(
        (b) => b.bundleId === p.bundleId,
      ),
    );
    const sub = await t.client.raw('POST', `/bundles/${p.bundleId}/submit`, { body: { resultMarkdown: second } });
    assert.equal(sub.status, 404);
  });

  it('block mode on scanned (OCR) pages: blocks anchor to their rectangles, always merged; bad block ids are reported', async () => {
    const scan = (await upload(t, 'scanned-4ti2-p5-8.pdf')).bookmd5;
    // Right after upload: the job reads (OCR) the pages first. Synchronous: 4 pages.
    const res = await t.client.request<{ bundleId: string; state: string; rootNoteId: string; bundlePath: string }>(
      'POST',
      '/bundles/prepare',
      {
        body: {
          topicid,
          bookmd5: scan,
          segments: [{ startPage: 1, endPage: 4 }],
          preset: 'source-structure',
          anchorMode: 'block',
        },
      },
    );
    assert.equal(res.state, 'prepared');
    const source = JSON.parse(readFileSync(join(res.bundlePath, 'source.json'), 'utf8')) as {
      pages: {
        page: number;
        source: string;
        blocks: {
          id: string;
          role: string;
          text: string;
          rect: { x: number; y: number; width: number; height: number };
        }[];
      }[];
    };
    assert.deepEqual(
      source.pages.map((x) => x.source),
      ['ocr', 'ocr', 'ocr', 'ocr'],
    );
    const blocks = source.pages.flatMap((x) => x.blocks).filter((b) => b.text.length > 60);
    assert.ok(blocks.length >= 4);
    for (const b of blocks) assert.match(b.id, /^b_[1-4]_\d+$/);
    const [b1, b2, b3] = blocks;
    const ocrSentence = blocks[3].text.split('\n')[0];
    const md = `# Linear systems\n[block: ${b1.id}]\n## Details\n[block: ${b2.id}, ${b3.id}]\n[excerpt: ${ocrSentence}]\n## Broken\n[block: b_99_1]\n[block: b_1_999]\n`;
    const r = await t.client.request<Receipt>('POST', `/bundles/${res.bundleId}/submit`, {
      body: { resultMarkdown: md, excerptMode: 'child' },
    });
    assert.deepEqual(
      [r.parsed.headings, r.parsed.importedCards, r.parsed.excerptsTotal, r.parsed.excerptsAnchored],
      [3, 3, 6, 4],
    );
    assert.deepEqual(
      r.parsed.failedExcerpts.map((f) => [f.excerpt, f.reason]),
      [
        ['b_99_1', 'missing_info'],
        ['b_1_999', 'no_match'],
      ],
    );
    assert.ok(r.warnings.some((w) => /block bundles always merge/.test(w)));
    // Merged: no excerpt child cards; the card's anchor is its first block's page and rectangle.
    assert.equal(r.receipt.length, 4, 'root + 3 heading cards');
    const cards = (
      await t.client.request<{ notes: BatchNote[] }>('POST', '/notes/batch-get', {
        body: { noteIds: r.receipt.map((x) => x.noteid) },
      })
    ).notes;
    const linear = cards.find((c) => c.noteid === r.receipt[1].noteid)!;
    assert.equal(linear.sourceAnchor.page, Number(b1.id.split('_')[1]));
    assert.deepEqual(linear.sourceAnchor.rect, b1.rect);
    assert.equal(linear.texts[0].text, b1.text);
    const details = cards.find((c) => c.noteid === r.receipt[2].noteid)!;
    assert.deepEqual(details.sourceAnchor.rect, b2.rect);
    assert.deepEqual(
      details.texts.map((x) => x.text),
      [b2.text, b3.text, ocrSentence],
    );
    assert.equal(details.texts[2].excerpt, true, 'the OCR sentence anchored as an excerpt');
  });
});

function isUnder(nodes: TreeNode[], id: string, root: string): boolean {
  const parent = new Map(nodes.map((n) => [n.noteid, n.parent]));
  for (let p = parent.get(id); p; p = parent.get(p)) if (p === root) return true;
  return false;
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
