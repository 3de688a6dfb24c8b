// Highlights already in a PDF, in the real VS Code (issue 19 §3): a book with
// a reader's highlights, an underline and a sticky note joins a set; "Import
// Highlights from PDF" (the document's context menu) makes them cards, shown in
// the Study Sets view and over their rectangles in the reader; "Export
// Highlighted PDF…" writes a copy with the set's excerpts as highlights.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { PdfReaderSession } from '../../../src/editors/pdfReaderSession';
import type { BridgeNode } from '../../../src/views/bridgeTreeProvider';
import { withAnnotations, type Box } from '../../helpers/annotatedPdfWrite';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';
import { revealSettled } from '../../../src/views/treeReveal';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'CAD.pdf');
const SET_TITLE = 'CAD pens (highlights)';
const FILE = 'CAD-highlighted-by-reader.pdf';
const LINES = [
  'All functions are encapsulated in the structure',
  'differ depending on the size of your drawing',
  'The parameter nLineGroup depends on the size of your drawing',
];

describe('Highlights already in PDFs (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let topicid: string;
  let bookmd5: string;
  let docNode: BridgeNode;
  let created: { noteid: string; kind: string; page: number; text: string }[] = [];

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  it('Import Highlights from PDF (the document’s context menu) makes the reader’s highlights and notes cards of the set', async () => {
    const plain = readFileSync(CORPUS_PDF);
    // Where the lines are: the bridge's own locate on the plain book (the library only, not the set).
    const ref = (await agent.uploadDocument(plain, { filename: 'CAD.pdf' })).bookmd5;
    const rects: Box[] = [];
    for (const text of LINES) {
      const r = await eventually(
        () =>
          agent
            .request<{ found: boolean; rect?: { x: number; y: number; width: number; height: number } }>(
              'POST',
              `/documents/${ref}/locate`,
              { body: { page: 2, text } },
            )
            .catch((e) => (e.code === 'EXTRACTION_IN_PROGRESS' ? undefined : Promise.reject(e))),
        `locate “${text}”`,
        60_000,
      );
      assert.ok(r.found && r.rect, `found ${text}`);
      rects.push({ x: r.rect.x, y: r.rect.y, w: r.rect.width, h: r.rect.height });
    }
    const annotated = await withAnnotations(plain, 2, [
      { kind: 'Highlight', quads: [rects[0]], color: [1, 1, 0], contents: 'Why a structure?' },
      { kind: 'Underline', quads: [rects[1]], color: [0, 0.8, 0] },
      { kind: 'Highlight', quads: [rects[2]], color: [0.3, 0.6, 1] },
      {
        kind: 'Text',
        rect: { x: 500, y: 300, w: 20, h: 20 },
        contents: 'Check the pens of group B',
        color: [1, 0.6, 0.3],
      },
      {
        kind: 'Ink',
        strokes: [
          [
            [100, 700],
            [150, 720],
            [200, 700],
          ],
        ],
        color: [0, 0, 1],
      },
    ]);
    const set = await agent.createStudySet(SET_TITLE);
    topicid = set.topicid;
    bookmd5 = (await agent.uploadDocument(annotated, { filename: FILE, topicid })).bookmd5;
    await eventually(
      async () => ((await agent.outline(bookmd5)).extraction.state === 'ready' ? true : undefined),
      'the book to be read',
      120_000,
    );

    await vscode.commands.executeCommand('workbench.view.extension.studyBridge');
    await vscode.commands.executeCommand('studyBridge.refresh');
    const setNode = await eventually(
      async () => (await api.views.studySets.getChildren()).find((n) => n.id === `studySet/${topicid}`),
      'the set in the view',
    );
    const section = await eventually(
      async () => (await api.views.studySets.getChildren(setNode)).find((n) => n.id.endsWith('/documents')),
      'the Documents section',
    );
    docNode = await eventually<BridgeNode>(
      async () => (await api.views.studySets.getChildren(section)).find((n) => n.id.endsWith(`/${bookmd5}`)),
      'the book in the set',
    );
    await revealSettled(api.trees.studySets, api.views.studySets, setNode, {
      expand: true,
      select: false,
      focus: false,
    });
    await revealSettled(api.trees.studySets, api.views.studySets, section, {
      expand: true,
      select: false,
      focus: false,
    });
    await new Promise((r) => setTimeout(r, 1500)); // the refresh the upload started lands before the right-click
    await askRunner('annotations-import', {
      action: 'context-menu',
      row: FILE,
      item: 'Import Highlights from PDF',
      expand: [SET_TITLE, 'Documents'],
    });

    const tree = await eventually(
      async () => {
        const t = await agent.cards.tree(topicid);
        return t.count >= 5 ? t : undefined;
      },
      'the imported cards',
      60_000,
    );
    assert.equal(tree.count, 1 + 4, 'the root card and four cards (the ink is skipped)');
    const notes = (await agent.cards.batchGet(tree.nodes.filter((n) => n.parent !== null).map((n) => n.noteid))).notes;
    created = notes.map((n) => ({
      noteid: n.noteid,
      kind: '',
      page: n.sourceAnchor.page ?? 0,
      text: n.texts[0]?.text ?? '',
    }));
    for (const line of LINES)
      assert.ok(
        notes.some((n) => n.texts[0]?.excerpt && n.texts[0].text.startsWith(line)),
        `an excerpt card “${line}…”`,
      );
    assert.ok(
      notes.some((n) => n.texts[0]?.text === 'Check the pens of group B' && !n.texts[0].excerpt),
      'the sticky note is a card',
    );
    assert.ok(
      notes.some((n) => n.texts.some((x) => x.text === 'Why a structure?')),
      'the highlight’s note is a comment',
    );
    assert.ok(
      notes.every((n) => n.sourceAnchor.bookmd5 === bookmd5 && n.sourceAnchor.page === 2 && n.sourceAnchor.rect),
    );

    // Rendered: the set's cards in the Study Sets view.
    await vscode.commands.executeCommand('studyBridge.refresh');
    await revealSettled(api.trees.studySets, api.views.studySets, setNode, {
      expand: true,
      select: false,
      focus: false,
    });
    const shot = await askRunner<{ rows: string[] }>('annotations-tree', {
      action: 'screenshot',
      file: 'highlights-imported.png',
      sidebarWidth: 560,
      expand: [SET_TITLE, 'Documents'],
      expect: [SET_TITLE, FILE, 'All functions are encapsulated', 'Check the pens of group B', 'p. 2'],
    });
    metrics.highlightsImportedRows = shot.rows;
  });

  it('the reader draws the imported cards over the highlights they came from', async () => {
    const session = await vscode.commands.executeCommand<PdfReaderSession>('studyBridge.openInReader', {
      bookmd5,
      topicid,
      page: 2,
    });
    assert.ok(session, 'the reader opened');
    await eventually(
      () => (session.highlightCount === 4 ? true : undefined),
      'four card highlights in the reader',
      60_000,
    );
    await eventually(() => (session.page === 2 ? true : undefined), 'the reader at page 2', 30_000);
    await askRunner('annotations-reader', {
      action: 'reader',
      step: 'show',
      page: 2,
      highlights: 4,
      screenshot: 'highlights-imported-reader.png',
    });
  });

  it('importing again adds nothing; Export Highlighted PDF… writes a copy with one highlight per card', async () => {
    const again = await vscode.commands.executeCommand<{
      created: unknown[];
      alreadyImported: number;
    }>('studyBridge.importHighlights', docNode);
    assert.deepEqual([again.created.length, again.alreadyImported], [0, 4]);
    const uri = vscode.Uri.file(join(mkdtempSync(join(tmpdir(), 'sb-annots-')), 'copy.pdf'));
    const out = await vscode.commands.executeCommand<{ highlights: number; bytes: number }>(
      'studyBridge.exportHighlightedPdf',
      {
        topicid,
        bookmd5,
        uri,
      },
    );
    assert.equal(out.highlights, created.length);
    const bytes = readFileSync(uri.fsPath);
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    // Read back by the bridge: importing the copy into a new set gives the same four cards.
    const other = await agent.createStudySet('CAD pens (round trip)');
    const copy = (await agent.uploadDocument(bytes, { filename: 'copy.pdf', topicid: other.topicid })).bookmd5;
    await eventually(
      async () => ((await agent.outline(copy)).extraction.state === 'ready' ? true : undefined),
      'the copy to be read',
      120_000,
    );
    const back = await agent.request<{ created: { text: string }[] }>('POST', `/documents/${copy}/annotations/import`, {
      body: { topicid: other.topicid, confirm: true },
    });
    for (const c of created.filter((x) => LINES.some((l) => x.text.startsWith(l))))
      assert.ok(
        back.created.some((b) => b.text === c.text),
        `“${c.text}” came back`,
      );
    metrics.highlightedExport = { highlights: out.highlights, bytes: out.bytes, reimported: back.created.length };
  });
});
