// Reviews in the real VS Code (issue 11 item 3): an agent builds a deck from a
// study set; the person opens it with "Review Now" in the Review Decks view and
// grades every card with the keyboard (Space, then 1–4) in the review panel;
// the bridge then holds the due dates ts-fsrs computes for those grades.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { ReviewSeen } from '../reviewDriver';
import { askRunner, outDir } from './signals';
import { eventually } from './eventually';
import { buildApkg, solidPng } from '../../helpers/ankiPackageBuilder';

const { createEmptyCard, fsrs, Rating } = require('ts-fsrs') as typeof TsFsrs;
const scheduler = fsrs();
const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
const RATING_OF_KEY = { '1': 'again', '2': 'hard', '3': 'good', '4': 'easy' } as const;
const CORPUS_PDF = resolve(outDir, '..', '..', '..', 'shared', 'corpus', 'asymptote.pdf');
const GRADE = { again: Rating.Again, hard: Rating.Hard, good: Rating.Good, easy: Rating.Easy } as const;

describe('Reviews: the review panel of a deck, graded with the keyboard (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  /** Cards due today across every deck, as the bridge counts them. */
  const dueToday = async () => {
    let n = 0;
    for (const d of await agent.listDecks())
      if (d.cardCount > 0) n += (await agent.reviews.due(d.deckId, 1)).dueTodayCount;
    return n;
  };

  it('Review Now opens the deck; Space and keys 1–4 grade four cards; GET /decks/{id}/cards then holds the due dates ts-fsrs computes', async () => {
    // The agent: a set with four cards, a deck reading them (one with a cloze front).
    const set = await agent.createStudySet('Calculus for review');
    const specs = [
      { title: 'Chain rule', text: "(f∘g)' = (f'∘g)·g'" },
      { title: 'Derivative of sine', text: 'cos x', question: 'd/dx sin x = {{cloze}}' },
      { title: 'Power rule', text: 'n·xⁿ⁻¹' },
      { title: 'Product rule', text: "(fg)' = f'g + fg'" },
    ];
    const sources: string[] = [];
    for (const s of specs)
      sources.push((await agent.cards.create(set.topicid, { title: s.title, text: s.text })).noteid);
    const deck = await agent.createDeck('FSRS review demo');
    await agent.request('POST', `/decks/${deck.deckId}/cards`, {
      body: {
        cards: specs.map((s, i) => ({ sourceNoteId: sources[i], ...(s.question ? { question: s.question } : {}) })),
        confirm: true,
      },
    });
    const stored = new Map((await agent.cards.deckCards(deck.deckId)).cards.map((c) => [c.cardNoteId, c]));
    const due = await agent.reviews.due(deck.deckId);
    assert.equal(due.dueCount, 4);
    const byQuestion = new Map(due.cards.map((c) => [c.question.text, c]));
    assert.ok(byQuestion.has('d/dx sin x = […]'), 'the cloze is hidden on the question side');

    // The status bar counts what is due today across decks (the change feed refreshed it).
    const before = await dueToday();
    await eventually(
      () => (api.review.dueStatus.total === before ? true : undefined),
      `the status bar total ${before}`,
    );
    await askRunner('review-status-before', { action: 'review', keys: [], expectStatus: `${before} due` });

    // The person: Review Decks view → right-click the deck → Review Now.
    await vscode.commands.executeCommand('studyBridge.decks.focus');
    await askRunner('review-open', { action: 'context-menu', row: 'FSRS review demo', item: 'Review Now' });
    const session = await eventually(() => api.review.panels.session(deck.deckId), 'the review panel of the deck');
    await eventually(() => (session.view().status === 'card' ? true : undefined), 'the first card');

    const keys = ['1', '2', '3', '4'] as const;
    const seen = await askRunner<ReviewSeen>('review-session', {
      action: 'review',
      keys,
      screenshots: { question: 'review-question.png', answer: 'review-answer.png', summary: 'review-summary.png' },
      timeoutMs: 30_000,
    });
    assert.equal(seen.steps.length, 4);
    assert.deepEqual(
      seen.steps.map((s) => s.position),
      ['1 / 4', '2 / 4', '3 / 4', '4 / 4'],
    );
    assert.deepEqual(
      new Set(seen.steps.map((s) => s.question)),
      new Set(due.cards.map((c) => c.question.text)),
      'each card once, its question shown',
    );
    for (const step of seen.steps) {
      const card = byQuestion.get(step.question)!;
      // The buttons show ts-fsrs's intervals for a new card.
      assert.deepEqual(step.intervals, {
        Again: card.nextIntervals.again,
        Hard: card.nextIntervals.hard,
        Good: card.nextIntervals.good,
        Easy: card.nextIntervals.easy,
      });
      assert.deepEqual(step.intervals, { Again: '1m', Hard: '6m', Good: '10m', Easy: '8d' });
      assert.ok(step.answer.includes(card.answer.body), `the answer shows the body: ${step.answer}`);
    }
    assert.match(seen.summary, /4 cards reviewed/);
    assert.match(seen.summary, /1\s*Again[\s\S]*1\s*Hard[\s\S]*1\s*Good[\s\S]*1\s*Easy/);
    assert.match(seen.summary, /Next due: /);

    // The bridge: every grade stored by the user, each card at the due date ts-fsrs computes
    // from its stored state before grading and the review time in the log.
    await eventually(() => (session.graded.length === 4 ? true : undefined), 'four grades stored');
    const after = new Map((await agent.cards.deckCards(deck.deckId)).cards.map((c) => [c.cardNoteId, c]));
    const log = (await agent.reviews.log(deck.deckId)).reviews;
    assert.equal(log.length, 4);
    const dues: Record<string, string> = {};
    for (const [i, step] of seen.steps.entries()) {
      const id = byQuestion.get(step.question)!.cardNoteId;
      const rating = RATING_OF_KEY[keys[i]];
      const entry = log.find((e) => e.cardNoteId === id)!;
      assert.equal(entry.rating, rating, `${step.question}: graded ${rating}`);
      assert.equal(entry.actor, 'user');
      assert.ok((entry.durationMs ?? -1) >= 0, 'the time to answer is logged');
      const was = stored.get(id)!;
      assert.equal(was.state, 'new');
      const expected = scheduler.next(
        { ...createEmptyCard(new Date(was.due)), due: new Date(was.due) },
        new Date(entry.reviewedAt),
        GRADE[rating],
      ).card;
      assert.equal(
        after.get(id)!.due,
        expected.due.toISOString(),
        `${step.question} (${rating}): the due date ts-fsrs computes`,
      );
      assert.equal(entry.dueAfter, expected.due.toISOString());
      dues[rating] = expected.due.toISOString();
    }
    metrics.reviewDues = dues;

    // The status bar follows: the easy card left today.
    const afterTotal = await dueToday();
    await eventually(
      () => (api.review.dueStatus.total === afterTotal ? true : undefined),
      `the status bar total ${afterTotal}`,
    );
    const status = await askRunner<ReviewSeen>('review-status-after', {
      action: 'review',
      keys: [],
      expectStatus: `${afterTotal} due`,
    });
    assert.ok(
      status.statusBar.some((t) => t.includes(`${afterTotal} due`)),
      JSON.stringify(status.statusBar),
    );
  });

  it("an excerpt card's answer is its page region (the card's content part); Open p. N opens the book beside the panel there", async function () {
    this.timeout(150_000);
    const set = await agent.createStudySet('Asymptote for review');
    const bookmd5 = (
      await agent.uploadDocument(readFileSync(CORPUS_PDF), { filename: 'asymptote.pdf', topicid: set.topicid })
    ).bookmd5;
    const page = 12;
    const line = (await agent.pages(bookmd5, page)).pages[0].text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length >= 40 && l.length <= 140 && /^[A-Z][a-z]/.test(l) && !/[{}\\$_]/.test(l))!;
    const excerpt = await agent.cards.create(set.topicid, {
      title: 'What Asymptote draws',
      excerpt: { bookmd5, page, text: line },
    });
    const deck = await agent.createDeck('Source-anchored review');
    await agent.request('POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: [{ sourceNoteId: excerpt.noteid }], confirm: true },
    });

    // The first test's panel is closed, so the runner meets one review panel, the one in sight.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const session = await api.review.panels.open({ deckId: deck.deckId, title: deck.title });
    const view = await eventually(() => {
      const v = session.view();
      return v.status === 'card' && v.card.media ? v : undefined;
    }, 'the first card with its pictures');
    if (view.status !== 'card') throw new Error('no card');
    // The picture is the card's own content part: the page region under the excerpt, as GET /notes/{id}/content serves it.
    const part = await agent.raw('GET', `/notes/${excerpt.noteid}/content/excerpt-${excerpt.noteid}`, {
      query: { maxEdge: 1200 },
    });
    assert.equal(part.status, 200);
    assert.equal(view.card.media?.answerImage, `data:image/png;base64,${part.bytes.toString('base64')}`);
    assert.deepEqual(view.card.media?.source, { bookmd5, page, noteid: excerpt.noteid, topicid: set.topicid });

    const shown = await askRunner<{ read: Record<string, string[]> }>('review-source', {
      action: 'webview',
      marker: '#grades',
      click: '#show',
      waitFor: '.answer-image',
      expect: [line.slice(0, 30), `Open p. ${page}`],
      read: ['.answer .open-source'],
      screenshot: 'review-source.png',
    });
    assert.match(shown.read['.answer .open-source'][0], new RegExp(`Open p\\. ${page}`));
    const reviewColumn = vscode.window.tabGroups.activeTabGroup.viewColumn;
    await askRunner('review-open-source', { action: 'webview', marker: '#grades', click: '.open-source' });
    const reader = await eventually(
      () => api.reader.all.find((r) => r.bookmd5 === bookmd5 && r.page === page),
      `the reader at page ${page}`,
      30_000,
    );
    assert.notEqual(reader.panel.viewColumn, reviewColumn, 'the reader opened beside the review panel');
    reader.panel.dispose();
    await vscode.commands.executeCommand('workbench.action.joinAllGroups');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
  it("an imported Anki card shows its template's HTML as the bridge sanitised it: formatting, ruby, table and picture; nothing hostile", async function () {
    this.timeout(150_000);
    const bytes = await buildApkg({
      crt: Math.floor(Date.now() / 86_400_000 - 5) * 86_400,
      decks: ['Hostile fields'],
      models: [{ name: 'Basic', fields: ['Front', 'Back'], templates: 1 }],
      notes: [
        {
          guid: 'panel-hostile',
          model: 'Basic',
          fields: [
            '<b>Bold</b> <ruby>漢<rt>kan</rt></ruby> <img src="cat.png" onerror="alert(1)"><script>alert(2)</script>' +
              '<svg onload="alert(3)"></svg><a href="javascript:alert(4)">link</a>',
            '<table><tr><td>cell</td></tr></table><iframe src="https://evil.example/"></iframe>',
          ],
          cards: [{ ord: 0 }],
        },
      ],
      media: { 'cat.png': solidPng(8, 8, [40, 160, 90]) },
    });
    const res = await agent.raw('POST', '/decks/import', { bytes, query: { filename: 'Hostile.apkg', confirm: 1 } });
    assert.equal(res.status, 200, res.text());
    const { deckId, topicid } = res.json<{ deckId: string; topicid: string }>();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const session = await api.review.panels.open({ deckId, title: 'Hostile fields' });
    const view = await eventually(() => {
      const v = session.view();
      return v.status === 'card' && v.card.media ? v : undefined;
    }, 'the card with its pictures');
    if (view.status !== 'card') throw new Error('no card');
    // The host read the picture the HTML names, as a data: URL for the page.
    assert.match(view.card.media?.pictures?.['cat.png'] ?? '', /^data:image\/png;base64,/);
    const hostile =
      '.card script, .card iframe, .card svg, .card [onerror], .card [onload], .card a[href^="javascript"]';
    const shown = await askRunner<{ read: Record<string, string[]> }>('review-html', {
      action: 'webview',
      marker: '#grades',
      click: '#show',
      waitFor: '.answer td',
      expect: ['Bold', 'cell'],
      read: ['.question b', '.question rt', '.question img', '.answer td', hostile],
      screenshot: 'review-html.png',
    });
    assert.deepEqual(shown.read['.question b'], ['Bold']);
    assert.deepEqual(shown.read['.question rt'], ['kan']);
    assert.equal(shown.read['.question img'].length, 1, 'the picture is drawn, not named');
    assert.deepEqual(shown.read['.answer td'], ['cell']);
    assert.deepEqual(shown.read[hostile], []);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Its set goes: the later suites find their rows in a Study Sets view as long as it was before this test.
    await agent.request('POST', `/study-sets/${topicid}/delete`, {
      body: { expectedTitle: 'Hostile fields', confirm: true },
    });
  });
});
