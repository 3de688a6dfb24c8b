/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The Statistics panel's page: draws the model the host sends (charts.ts) and
// writes each chart's numbers as text beneath it. The host owns the data; the
// forecast's 30/90 days is this page's view of the 90 it holds. Bundled by
// esbuild (esbuild.mjs) into dist/webview/deckStats.js.
import { PageChannel, vscodeApi } from '../channel/pageChannel';
import { clear, plural, showMessage } from '../pageDom';
import { columns, heatmap, rows, type Row } from './charts';
import type { DeckStatsProtocol, DeckStatsViewState, StatsModel } from './protocol';

const host = new PageChannel<DeckStatsProtocol>();
const $ = (id: string) => document.getElementById(id) as HTMLElement;
const rangeButtons = [...document.querySelectorAll<HTMLButtonElement>('.range-button')];
let forecastDays = 30;
let model: StatsModel | undefined;

const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10}%`);

/** Puts a chart and its summary into section `id`. */
function fill(id: string, chart: Element | undefined, summary: string): void {
  const body = $(`${id}-chart`);
  clear(body);
  if (chart) body.appendChild(chart);
  $(`${id}-summary`).textContent = summary;
}

const labelled = (id: string) => `${id}-title ${id}-summary`;

export const STATE_ROWS = [
  ['new', 'New'],
  ['learning', 'Learning'],
  ['review', 'Review'],
  ['relearning', 'Relearning'],
  ['suspended', 'Suspended'],
  ['buried', 'Buried'],
] as const;

function drawCounts(m: StatsModel): void {
  const c = m.counts;
  const items: Row[] = STATE_ROWS.map(([key, label]) => ({
    label,
    share: c.total ? c[key] / c.total : 0,
    text: String(c[key]),
    cls: `state-${key}`,
  }));
  const summary = `${STATE_ROWS.map(([key, label]) => `${label} ${c[key]}`).join(' · ')} · Total ${c.total}`;
  fill('counts', rows(items, labelled('counts')), summary);
}

function drawForecast(m: StatsModel): void {
  const days = m.forecast.slice(0, forecastDays);
  const total = days.reduce((a, d) => a + d.due, 0);
  const busiest = days.reduce((a, d) => (d.due > a.due ? d : a), { date: '', due: 0 });
  const chart = columns(
    days.map((d, i) => ({
      label: i === 0 ? 'today' : `+${i}`,
      value: d.due,
      title: `${d.date}${i === 0 ? ' (today, overdue included)' : ''}: ${d.due} due`,
    })),
    { labelledBy: labelled('forecast'), labelEvery: forecastDays > 30 ? 15 : 5, cls: 'forecast' },
  );
  const summary =
    `${plural(total, 'card')} due in the next ${forecastDays} days; today ${days[0]?.due ?? 0} (overdue included)` +
    (busiest.due ? `; busiest day ${busiest.date} with ${busiest.due}.` : '.') +
    ' New cards are not counted.';
  fill('forecast', chart, summary);
  for (const b of rangeButtons) b.setAttribute('aria-pressed', String(Number(b.dataset.days) === forecastDays));
}

function drawHeatmap(m: StatsModel): void {
  const perDay = new Map(m.reviewsPerDay.map((d) => [d.date, d.reviews]));
  const total = m.reviewsPerDay.reduce((a, d) => a + d.reviews, 0);
  const minutes = Math.round(m.reviewsPerDay.reduce((a, d) => a + d.timeMs, 0) / 60_000);
  const busiest = m.reviewsPerDay.reduce((a, d) => (d.reviews > a.reviews ? d : a), { date: '', reviews: 0 });
  const today = m.forecast[0]?.date ?? m.now.slice(0, 10);
  const summary =
    `${plural(total, 'review')} on ${plural(m.reviewsPerDay.length, 'day')} in the last ${m.historyDays} days` +
    ` (${minutes} min)` +
    (busiest.reviews ? `; busiest day ${busiest.date} with ${busiest.reviews}.` : '.');
  fill('heatmap', heatmap(perDay, today, labelled('heatmap')), summary);
}

function drawRetention(m: StatsModel): void {
  const t = m.trueRetention;
  const items: Row[] = t.byInterval.map((b) => ({
    label: b.interval,
    share: b.rate ?? 0,
    text: b.reviews ? `${pct(b.rate)} (${b.passed}/${b.reviews})` : 'no reviews',
    cls: 'retention',
  }));
  const summary =
    `True retention ${pct(t.rate)} (${t.passed} passed of ${plural(t.reviews, 'review')} of cards in review, ` +
    `last ${m.historyDays} days). ` +
    t.byInterval
      .map((b) => `${b.interval}: ${b.reviews ? `${pct(b.rate)} (${b.passed}/${b.reviews})` : '—'}`)
      .join('; ');
  fill('retention', rows(items, labelled('retention')), summary);
}

function drawRetrievability(m: StatsModel): void {
  const r = m.retrievability;
  if (!r) {
    fill('retrievability', undefined, 'This bridge does not answer the retrievability distribution.');
    return;
  }
  const chart = columns(
    r.buckets.map((b) => ({ label: b.range, value: b.cards, title: `${b.range}: ${plural(b.cards, 'card')}` })),
    { labelledBy: labelled('retrievability'), labelEvery: 1, cls: 'retrievability' },
  );
  const summary =
    `${plural(r.cards, 'card')} with a memory state; average recall probability now ${pct(r.average)}. ` +
    r.buckets.map((b) => `${b.range}: ${b.cards}`).join('; ');
  fill('retrievability', chart, summary);
}

function render(state: DeckStatsViewState): void {
  const charts = $('charts');
  if (state.status !== 'ready') {
    $('title').textContent = `Statistics: ${state.title}`;
    charts.hidden = true;
    showMessage(
      $('message'),
      state.status === 'loading' ? 'Loading…' : state.message,
      state.status === 'error' ? 'error' : 'info',
    );
    return;
  }
  model = state.stats;
  $('title').textContent = `Statistics: ${model.title}`;
  $('asof').textContent =
    `${model.deckCount > 1 ? `${model.deckCount} decks · ` : ''}as of ${new Date(model.now).toLocaleString()}`;
  showMessage($('message'), undefined);
  charts.hidden = false;
  drawCounts(model);
  drawForecast(model);
  drawHeatmap(model);
  drawRetention(model);
  drawRetrievability(model);
  document.body.dataset.ready = 'true';
}

for (const b of rangeButtons)
  b.addEventListener('click', () => {
    forecastDays = Number(b.dataset.days) === 90 ? 90 : 30;
    if (model) drawForecast(model);
  });
$('refresh').addEventListener('click', () => host.notify('refresh'));
host.on('state', render);
// VS Code keeps this through a window reload and hands it to the host's serializer.
host.on('target', (target) => vscodeApi().setState({ target }));
host.ready();
