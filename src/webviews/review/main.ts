/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The review panel's page: it renders the state the host sends and asks the
// host to act; the session lives in the host. Keys: Space/Enter show the
// answer, 1–4 grade, O opens an excerpt's page beside the panel. Bundled by esbuild (esbuild.mjs) into dist/webview/review.js.
import type { ReviewRating } from '../../client/reviewApi';
import { PageChannel } from '../channel/pageChannel';
import { clear, drawCardHtml, el, plural, showMessage } from '../pageDom';
import { RATINGS, type ReviewCardModel, type ReviewProtocol, type ReviewViewState } from './protocol';

type SummaryState = Extract<ReviewViewState, { status: 'summary' }>;

const host = new PageChannel<ReviewProtocol>();
const $ = (id: string) => document.getElementById(id) as HTMLElement;
const deckEl = $('deck');
const progressEl = $('progress');
const countsEl = $('counts');
const messageEl = $('message');
const cardEl = $('card');
const questionEl = $('question');
const dividerEl = $('divider');
const answerEl = $('answer');
const summaryEl = $('summary');
const showBtn = $('show') as HTMLButtonElement;
const gradesEl = $('grades');
const gradeButtons = [...gradesEl.querySelectorAll<HTMLButtonElement>('button.grade')];
const MASK = '[…]';
const KIND_LABELS: Record<string, string> = {
  title: 'Question',
  cloze: 'Fill in the blank',
  text: 'Question',
  content_part: 'Content part',
};
let grading = false;
let state: ReviewViewState | undefined;

/** Text with the cloze mask drawn as a blank. */
function questionText(into: HTMLElement, text: string): void {
  const parts = text.split(MASK);
  parts.forEach((p, i) => {
    if (p) into.appendChild(document.createTextNode(p));
    if (i < parts.length - 1) into.appendChild(el('span', 'cloze', MASK));
  });
}

function renderQuestion(card: ReviewCardModel): void {
  clear(questionEl);
  const q = card.question;
  const kind = KIND_LABELS[q.kind] ?? 'Question';
  questionEl.appendChild(el('div', 'kind', kind + (card.state === 'new' ? ' · new' : ` · ${card.state}`)));
  const picture = card.media?.questionImage;
  if (picture) {
    questionEl.appendChild(
      image(picture, 'question-image', 'The card’s picture with its masks: what is hidden is the question'),
    );
    return;
  }
  const text = el('div', `text ${q.kind}`);
  if (q.kind === 'content_part') text.textContent = `${q.contentKind || 'part'} ${q.contentId}`;
  // The bridge's sanitised card HTML (an imported Anki card's template, or the text as HTML).
  else if (q.html) drawCardHtml(text, q.html, card.media?.pictures);
  else questionText(text, q.text || '(no question)');
  questionEl.appendChild(text);
}

function image(src: string, cls: string, alt: string): HTMLImageElement {
  const img = el('img', cls);
  img.src = src;
  img.alt = alt;
  return img;
}

function renderAnswer(card: ReviewCardModel): void {
  clear(answerEl);
  const a = card.answer;
  if (!card.sourceAlive) {
    answerEl.appendChild(el('p', 'gone', 'The source card was deleted: this review card has no answer side.'));
    return;
  }
  const media = card.media;
  // An excerpt's answer is the book itself: its page region, then the card's text beneath.
  if (media?.answerImage)
    answerEl.appendChild(
      image(
        media.answerImage,
        'answer-image',
        media.source
          ? `Page ${media.source.page} of the book, where the excerpt is`
          : 'The card’s picture without its masks',
      ),
    );
  else if (a.excerpt && a.page && !media?.source)
    answerEl.appendChild(
      el('p', 'gone', 'The book of this excerpt is no longer in the library: the stored text is below.'),
    );
  if (card.question.kind !== 'title' && a.title) answerEl.appendChild(el('div', 'title', a.title));
  const body = el('div', `body${a.excerpt ? ' excerpt' : ''}`, a.html ? undefined : a.body || '(no body)');
  if (a.html) drawCardHtml(body, a.html, media?.pictures);
  answerEl.appendChild(body);
  if (media?.source) {
    const open = button(
      'open-source secondary',
      `Open p. ${media.source.page}`,
      `Open the book at page ${media.source.page} beside this panel (O)`,
      () => host.notify('openSource'),
    );
    open.title = 'Open the book beside this panel at the excerpt (O)';
    open.appendChild(el('kbd', '', 'O'));
    answerEl.appendChild(open);
  } else if (a.excerpt && a.page) answerEl.appendChild(el('div', 'page', `p. ${a.page}`));
  if (a.comments?.length) {
    const ul = el('ul', 'comments');
    for (const c of a.comments) ul.appendChild(el('li', 'comment', c));
    answerEl.appendChild(ul);
  }
}

function when(iso: string | null): string {
  if (!iso) return 'no cards';
  const d = new Date(iso);
  const ms = d.getTime() - Date.now();
  if (ms <= 0) return 'now';
  const rel =
    ms < 60_000
      ? 'in less than a minute'
      : ms < 3_600_000
        ? `in ${Math.round(ms / 60_000)} min`
        : ms < 86_400_000
          ? `in ${Math.round(ms / 3_600_000)} h`
          : `in ${Math.round(ms / 86_400_000)} days`;
  return `${rel} (${d.toLocaleString()})`;
}

