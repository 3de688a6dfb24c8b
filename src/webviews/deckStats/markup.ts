// The Statistics panel's page markup (the host wraps it in webviewPage's shell). Each chart is a
// section: its title (h2), the drawing (filled by main.ts, role img named by the title and summary)
// and a text summary with the same numbers, for screen readers and anyone who wants them as text.
const section = (
  id: string,
  title: string,
  controls = '',
) => `<section class="chart" id="${id}" aria-labelledby="${id}-title">
  <div class="chart-head"><h2 id="${id}-title">${title}</h2>${controls}</div>
  <div class="chart-body" id="${id}-chart"></div>
  <p class="summary" id="${id}-summary"></p>
</section>`;

const RANGE = `<div class="range" role="group" aria-label="Forecast range">
  <button type="button" class="range-button" data-days="30" aria-pressed="true" aria-label="Forecast of the next 30 days">30 days</button>
  <button type="button" class="range-button" data-days="90" aria-pressed="false" aria-label="Forecast of the next 90 days">90 days</button>
</div>`;

export const DECK_STATS_BODY = `<header class="bar">
  <strong id="title" class="title">Statistics</strong>
  <span id="asof" class="asof"></span>
  <button id="refresh" type="button" title="Fetch the statistics again" aria-label="Refresh the statistics">Refresh</button>
</header>
<main id="stats" class="stats" tabindex="-1" aria-label="Deck statistics">
  <section id="message" class="message" role="status" hidden></section>
  <div id="charts" hidden>
    ${section('counts', 'Cards by state')}
    ${section('forecast', 'Due forecast', RANGE)}
    ${section('heatmap', 'Reviews per day (a year)')}
    ${section('retention', 'True retention by interval')}
    ${section('retrievability', 'Retrievability (FSRS)')}
  </div>
</main>`;
