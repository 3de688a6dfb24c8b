// Book splitting in the real VS Code (issue 8): an agent prepares a bundle over
// HTTP; the person reviews result.md in the card preview, submits, and finds the
// cards in the Study Sets view. Runs after extension.test.ts, on the same bridge.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { ResultPreviewSession } from '../../../src/editors/resultPreviewSession';
import type { BridgeNode } from '../../../src/views/bridgeTreeProvider';
import { INVENTED, prepareAsymptoteBundle, type BundleScenario } from './bundleScenario';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';
import { revealSettled } from '../../../src/views/treeReveal';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
/** test-output/extension → the project → ../shared/corpus. */
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'asymptote.pdf');

const label = (n: BridgeNode) => {
  const l = n.treeItem().label;
  return typeof l === 'string' ? l : (l?.label ?? '');
};

describe('Book splitting: the Bundles view and the result.md editor (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let s: BundleScenario;
  let resultUri: vscode.Uri;
  let session: ResultPreviewSession;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  const bundleNode = async () => {
    const books = await api.views.bundles.getChildren();
    const book = books.find((n) => n.id === `book/${s.bookmd5}`);
    assert.ok(book, `the book is a group in the Bundles view: ${books.map((b) => b.id)}`);
    const bundles = await api.views.bundles.getChildren(book);
    const node = bundles.find((n) => n.id === `bundle/${s.bundle.bundleId}`);
    assert.ok(node, 'the bundle is listed under its book');
    return { book, node };
  };

  it('a bundle prepared by an agent appears in the Bundles view under its book, with its pages and state', async () => {
    assert.ok(existsSync(CORPUS_PDF), `${CORPUS_PDF} exists`);
    s = await prepareAsymptoteBundle(agent, CORPUS_PDF, [5, 7]);
    assert.equal(s.bundle.state, 'prepared');
    resultUri = vscode.Uri.file(join(s.bundle.bundlePath, 'result.md'));
    // The agent writes its result.md into the bundle folder.
    writeFileSync(resultUri.fsPath, s.resultMarkdown);
    await vscode.commands.executeCommand('studyBridge.refresh');
    const { book, node } = await bundleNode();
    assert.equal(label(book), 'asymptote.pdf');
    const item = node.treeItem();
    assert.equal(item.label, 'Asymptote: first chapters');
    assert.equal(item.description, 'prepared · pp. 5–7');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'package');
    assert.equal(item.contextValue, 'studyBridge.bundle.prepared');
    await vscode.commands.executeCommand('studyBridge.bundles.focus');
    await askRunner('ui-bundles-view', {
      action: 'screenshot',
      file: 'bundles-view.png',
      sidebarWidth: 520,
      expect: ['asymptote.pdf', 'Asymptote: first chapters', 'prepared · pp. 5–7'],
    });
  });

  it('Open result.md: the text beside the card preview; excerpts anchored with their page, the invented one not found; problems in the Problems panel', async () => {
    const opened = new Promise<ResultPreviewSession>((res) => api.resultEditor.onDidOpen(res));
    const { node } = await bundleNode();
    await vscode.commands.executeCommand('studyBridge.openResult', node);
    session = await opened;
    assert.equal(session.document.uri.fsPath, resultUri.fsPath);
    assert.ok(
      vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === resultUri.fsPath),
      'the text editor of result.md is visible beside the preview',
    );
    const state = await eventually(
      () => (session.state.status === 'checked' ? session.state : undefined),
      'the first check',
    );
    const excerpts = state.model.nodes.flatMap((n) => n.excerpts);
    assert.deepEqual(
      excerpts.map((x) => [x.line, x.anchored, x.page, x.reason ?? null]),
      [
        [7, true, s.verbatim[0].page, null],
        [11, true, s.verbatim[1].page, null],
        [13, false, null, 'no_match'],
      ],
    );
    assert.deepEqual(state.model.counts, {
      headings: 4,
      importedCards: 3,
      lostCards: 1,
      excerptsTotal: 3,
      excerptsAnchored: 2,
    });
    // The Problems panel: the invented excerpt and the heading too deep, each on its line.
    const diagnostics = await eventually(() => {
      const d = vscode.languages.getDiagnostics(resultUri);
      return d.length >= 2 ? d : undefined;
    }, 'diagnostics for result.md');
    assert.deepEqual(
      diagnostics
        .map((d) => [d.range.start.line + 1, d.severity, String(typeof d.code === 'object' ? d.code.value : d.code)])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [13, vscode.DiagnosticSeverity.Error, 'EXCERPT_NO_MATCH'],
        [15, vscode.DiagnosticSeverity.Error, 'TOO_DEEP'],
      ],
    );
    // As rendered in the webview.
    const seen = await askRunner<{ read: Record<string, string[]> }>('ui-result-before', {
      action: 'webview',
      marker: '#tree',
      expect: ['2/3 excerpts anchored', `p. ${s.verbatim[0].page}`, 'not found', '1 heading will be lost'],
      read: ['.tree .excerpt.anchored', '.tree .excerpt.unanchored', '.problems .problem'],
      screenshot: 'result-editor-before.png',
    });
    assert.equal(seen.read['.tree .excerpt.anchored'].length, 2);
    assert.ok(seen.read['.tree .excerpt.anchored'][0].includes(s.verbatim[0].text.slice(0, 30)));
    assert.equal(seen.read['.tree .excerpt.unanchored'].length, 1);
    assert.ok(seen.read['.tree .excerpt.unanchored'][0].includes(INVENTED.slice(0, 30)));
    assert.equal(seen.read['.problems .problem'].length, 2);
  });

  it('typing in the text editor re-checks the unsaved text (the document is the only model)', async () => {
    const doc = session.document;
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, doc.lineAt(8).range.end, '\n\n### Paths and pens');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(doc.isDirty);
    const state = await eventually(
      () =>
        session.state.status === 'checked' && session.state.model.nodes.some((n) => n.title === 'Paths and pens')
          ? session.state
          : undefined,
      'the preview to show the typed heading',
    );
    assert.equal(state.documentVersion, doc.version);
    assert.equal(state.model.counts.importedCards, 4);
    // Lines below moved down by two: the Problems panel follows.
    const lines = await eventually(() => {
      const l = vscode.languages
        .getDiagnostics(resultUri)
        .map((d) => d.range.start.line + 1)
        .sort((a, b) => a - b);
      return l[0] === 15 ? l : undefined;
    }, 'diagnostics on the moved lines');
    assert.deepEqual(lines, [15, 17]);
  });

  it('Submit saves result.md, imports, and shows the receipt with the lost card and the unanchored excerpt; the tree is in the Study Sets view', async () => {
    const seen = await askRunner<{ read: Record<string, string[]> }>('ui-result-submit', {
      action: 'webview',
      marker: '#tree',
      click: '#submit',
      clickShows: ['#submit.busy', '#receipt h2', '#message.error'],
      waitFor: '#receipt h2',
      expect: ['Imported version 1', '1 lost card', '2/3 excerpts anchored'],
      read: ['#receipt h2', '#receipt .excerpt.unanchored', '#receipt .lost'],
      timeoutMs: 40_000,
    });
    assert.deepEqual(seen.read['#receipt h2'], ['Imported version 1']);
    assert.equal(seen.read['#receipt .excerpt.unanchored'].length, 1);
    assert.ok(seen.read['#receipt .excerpt.unanchored'][0].includes(INVENTED.slice(0, 30)));
    assert.match(seen.read['#receipt .lost'][0], /line 17/);
    // Saved first: the file holds the typed heading, and the bridge imported it.
    assert.equal(session.document.isDirty, false);
    assert.match(readFileSync(resultUri.fsPath, 'utf8'), /### Paths and pens/);
    const receipt = session.lastReceipt!;
    assert.deepEqual(
      [
        receipt.version,
        receipt.parsed.headings,
        receipt.parsed.importedCards,
        receipt.parsed.excerptsTotal,
        receipt.parsed.excerptsAnchored,
      ],
      [1, 5, 4, 3, 2],
    );
    // Read back through other routes: the tree, and the anchors of the excerpt cards.
    const tree = await agent.cards.tree(s.topicid);
    const titles = tree.nodes.map((n) => n.title);
    for (const t of ['Asymptote: first chapters', 'Asymptote', 'What it is', 'Drawing', 'Paths and pens'])
      assert.ok(titles.includes(t), `${t} in ${titles}`);
    const anchored = tree.nodes.filter((n) => n.hasExcerpt);
    assert.deepEqual(anchored.map((n) => n.page).sort(), s.verbatim.map((v) => v.page).sort());
    const notes = (await agent.cards.batchGet(anchored.map((n) => n.noteid))).notes;
    for (const n of notes)
      assert.ok(
        n.sourceAnchor.rect && n.sourceAnchor.rect.width > 0 && n.sourceAnchor.bookmd5 === s.bookmd5,
        JSON.stringify(n.sourceAnchor),
      );
    // The receipt's state is drawn, then the window is photographed with the Study Sets view showing the import.
    // The import's own refreshes (the submit's and the change feed's) and the editor's reveal of the new root
    // must be done before the view is collapsed and expanded here: a refresh still in flight restores the
    // expansion it started from. So: the feed has seen the import, the extension has selected the root.
    const set = (await agent.listStudySets()).find((x) => x.topicid === s.topicid)!;
    const root = await eventually(
      async () => api.views.studySets.cardNode(agent, set, receipt.rootNoteId),
      'the imported root card in the Study Sets view',
    );
    const { revision } = await agent.cards.changes(0, 0);
    await eventually(
      () => ((api.feed.revision ?? 0) >= revision ? true : undefined),
      'the change feed to see the import',
    );
    await eventually(
      () => (api.trees.studySets.selection[0]?.id === root.id ? true : undefined),
      'the editor to select the imported root',
    ).catch((e: Error) => {
      const reveals = (existsSync(api.logFile) ? readFileSync(api.logFile, 'utf8') : '')
        .split('\n')
        .filter((l) => /reveal/.test(l))
        .slice(-12);
      throw new Error(
        `${e.message} (${root.id}); selected: ${JSON.stringify(api.trees.studySets.selection.map((n) => n.id))}; ` +
          `the log's reveals:\n${reveals.join('\n')}`,
      );
    });
    await vscode.commands.executeCommand('workbench.actions.treeView.studyBridge.studySets.collapseAll');
    await revealSettled(api.trees.studySets, api.views.studySets, root, { select: true, focus: false, expand: 3 });
    // A refresh landing after the reveal can still fold the root again (1.103 and 1.139, once each): the person opens it.
    await askRunner('ui-study-sets-after-submit', {
      action: 'rows',
      expand: ['Asymptote: first chapters', 'Asymptote', 'Drawing'],
      expect: ['What it is', 'Drawing', 'Paths and pens'],
      timeoutMs: 20_000,
    });
    await askRunner('ui-result-after', {
      action: 'webview',
      marker: '#receipt',
      expect: ['Imported version 1'],
      screenshot: 'result-editor-after.png',
    });
    // The Bundles view follows: imported, version 1.
    const item = await eventually(async () => {
      const i = (await bundleNode()).node.treeItem();
      return i.contextValue === 'studyBridge.bundle.imported' ? i : undefined;
    }, 'the bundle to show imported');
    assert.match(String(item.description), /^imported v1/);
    metrics.bundleReceipt = {
      version: receipt.version,
      parsed: { ...receipt.parsed, failedExcerpts: receipt.parsed.failedExcerpts.length },
    };
  });

  it('a preview page that reloads (a hidden webview is not kept) shows the receipt again: the host owns the submit', async () => {
    const loads = session.pageLoads;
    session.panel.reveal(session.panel.viewColumn, false);
    await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
    await eventually(() => (session.pageLoads > loads ? true : undefined), 'the preview page to load again');
    assert.equal(session.submitState.status, 'done');
    await askRunner('ui-result-reloaded', {
      action: 'webview',
      marker: '#receipt',
      waitFor: '#receipt h2',
      expect: ['Imported version 1', '1 lost card'],
    });
  });

  it("clicking the unanchored excerpt's line in the receipt reveals that line in the text editor", async () => {
    await askRunner('ui-reveal-line', {
      action: 'webview',
      marker: '#receipt',
      click: '#receipt .excerpt.unanchored a.line-link',
    });
    const editor = await eventually(() => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.fsPath === resultUri.fsPath && e.selection.start.line === 14 ? e : undefined;
    }, 'the text editor at line 15');
    assert.ok(editor.document.lineAt(14).text.includes(INVENTED));
  });

  it('Discard asks first: declining keeps the bundle; consenting deletes its folder, the imported cards stay', async () => {
    const { node } = await bundleNode();
    const asked: string[] = [];
    const declined = await vscode.commands.executeCommand('studyBridge.discardBundle', node, {
      consent: async (m: string, d: string) => (asked.push(`${m}\n${d}`), undefined),
    });
    assert.equal(declined, undefined);
    assert.match(asked[0], /^Discard this bundle\?[\s\S]*cards it imported stay/);
    assert.ok(existsSync(resultUri.fsPath), 'declined: the folder stays');
    const result = await vscode.commands.executeCommand<{ discarded: boolean } | undefined>(
      'studyBridge.discardBundle',
      node,
      {
        consent: async (_m: string, _d: string, b: string) => b,
      },
    );
    assert.equal(result?.discarded, true);
    assert.ok(!existsSync(s.bundle.bundlePath), 'the bundle folder is gone');
    assert.ok(
      (await agent.cards.tree(s.topicid)).nodes.some((n) => n.title === 'Paths and pens'),
      'the imported cards stay',
    );
    await eventually(
      async () =>
        (await api.views.bundles.getChildren()).some((n) => n.id === `book/${s.bookmd5}`) ? undefined : true,
      'the bundle to leave the view',
    );
  });
});
