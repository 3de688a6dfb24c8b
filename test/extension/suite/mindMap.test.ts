// The mind map of a study set in the real VS Code (issue 11 item 2): an agent
// builds a 62-card set over HTTP; the person opens its map from the set's
// context menu; clicks reveal cards; an agent's edit redraws it. Runs after
// bundles.test.ts, on the same bridge (the asymptote book is already there).
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { CardNode } from '../../../src/views/cardTree';
import type { MindMapPanel } from '../../../src/views/mindMapPanel';
import type { MindMapAction, MindMapSeen } from '../mindMapDriver';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'asymptote.pdf');
const SET_TITLE = 'Linear Algebra (mind map)';

/** Chapters → sections → cards: 6 + 18 + 36 cards under the root. */
const BOOK: Record<string, Record<string, [string, string]>> = {
  Vectors: {
    'Vector spaces': ['Axioms of a vector space', 'Subspaces'],
    'Span and independence': ['Linear combinations', 'Linear independence'],
    Bases: ['Basis of a space', 'Dimension'],
  },
  Matrices: {
    'Matrix operations': ['Addition and scaling', 'Matrix product'],
    'Special matrices': ['Identity and diagonal', 'Symmetric matrices'],
    Inverses: ['Invertible matrices', 'Gauss–Jordan inversion'],
  },
  'Linear maps': {
    'Kernel and image': ['Kernel', 'Image'],
    'Rank–nullity': ['Statement of rank–nullity', 'Proof sketch'],
    'Change of basis': ['Transition matrices', 'Similar matrices'],
  },
  Determinants: {
    Definition: ['Permutations and sign', 'Leibniz formula'],
    Properties: ['Multiplicativity', 'Row operations'],
    Computation: ['Cofactor expansion', 'Triangular form'],
  },
  Eigenvalues: {
    'Characteristic polynomial': ['Eigenvalues as roots', 'Algebraic multiplicity'],
    Eigenvectors: ['Eigenspaces', 'Geometric multiplicity'],
    Diagonalisation: ['Diagonalisable matrices', 'Spectral theorem'],
  },
  'Inner products': {
    'Norms and angles': ['Cauchy–Schwarz inequality', 'Triangle inequality'],
    Orthogonality: ['Orthogonal complements', 'Orthogonal projections'],
    'Gram–Schmidt': ['The algorithm', 'QR decomposition'],
  },
};
const CHAPTER_COLOURS = [2, 5, 4, 3, 8, 15];
const prefix32 = (s: string) => [...s].slice(0, 32).join('');

let signals = 0;
const mindMap = (a: Omit<MindMapAction, 'action'>) =>
  askRunner<MindMapSeen>(`mind-map-${++signals}`, { action: 'mind-map', ...a });

