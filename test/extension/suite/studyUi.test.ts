// The study UI driven in the real VS Code (issue 22): an agent's POST
// /ui-state/apply opens a set and a document (the set selected in the Study
// Sets view, the reader at the page); a click on the set already selected opens
// it again; an image-occlusion review card shows its masks on the question and
// not on the answer; Go to Card… opens the reader at a card's rectangle.
// Runs alone: npm run test:extension -- --suites=studyUi
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as vscode from 'vscode';
import type { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { PdfReaderSession } from '../../../src/editors/pdfReaderSession';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';
import { revealSettled } from '../../../src/views/treeReveal';

const EXTENSION_ID = 'study-bridge.study-bridge';
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'asymptote.pdf');
const SET_TITLE = 'Study UI: Asymptote';
const OTHER_TITLE = 'Study UI: another set';

interface ReaderState {
  visible: number[];
  highlights: Array<{ noteid: string; page: number }>;
}

describe('The study UI: agent-applied UI state, re-opening a set, occlusion review, Go to Card (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let set: { topicid: string };
  let other: { topicid: string };
  let bookmd5: string;
  const cards: Record<'topic' | 'p12' | 'p20', string> = { topic: '', p12: '', p20: '' };

  /** A line the excerpt anchoring places: plain prose. */
  const proseLine = async (page: number) =>
    (await agent.pages(bookmd5, page)).pages[0].text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length >= 40 && l.length <= 140 && /^[A-Z][a-z]/.test(l) && !/[{}\\$_]/.test(l))!;
  const rootNode = (topicid: string) =>
    eventually(
      async () => (await api.views.studySets.getChildren()).find((n) => n.id === `studySet/${topicid}`),
      `the set ${topicid} in the Study Sets view`,
    );
  const selectedId = () => api.trees.studySets.selection[0]?.id;
  const closeEditors = async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.joinAllGroups');
  };

  before(async function () {
    this.timeout(120_000);
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
    other = await agent.createStudySet(OTHER_TITLE);
    set = await agent.createStudySet(SET_TITLE);
    bookmd5 = (
      await agent.uploadDocument(readFileSync(CORPUS_PDF), { filename: 'asymptote.pdf', topicid: set.topicid })
    ).bookmd5;
    cards.topic = (await agent.cards.create(set.topicid, { title: 'Drawing topics' })).noteid;
    const p12 = await agent.cards.create(set.topicid, {
      title: 'What Asymptote draws',
      parentNoteId: cards.topic,
      excerpt: { bookmd5, page: 12, text: await proseLine(12) },
    });
    const p20 = await agent.cards.create(set.topicid, {
      title: 'Page twenty',
      excerpt: { bookmd5, page: 20, text: await proseLine(20) },
    });
    assert.ok(p12.sourceAnchor.rect && p20.sourceAnchor.rect, 'both excerpts are placed on their pages');
    [cards.p12, cards.p20] = [p12.noteid, p20.noteid];
    await vscode.commands.executeCommand('studyBridge.studySets.focus');
    await vscode.commands.executeCommand('studyBridge.refresh');
  });

  it("an agent's POST /ui-state/apply opens a set and a document: the set is selected in the Study Sets view and the reader shows the page", async function () {
    this.timeout(120_000);
    await closeEditors();
    // The person opens the other set: a click (the item's command; it opens the set whatever the selection was).
    // The tree is focused once first: a tree never focused does not tell the extension host about a selection
    // made by reveal (a VS Code quirk), and the test reads the selection there.
    const otherNode = await rootNode(other.topicid);
    await revealSettled(api.trees.studySets, api.views.studySets, otherNode, { select: true, focus: true });
    await vscode.commands.executeCommand('studyBridge.openStudySet', otherNode);
    await eventually(
      async () => ((await agent.context()).studySet?.topicid === other.topicid ? true : undefined),
      'the other set open (GET /context)',
    );

    const applied = await agent.request<{ keys: Record<string, { status: string }> }>('POST', '/ui-state/apply', {
      body: { state: { topicid: set.topicid, booklocation: { bookmd5, page: 9 } } },
    });
    assert.equal(applied.keys.topicid.status, 'accepted');
    assert.equal(applied.keys.booklocation.status, 'accepted');

    const reader = await eventually(
      () => api.reader.all.find((r) => r.bookmd5 === bookmd5 && r.page === 9),
      'the reader of asymptote.pdf at page 9',
      30_000,
    );
    await eventually(() => (reader.topicid === set.topicid ? true : undefined), "the reader showing the set's cards");
    await eventually(
      () => (selectedId() === `studySet/${set.topicid}` ? true : undefined),
      'the set selected in the Study Sets view',
    );
    const shown = await askRunner<ReaderState>('ui-state-reader', {
      action: 'reader',
      step: 'show',
      page: 9,
      screenshot: 'ui-state-apply.png',
    });
    assert.ok(shown.visible.includes(9), `page 9 in view: ${JSON.stringify(shown.visible)}`);
    const rows = await askRunner<{ rows: string[] }>('ui-state-sidebar', {
      action: 'screenshot',
      file: 'ui-state-apply-sidebar.png',
      expect: [SET_TITLE, OTHER_TITLE],
    });
    assert.ok(rows.rows.some((r) => r.includes(SET_TITLE)));
    // What the window reports is what the agent asked for: the set, and the page in the reader.
    const context = await eventually(async () => {
      const c = await agent.context();
      return c.studySet?.topicid === set.topicid && c.currentPage?.page === 9 ? c : undefined;
    }, 'GET /context: the set, page 9');
    assert.equal(context.currentPage?.bookmd5, bookmd5);
  });

  it('a click on the set already selected opens it again after something else was opened', async function () {
    this.timeout(60_000);
    // The set is open and selected (as the test before leaves it; opened again here so this test stands alone).
    await vscode.commands.executeCommand('studyBridge.openStudySet', await rootNode(set.topicid));
    await eventually(() => (selectedId() === `studySet/${set.topicid}` ? true : undefined), 'the set selected');
    // Something else: an agent opens a review deck (the tree's selection stays on the set).
    const deck = await agent.createDeck('Study UI: a deck');
    await agent.request('POST', '/ui-state/apply', { body: { state: { topicid: deck.deckId } } });
    await eventually(
      async () => ((await agent.context()).studySet?.topicid === deck.deckId ? true : undefined),
      'the deck open (GET /context)',
    );
    assert.equal(selectedId(), `studySet/${set.topicid}`, 'still selected: a click fires no selection event');

    // A click runs the item's command (VS Code runs it on every click, selected or not).
    const item = (await rootNode(set.topicid)).treeItem();
    assert.equal(item.command?.command, 'studyBridge.openStudySet');
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    await eventually(
      async () => ((await agent.context()).studySet?.topicid === set.topicid ? true : undefined),
      'the set open again (GET /context)',
    );
    assert.equal(selectedId(), `studySet/${set.topicid}`);
  });

  it('an image-occlusion review card: the question shows the masks, the answer the region without them (review-occlusion.png)', async function () {
    this.timeout(120_000);
    await closeEditors();
    const card = await agent.cards.create(set.topicid, {
      title: 'Masked line',
      excerpt: { bookmd5, page: 14, text: await proseLine(14) },
    });
    const contentId = `excerpt-${card.noteid}`;
    const source = (
      await agent.raw('GET', `/notes/${card.noteid}/content/${contentId}`, { query: { maxEdge: 64 } })
    ).headers.get('x-source-fingerprint')!;
    const masks = [
      { rect: { x: 0.04, y: 0.05, width: 0.3, height: 0.9 } },
      { rect: { x: 0.55, y: 0.05, width: 0.3, height: 0.9 }, group: 1 },
    ];
    const body = { coordinateSpace: 'normalized', operation: 'add', masks, expectedSourceFingerprint: source };
    const dry = await agent.raw('POST', `/notes/${card.noteid}/image-occlusions`, { body });
    assert.equal(dry.status, 422, dry.text());
    const maskFingerprint = dry.json<{ error: { details: { maskFingerprint: string } } }>().error.details
      .maskFingerprint;
    await agent.request('POST', `/notes/${card.noteid}/image-occlusions`, {
      body: { ...body, expectedMaskFingerprint: maskFingerprint, confirm: true },
    });
    const deck = await agent.createDeck('Study UI: occlusion');
    await agent.request('POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: [{ sourceNoteId: card.noteid, questionContentId: contentId }], confirm: true },
    });

    const session = await api.review.panels.open({ deckId: deck.deckId, title: deck.title });
    const view = await eventually(
      () => {
        const v = session.view();
        return v.status === 'card' && v.card.media?.questionImage && v.card.media.answerImage ? v : undefined;
      },
      'the occlusion card with its pictures',
      30_000,
    );
    if (view.status !== 'card') throw new Error('no card');
    // The pictures are the card's content part as the bridge draws it: with the masks (composite), without (base).
    const png = async (layers: string) => {
      const res = await agent.raw('GET', `/notes/${card.noteid}/content/${contentId}`, {
        query: { maxEdge: 1200, layers },
      });
      assert.equal(res.status, 200);
      return `data:image/png;base64,${res.bytes.toString('base64')}`;
    };
    assert.equal(view.card.question.kind, 'content_part');
    assert.equal(view.card.media?.questionImage, await png('composite'));
    assert.equal(view.card.media?.answerImage, await png('base'));
    assert.notEqual(
      view.card.media?.questionImage,
      view.card.media?.answerImage,
      'the masks make the question differ from the answer',
    );

    await askRunner('review-occlusion-question', {
      action: 'webview',
      marker: '#grades',
      waitFor: '.question-image',
      screenshot: 'review-occlusion-question.png',
    });
    const answer = await askRunner<{ read: Record<string, string[]> }>('review-occlusion-answer', {
      action: 'webview',
      marker: '#grades',
      click: '#show',
      waitFor: '.answer-image',
      expect: ['Masked line'],
      read: ['#grades .label'],
      screenshot: 'review-occlusion.png',
    });
    assert.deepEqual(answer.read['#grades .label'], ['Again', 'Hard', 'Good', 'Easy']);
    const after = session.view();
    assert.ok(after.status === 'card' && after.revealed, 'the answer side is shown');

    // A high-contrast theme: the page takes its classes (media/a11y.css outlines controls and pictures there).
    const workbench = vscode.workspace.getConfiguration('workbench');
    const theme = workbench.get<string>('colorTheme');
    await workbench.update('colorTheme', 'Default High Contrast', vscode.ConfigurationTarget.Global);
    try {
      await askRunner('review-high-contrast', {
        action: 'webview',
        marker: '#grades',
        waitFor: 'body.vscode-high-contrast .answer-image',
        screenshot: 'review-high-contrast.png',
      });
    } finally {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
    }
    await closeEditors();
  });

  it('Go to Card… lists the excerpt cards (title, book, page); the chosen one opens in the reader at its rectangle and is selected (go-to-card.png)', async function () {
    this.timeout(120_000);
    await closeEditors();
    const setNode = await rootNode(set.topicid);
    let shown!: () => void;
    const onScreen = new Promise<void>((r) => (shown = r));
    const going = vscode.commands.executeCommand<PdfReaderSession | undefined>('studyBridge.goToCard', setNode, {
      onShown: shown,
    });
    // A refusal ends the command before any pick: fail at once, not after the timeout.
    await Promise.race([
      onScreen,
      going.then(() => Promise.reject(new Error('Go to Card ended without showing its pick (see the log)'))),
    ]);
    await askRunner('go-to-card-pick', { action: 'screenshot', file: 'go-to-card-pick.png', expect: [SET_TITLE] });
    // The second card of the list (tree order: p. 12 under "Drawing topics", then p. 20), chosen with the keyboard.
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const session = await going;
    assert.ok(session, 'a card was chosen');
    await eventually(
      () => (session.bookmd5 === bookmd5 && session.page === 20 ? true : undefined),
      'the reader of asymptote.pdf at page 20',
      30_000,
    );
    await eventually(
      () => (selectedId() === `card/${set.topicid}/${cards.p20}` ? true : undefined),
      'the card selected in the Study Sets view',
    );
    const st = await askRunner<ReaderState>('go-to-card-reader', {
      action: 'reader',
      step: 'show',
      page: 20,
      highlights: 1,
      screenshot: 'go-to-card.png',
    });
    assert.ok(
      st.highlights.some((h) => h.noteid === cards.p20 && h.page === 20),
      `the card's rectangle drawn on page 20: ${JSON.stringify(st.highlights)}`,
    );

    // From a card's context menu: "Drawing topics" has one excerpt card below it, so it goes straight there.
    await askRunner('go-to-card-menu', { action: 'context-menu', row: 'Drawing topics', item: 'Go to Card…' });
    await eventually(
      () => (api.reader.all.find((r) => r.bookmd5 === bookmd5)?.page === 12 ? true : undefined),
      'the reader at page 12',
      30_000,
    );
    await eventually(
      () => (selectedId() === `card/${set.topicid}/${cards.p12}` ? true : undefined),
      'the p. 12 card selected',
    );
    const st12 = await askRunner<ReaderState>('go-to-card-menu-reader', {
      action: 'reader',
      step: 'show',
      page: 12,
      highlights: 1,
      screenshot: 'go-to-card-menu.png',
    });
    assert.ok(st12.highlights.some((h) => h.noteid === cards.p12));
    await closeEditors();
  });
});