/** A button; `label` is what a screen reader announces (every control has one). */
function button(cls: string, text: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', cls, text);
  b.type = 'button';
  b.setAttribute('aria-label', label);
  b.addEventListener('click', onClick);
  return b;
}

function renderSummary(s: SummaryState): void {
  clear(summaryEl);
  summaryEl.appendChild(el('h2', '', s.reviewed ? 'Session complete' : 'Nothing due now'));
  summaryEl.appendChild(
    el('p', 'reviewed', s.reviewed ? `${plural(s.reviewed, 'card')} reviewed` : 'No card of this deck is due.'),
  );
  if (s.reviewed) {
    const table = el('div', 'per-grade');
    for (const r of RATINGS) {
      const cell = el('div', `tally ${r}`);
      cell.appendChild(el('span', 'n', String(s.counts[r])));
      cell.appendChild(el('span', 'label', r[0].toUpperCase() + r.slice(1)));
      table.appendChild(cell);
    }
    summaryEl.appendChild(table);
  }
  summaryEl.appendChild(el('p', 'next', `Next due: ${when(s.nextDueAt)}`));
  if (s.dueToday) summaryEl.appendChild(el('p', 'today', `${plural(s.dueToday, 'card')} due today in this deck`));
  const buttons = el('div', 'summary-actions');
  if (s.dueNow > 0)
    buttons.appendChild(
      button('restart', `Review ${plural(s.dueNow, 'due card')}`, `Review ${plural(s.dueNow, 'due card')} again`, () =>
        host.notify('restart'),
      ),
    );
  buttons.appendChild(button('close secondary', 'Close', 'Close the review panel', () => host.notify('close')));
  summaryEl.appendChild(buttons);
}

function render(): void {
  const s = state;
  if (!s) return;
  document.body.dataset.status = s.status;
  deckEl.textContent = s.deck.title;
  progressEl.textContent = s.status === 'card' ? `${s.position} / ${s.total}` : '';
  countsEl.textContent = '';
  if (s.status === 'card') {
    for (const k of ['new', 'learning', 'review'] as const)
      countsEl.appendChild(el('span', `count ${k}`, String(s.remaining[k])));
  }
  cardEl.hidden = s.status !== 'card';
  summaryEl.hidden = s.status !== 'summary';
  showBtn.hidden = !(s.status === 'card' && !s.revealed);
  gradesEl.hidden = !(s.status === 'card' && s.revealed);
  const message =
    s.status === 'loading'
      ? 'Loading the due cards…'
      : s.status === 'error'
        ? s.message
        : s.status === 'card'
          ? s.error
          : undefined;
  showMessage(messageEl, message, s.status === 'error' || (s.status === 'card' && s.error) ? 'error' : 'info');
  if (s.status === 'card') {
    document.body.dataset.side = s.revealed ? 'answer' : 'question';
    renderQuestion(s.card);
    dividerEl.hidden = answerEl.hidden = !s.revealed;
    if (s.revealed) renderAnswer(s.card);
    for (const [i, b] of gradeButtons.entries()) {
      const interval = s.card.nextIntervals[b.dataset.rating as ReviewRating];
      b.querySelector('.interval')!.textContent = interval;
      b.setAttribute(
        'aria-label',
        `${b.querySelector('.label')!.textContent}, next review in ${interval} (key ${i + 1})`,
      );
      b.disabled = s.busy || grading;
    }
  } else {
    delete document.body.dataset.side;
  }
  if (s.status === 'summary') renderSummary(s);
}

function reveal(): void {
  if (state?.status === 'card' && !state.revealed) host.notify('reveal');
}

async function grade(rating: ReviewRating): Promise<void> {
  if (state?.status !== 'card' || !state.revealed || state.busy || grading) return;
  grading = true;
  document.body.dataset.pending = rating;
  render();
  let refused: string | undefined;
  try {
    await host.request('grade', { rating }, { timeoutMs: 60_000 });
  } catch (err) {
    refused = err instanceof Error ? err.message : String(err);
  }
  grading = false;
  delete document.body.dataset.pending;
  render();
  // The host's state usually carries the reason already; a timeout or a closed channel does not.
  if (refused && !(state?.status === 'card' && state.error)) showMessage(messageEl, `Not graded: ${refused}`, 'error');
}

showBtn.addEventListener('click', reveal);
for (const b of gradeButtons) b.addEventListener('click', () => void grade(b.dataset.rating as ReviewRating));
window.addEventListener('keydown', (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
  if (ev.key === ' ' || ev.key === 'Enter') {
    if (state?.status === 'card' && !state.revealed) {
      ev.preventDefault();
      reveal();
    }
    return;
  }
  if ((ev.key === 'o' || ev.key === 'O') && state?.status === 'card' && state.revealed && state.card.media?.source) {
    ev.preventDefault();
    host.notify('openSource');
    return;
  }
  const i = ['1', '2', '3', '4'].indexOf(ev.key);
  if (i >= 0) {
    ev.preventDefault();
    void grade(RATINGS[i]);
  }
});

host.on('state', (s) => {
  state = s;
  render();
  $('review').focus();
});
host.ready();