describe('Mind map of a study set (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let topicid: string;
  let panel: MindMapPanel;
  /** Card ids by title. */
  const ids = new Map<string, string>();
  const id = (title: string) => ids.get(title) ?? assert.fail(`no card “${title}”`);
  let cardCount = 0;
  let bookmd5 = '';
  /** Nodes drawn before anything is unfolded: every card but the 9 inside the “Inner products” sub-map. */
  let visible = 0;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  it('an agent builds a 62-card set over HTTP: three levels, an excerpt, colours, hashtags, a sub-map', async () => {
    const set = await agent.createStudySet(SET_TITLE);
    topicid = set.topicid;
    const rootId = (await agent.cards.tree(topicid)).rootNoteId;
    for (const [chapter, sections] of Object.entries(BOOK)) {
      const c = await agent.cards.create(topicid, { parentNoteId: rootId, title: chapter });
      ids.set(chapter, c.noteid);
      for (const [section, leaves] of Object.entries(sections)) {
        const s = await agent.cards.create(topicid, { parentNoteId: c.noteid, title: section });
        ids.set(section, s.noteid);
        for (const leaf of leaves)
          ids.set(leaf, (await agent.cards.create(topicid, { parentNoteId: s.noteid, title: leaf })).noteid);
      }
    }
    // An excerpt card quoting the asymptote book (page shown on its node).
    assert.ok(existsSync(CORPUS_PDF), `${CORPUS_PDF} exists`);
    const up = await agent.uploadDocument(readFileSync(CORPUS_PDF), { filename: 'asymptote.pdf', topicid });
    bookmd5 = up.bookmd5;
    const page = (await agent.pages(up.bookmd5, 6)).pages[0];
    const line =
      page.text
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l.length >= 40 && l.length <= 120) ?? page.text.slice(0, 80);
    const excerpt = await eventually(
      () =>
        agent.cards
          .create(topicid, {
            parentNoteId: id('Vector spaces'),
            title: 'Vectors drawn with Asymptote',
            excerpt: { bookmd5: up.bookmd5, page: 6, text: line },
          })
          .catch((e) => (e.code === 'EXTRACTION_IN_PROGRESS' ? undefined : Promise.reject(e))),
      'the excerpt card (extraction of the book)',
      60_000,
    );
    ids.set('Vectors drawn with Asymptote', excerpt.noteid);
    assert.equal(excerpt.sourceAnchor.page, 6);
    // The book's "ready" refreshes the Study Sets view: let it land before the context menu is clicked, or the menu's tree item goes stale.
    await eventually(
      async () => ((await agent.outline(bookmd5)).extraction.state === 'ready' ? true : undefined),
      'the book to be read',
      120_000,
    );
    // Colours: each chapter its own; two cards dark, one red.
    const chapters = Object.keys(BOOK);
    for (const [i, chapter] of chapters.entries()) {
      await agent.request('POST', '/notes/metadata', {
        body: { noteIds: [id(chapter)], patch: { colorIndex: CHAPTER_COLOURS[i] }, confirm: true },
      });
    }
    await agent.request('POST', '/notes/metadata', {
      body: {
        noteIds: [id('Spectral theorem'), id('Statement of rank–nullity')],
        patch: { colorIndex: 10 },
        confirm: true,
      },
    });
    await agent.request('POST', '/notes/metadata', {
      body: { noteIds: [id('Leibniz formula')], patch: { colorIndex: 7 }, confirm: true },
    });
    await agent.request('POST', '/notes/hashtags', {
      body: {
        noteIds: [id('Spectral theorem'), id('Statement of rank–nullity')],
        operation: 'add',
        hashtags: ['exam'],
        confirm: true,
      },
    });
    await agent.request('POST', `/notes/${id('Inner products')}/fold-into-sub-map`, { body: { confirm: true } });
    // Read back through the tree route.
    const tree = await agent.cards.tree(topicid);
    cardCount = tree.count;
    assert.equal(cardCount, 1 + 6 + 18 + 36 + 1);
    const inner = tree.nodes.find((n) => n.noteid === id('Inner products'))!;
    assert.equal(inner.isSubMapRoot, true);
    assert.equal(tree.nodes.filter((n) => n.subMapId === inner.noteid).length, 9);
    assert.equal(tree.nodes.find((n) => n.noteid === id('Matrices'))!.colorIndex, 5);
    visible = cardCount - 9;
  });

  it('Open Mind Map (the set’s context menu) draws every card outside the folded sub-map, in palette colours, under a strict CSP', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.studyBridge');
    await vscode.commands.executeCommand('studyBridge.refresh');
    await vscode.commands.executeCommand('workbench.actions.treeView.studyBridge.studySets.collapseAll');
    const t0 = performance.now();
    const open = (name: string) => askRunner(name, { action: 'context-menu', row: SET_TITLE, item: 'Open Mind Map' });
    await open('mind-map-open');
    // A menu click lost while the menu settles runs nothing (seen once on 1.139, the menu closed and no panel came):
    // the person would right-click again, and so does the test; the second try has the full wait.
    panel = await eventually(() => api.mindMaps.panelFor(topicid), 'the mind-map panel', 8_000).catch(async () => {
      await open('mind-map-open-again');
      return eventually(() => api.mindMaps.panelFor(topicid), 'the mind-map panel');
    });
    const drawn = await eventually(
      () => (panel.lastRender && panel.lastRender.nodeCount === visible ? panel.lastRender : undefined),
      `the webview to report ${visible} nodes`,
    );
    // The person's wait: from the command making the panel to the page reporting the map painted (its steps beside it).
    // The runner's context-menu click and this loop's polling come on top: the second figure, as measured before.
    metrics.mindMapFirstDrawMs = panel.firstDraw.rendered;
    metrics.mindMapFirstDrawPhases = panel.firstDraw;
    metrics.mindMapFirstDrawViaRunnerMs = Math.round(performance.now() - t0);
    assert.deepEqual(drawn.cspViolations, [], 'no Content-Security-Policy violation in the webview');
    assert.equal(panel.panel.title, `Mind Map: ${SET_TITLE}`);
    // As rendered: the SVG's nodes, titles, colours.
    const seen = await mindMap({
      waitCount: visible,
      coloursOf: [id('Matrices'), id('Spectral theorem'), id('Leibniz formula')],
    });
    assert.equal(seen.count, visible);
    for (const t of [
      'Linear Algebra (mind map)',
      'Vectors',
      'Inner products',
      'Diagonalisable matrices',
      'Vectors drawn with Asymptote',
    ])
      assert.ok(seen.titles.includes(t), `${t} drawn`);
    assert.ok(!seen.titles.includes('QR decomposition'), 'cards inside the folded sub-map are not drawn');
    const palette = (await agent.cards.palette(topicid)).map((p) => p.displayColor);
    const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    assert.deepEqual(seen.colours, {
      [id('Matrices')]: rgb(palette[5]),
      [id('Spectral theorem')]: rgb(palette[10]),
      [id('Leibniz formula')]: rgb(palette[7]),
    });
    assert.match(seen.csp ?? '', /script-src 'nonce-[^']+'/);
    assert.doesNotMatch(seen.csp ?? '', /unsafe-inline|unsafe-eval/);
    metrics.mindMap = { cards: cardCount, drawnNodes: seen.count };
  });

  it('clicking a node selects its card in the Study Sets view and GET /context reports it focused', async () => {
    const target = id('Diagonalisable matrices');
    await mindMap({ clickCard: target });
    // The suite is bundled apart from the extension: compare tree ids, not classes.
    const selected = await eventually(() => {
      const s = api.trees.studySets.selection[0];
      return s?.id === `card/${topicid}/${target}` ? (s as CardNode) : undefined;
    }, 'the card to be selected in the Study Sets view');
    assert.equal(selected.studySet.topicid, topicid);
    const context = await eventually(async () => {
      const c = await agent.context();
      return c.focusedNote === target ? c : undefined;
    }, 'GET /context to report the focused card');
    assert.equal(context.studySet?.topicid, topicid);
  });

  it('clicking an excerpt card opens its source page in the PDF reader beside the map; the map comes back as it was (zoom, pan, folds)', async () => {
    const before = await mindMap({ waitCount: visible });
    await mindMap({ clickCard: id('Vectors drawn with Asymptote') });
    const session = await eventually(
      () => api.reader.all.find((s) => s.bookmd5 === bookmd5 && s.page === 6),
      'the reader of asymptote.pdf at page 6',
      30_000,
    );
    assert.equal(session.page, 6);
    assert.notEqual(session.panel.viewColumn, panel.panel.viewColumn, 'the reader opened beside the map, not over it');
    assert.ok(panel.panel.visible, 'the map stays in sight');
    // Closed again: the reader's own tests open this book fresh.
    session.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.joinAllGroups');
    // The map, shown again, is rebuilt from the bridge and its own view state.
    panel.panel.reveal();
    const back = await mindMap({ waitCount: visible });
    assert.equal(back.transform, before.transform, 'zoom and pan restored');
    assert.ok(!back.titles.includes('QR decomposition'), 'the sub-map is still folded');
  });

  it("an agent's title edit redraws the map, keeping zoom, pan and folds; an unfolded sub-map stays open through the next redraw", async () => {
    panel.panel.reveal();
    const before = await mindMap({ waitCount: visible });
    const renamed = 'Linear independence (renamed by an agent)';
    // The redraw as the person sees it: the page reports painting a map that holds the new title (no runner round trip).
    let t0 = 0;
    const renamedDrawn = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => (sub.dispose(), reject(new Error('the renamed card was not drawn within 20 s'))),
        20_000,
      );
      const sub = panel.onDidRender((r) => {
        if (r.seq !== panel.lastMap?.seq || !JSON.stringify(panel.lastMap.root).includes(renamed)) return;
        const at = performance.now();
        clearTimeout(timer);
        sub.dispose();
        // Where the redraw's time went: the edit reaching the panel, the panel's read, the page's layout and paint.
        const send = panel.lastSend?.seq === r.seq ? panel.lastSend : undefined;
        const pageMs = r.timing ? r.timing.drawn - r.timing.mapArrived : undefined;
        metrics.mindMapRedrawPhases = {
          toReadStart: send && Math.round(send.readAt - t0),
          read: send && Math.round(send.sentAt - send.readAt),
          toPageAndBack: send && pageMs !== undefined ? Math.round(at - send.sentAt - pageMs) : undefined,
          pageLayout: r.timing?.laidOut !== undefined ? Math.round(r.timing.laidOut - r.timing.mapArrived) : undefined,
          pagePaint: r.timing?.laidOut !== undefined ? Math.round(r.timing.drawn - r.timing.laidOut) : undefined,
        };
        resolve(at);
      });
    });
    t0 = performance.now();
    await agent.cards.setTitle(id('Linear independence'), renamed, prefix32('Linear independence'));
    metrics.mindMapRedrawMs = Math.round((await renamedDrawn) - t0);
    const after = await mindMap({ waitTitle: renamed, waitCount: visible });
    metrics.mindMapRedrawViaRunnerMs = Math.round(performance.now() - t0);
    assert.ok(!after.titles.includes('Linear independence'));
    assert.equal(after.transform, before.transform, 'the redraw kept the zoom and pan');
    // The person unfolds the sub-map; then an agent adds a card inside it.
    await mindMap({ toggleCard: id('Inner products'), waitCount: visible + 9 });
    await agent.cards.create(topicid, { parentNoteId: id('Gram–Schmidt'), title: 'Singular value decomposition' });
    const grown = await mindMap({ waitTitle: 'Singular value decomposition', waitCount: visible + 10 });
    assert.ok(grown.titles.includes('QR decomposition'), 'the sub-map stayed unfolded');
    // The whole map, photographed with the editor area to itself.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const shot = await mindMap({ clickButton: '#fit', waitCount: visible + 10, screenshot: 'mind-map.png' });
    assert.equal(shot.count, cardCount + 1);
    metrics.mindMap = { ...(metrics.mindMap as object), drawnAfterUnfold: shot.count };
    // The map stays open: after the suite the runner closes this window and opens the workspace again
    // (a window reload), and checks the map comes back with these nodes (the sub-map unfolded) and this zoom.
    metrics.mindMapExpected = {
      topicid,
      count: shot.count,
      transform: shot.transform,
      titles: ['QR decomposition', 'Singular value decomposition'],
    };
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.view.extension.studyBridge');
  });
});
