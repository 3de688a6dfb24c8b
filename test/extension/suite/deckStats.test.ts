// Statistics and Optimize in the real VS Code: an agent builds a deck and grades it through the API
// (reviews spread over two months); the person opens Deck Statistics from the deck's context menu in
// the Review Decks view; the page's charts and their text summaries carry GET /decks/{id}/stats's
// numbers. Statistics of All Decks adds every deck up. Optimize FSRS Parameters on so short a
// history shows the bridge's refusal (or, where fsrs-rs does not load, its 503) as a notification; on
// 420 reviews it fits, shows the scores in a notification, and its Apply sets the preset's weights.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { DeckStats } from '../../../src/client/deckStatsApi';
import type { StudyBridgeApi } from '../../../src/extension';
import type { OptimizeOutcome } from '../../../src/extension/optimizeCommand';
import type { DeckStatsViewState } from '../../../src/webviews/deckStats/protocol';
import { askRunner } from './signals';
import { eventually } from './eventually';
import { revealSettled } from '../../../src/views/treeReveal';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
const DAY = 86_400_000;
const DECK = 'Statistics demo';
const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10}%`);

interface WebviewSeen {
  body: string;
  read: Record<string, string[]>;
}

describe('Statistics and Optimize of a deck (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let deckId: string;
  let cards: string[];

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
    // Six cards; five graded over two months (passes and a lapse), one suspended.
    const set = await agent.createStudySet('Statistics set');
    const sources: string[] = [];
    for (let i = 0; i < 6; i++)
      sources.push((await agent.cards.create(set.topicid, { title: `Fact ${i + 1}`, text: `answer ${i + 1}` })).noteid);
    deckId = (await agent.createDeck(DECK)).deckId;
    // A preset of its own: Optimize fits a preset's whole history, and the earlier suites graded decks on Default.
    const preset = await agent.deckOptions.savePreset({ name: 'Statistics demo', options: {} });
    await agent.deckOptions.assign(deckId, preset.presetId);
    await agent.request('POST', `/decks/${deckId}/cards`, {
      body: { cards: sources.map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
    });
    cards = (await agent.cards.deckCards(deckId)).cards.map((c) => c.cardNoteId);
    const grade = (i: number, rating: 'again' | 'hard' | 'good' | 'easy', daysAgo: number) =>
      agent.reviews.grade(deckId, {
        cardNoteId: cards[i],
        rating,
        reviewedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
        durationMs: 4000 + i * 500,
      });
    for (const i of [0, 1, 2, 3]) await grade(i, 'easy', 45);
    await grade(0, 'good', 12);
    await grade(1, 'again', 12);
    await grade(2, 'good', 3);
    await grade(3, 'hard', 3);
    await grade(4, 'good', 0);
    await agent.request('POST', `/decks/${deckId}/cards/suspend`, { body: { cardNoteIds: [cards[5]], confirm: true } });
  });

  it("Deck Statistics (the deck's context menu) draws GET /decks/{id}/stats: counts, forecast, heatmap, retention, retrievability", async function () {
    this.timeout(300_000); // the runner may look for the row three times (below)
    const stats = await agent.request<DeckStats>('GET', `/decks/${deckId}/stats`, {
      query: { forecastDays: 90, retrievability: true },
    });
    assert.equal(stats.counts.total, 6);
    assert.equal(stats.counts.suspended, 1);
    const r = stats.retrievability;
    assert.ok(r, 'asked for');
    assert.equal(
      stats.reviewsPerDay.reduce((n, d) => n + d.reviews, 0),
      9,
    );

    await vscode.commands.executeCommand('studyBridge.decks.focus');
    // By now the view lists every earlier suite's decks: bring this one into the part the list draws.
    const deckNode = await eventually(
      async () => (await api.views.decks.getChildren()).find((n) => n.id.endsWith(deckId)),
      'the deck in the Decks view',
    );
    const reveal = () => revealSettled(api.trees.decks, api.views.decks, deckNode, { select: false, focus: false });
    await reveal();
    // The runner scrolls for the row and looks again up to three times (once on 1.139 no row so labelled was drawn
    // for a minute); if it still cannot reach it, the person shows the deck again and right-clicks once more.
    const open = (name: string) =>
      askRunner(name, { action: 'context-menu', row: DECK, item: 'Deck Statistics' }, 150_000).catch(async () => {
        await vscode.commands.executeCommand('studyBridge.decks.focus');
        await reveal();
        return askRunner(`${name}-again`, { action: 'context-menu', row: DECK, item: 'Deck Statistics' }, 150_000);
      });
    const statsTab = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((tab) => tab.input instanceof vscode.TabInputWebview && tab.label === `Statistics: ${DECK}`);
    await open('deck-stats-open');
    // A menu click lost while the menu settles runs nothing (seen on 1.139: "clicked", and no panel in 60 s, as with
    // Open Mind Map): the person would right-click again, and so does the test.
    await eventually(statsTab, 'the Statistics tab', 8_000).catch(async () => {
      await open('deck-stats-open-second');
      return eventually(statsTab, 'the Statistics tab');
    });
    const c = stats.counts;
    const countsText =
      `New ${c.new} · Learning ${c.learning} · Review ${c.review} · Relearning ${c.relearning} · ` +
      `Suspended ${c.suspended} · Buried ${c.buried} · Total ${c.total}`;
    const due30 = stats.forecast.slice(0, 30).reduce((n, d) => n + d.due, 0);
    const t = stats.trueRetention;
    const seen = await askRunner<WebviewSeen>(
      'deck-stats-page',
      {
        action: 'webview',
        marker: '#heatmap-chart',
        waitFor: '#retrievability-chart svg',
        expect: [`Statistics: ${DECK}`, countsText],
        read: [
          '#counts-summary',
          '#forecast-summary',
          '#heatmap-summary',
          '#retention-summary',
          '#retrievability-summary',
          '#counts-chart',
          '#retention-chart',
        ],
        screenshot: 'deck-stats.png',
        timeoutMs: 60_000,
      },
      120_000,
    );
    const read = (sel: string) => seen.read[sel]?.[0] ?? '';
    assert.equal(read('#counts-summary'), countsText);
    assert.match(
      read('#forecast-summary'),
      new RegExp(`^${due30} cards? due in the next 30 days; today ${stats.forecast[0].due} `),
    );
    assert.match(
      read('#heatmap-summary'),
      new RegExp(`^9 reviews on ${stats.reviewsPerDay.length} days in the last 365 days`),
    );
    assert.match(
      read('#retention-summary'),
      new RegExp(`^True retention ${pct(t.rate).replace('.', '\\.')} \\(${t.passed} passed of ${t.reviews} review`),
    );
    assert.match(
      read('#retrievability-summary'),
      new RegExp(
        `^${r.cards} cards? with a memory state; average recall probability now ${pct(r.average).replace('.', '\\.')}`,
      ),
    );
    // The drawings' own labels: every state with its count beside its bar, every interval's rate.
    const countsChart = read('#counts-chart');
    for (const [label, n] of [
      ['New', c.new],
      ['Review', c.review],
      ['Suspended', c.suspended],
    ] as const)
      assert.match(countsChart, new RegExp(`${label}\\s+${n}\\b`), `${label} ${n} in the counts chart: ${countsChart}`);
    for (const b of t.byInterval.filter((x) => x.reviews > 0))
      assert.ok(read('#retention-chart').includes(`(${b.passed}/${b.reviews})`), read('#retention-chart'));
  });

  it('a grade while the panel shows redraws it: the panel follows the change feed (10 reviews now)', async () => {
    await agent.reviews.grade(deckId, { cardNoteId: cards[4], rating: 'good', durationMs: 5000 });
    const seen = await askRunner<WebviewSeen>(
      'deck-stats-follows',
      { action: 'webview', marker: '#heatmap-chart', expect: ['10 reviews on'], read: ['#heatmap-summary'] },
      60_000,
    );
    assert.match(seen.read['#heatmap-summary']?.[0] ?? '', /^10 reviews on /);
    // The window reload at the end of the run brings this panel back (test/extension/run.ts).
    metrics.deckStatsExpected = { title: `Statistics: ${DECK}`, heatmap: '10 reviews on' };
  });

  it('Statistics of All Decks: the counts of every deck added up', async () => {
    const state = await vscode.commands.executeCommand<DeckStatsViewState>('studyBridge.allDeckStatistics');
    assert.equal(state?.status, 'ready', JSON.stringify(state));
    if (state.status !== 'ready') return;
    let total = 0;
    let reviews = 0;
    const decks = await agent.listDecks();
    for (const d of decks) {
      const s = await agent.request<DeckStats>('GET', `/decks/${d.deckId}/stats`);
      total += s.counts.total;
      reviews += s.reviewsPerDay.reduce((n, x) => n + x.reviews, 0);
    }
    assert.equal(state.stats.deckCount, decks.length);
    assert.equal(state.stats.counts.total, total);
    assert.equal(
      state.stats.reviewsPerDay.reduce((n, x) => n + x.reviews, 0),
      reviews,
    );
  });

  it('Optimize FSRS Parameters on 10 reviews: the refusal, with how many reviews exist and are needed, as a notification', async () => {
    const outcome = await vscode.commands.executeCommand<OptimizeOutcome>('studyBridge.optimizeDeck', {
      deckId,
      title: DECK,
    });
    assert.equal(outcome?.outcome, 'refused', JSON.stringify(outcome));
    if (outcome.outcome !== 'refused') return;
    if (outcome.code === 'FSRS_OPTIMIZER_UNAVAILABLE') assert.match(outcome.message, /cannot run on/);
    else {
      assert.equal(outcome.code, 'REVIEW_HISTORY_TOO_SHORT');
      assert.equal(outcome.details?.reviews, 10);
      assert.match(outcome.message, /needs at least \d+ reviews .*; they have 10\./);
    }
    const expect = outcome.code === 'REVIEW_HISTORY_TOO_SHORT' ? 'they have 10' : 'cannot run on';
    await askRunner('deck-optimize-refused', {
      action: 'notification',
      expect: [expect],
      file: 'deck-optimize-refused.png',
    });
    // Nothing was changed: the preset keeps the defaults.
    const options = await agent.request<{ options: { fsrsParameters: number[] | null } }>(
      'GET',
      `/decks/${deckId}/options`,
    );
    assert.equal(options.options.fsrsParameters, null);
  });

  it('Optimize FSRS Parameters on 420 reviews: the progress, then the scores in a notification whose Apply sets the preset', async function () {
    this.timeout(240_000);
    // A deck of its own preset: 60 cards, each graded 7 times at growing intervals over the last 200 days.
    const set = await agent.createStudySet('Optimize set');
    const made = await Promise.all(
      Array.from(
        { length: 60 },
        async (_, i) =>
          (await agent.cards.create(set.topicid, { title: `Term ${i + 1}`, text: `meaning ${i + 1}` })).noteid,
      ),
    );
    const optimizeDeck = (await agent.createDeck('Optimize demo')).deckId;
    const preset = await agent.deckOptions.savePreset({ name: 'Optimize demo', options: {} });
    await agent.deckOptions.assign(optimizeDeck, preset.presetId);
    for (const part of [made.slice(0, 30), made.slice(30)])
      await agent.request('POST', `/decks/${optimizeDeck}/cards`, {
        body: { cards: part.map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
      });
    const ids = (await agent.cards.deckCards(optimizeDeck)).cards.map((c) => c.cardNoteId);
    const gaps = [0, 1, 3, 7, 15, 30, 60];
    // Each card's grades in order, the cards side by side: the bridge's group commit makes one fsync of the writes
    // that arrive together (made and graded one after another, the 480 fsyncs took 85-100 s of the suite).
    await Promise.all(
      ids.map(async (cardNoteId, i) => {
        let daysAgo = 200 - i;
        for (const [k, gap] of gaps.entries()) {
          daysAgo -= gap;
          const rating = (i * 7 + k) % 6 === 0 ? 'again' : k === 0 ? 'hard' : 'good';
          await agent.reviews.grade(optimizeDeck, {
            cardNoteId,
            rating,
            reviewedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
          });
        }
      }),
    );
    await vscode.commands.executeCommand('notifications.clearAll');
    const outcome = vscode.commands.executeCommand<OptimizeOutcome>('studyBridge.optimizeDeck', {
      deckId: optimizeDeck,
      title: 'Optimize demo',
    });
    const shown = await askRunner<{ text: string }>('deck-optimize-apply', {
      action: 'notification',
      expect: ['FSRS fitted to 420 reviews of “Optimize demo”', 'Log loss: default', 'Apply', 'Keep current'],
      file: 'deck-optimize-apply.png',
      click: 'Apply',
    });
    assert.match(shown.text, /RMSE \(bins\): default [\d.]+ → fitted [\d.]+/);
    const done = await outcome;
    assert.equal(done.outcome, 'applied', JSON.stringify(done));
    if (done.outcome !== 'applied') return;
    const options = await agent.request<{ options: { fsrsParameters: number[] | null } }>(
      'GET',
      `/decks/${optimizeDeck}/options`,
    );
    assert.deepEqual(options.options.fsrsParameters, done.result.parameters);
  });
});
