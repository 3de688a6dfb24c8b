/// <reference lib="dom" />
import type { ReviewAppState } from '../../server/api/mcp/reviewCard';
import { clear, drawCardHtml, el } from '../pageDom';

/**
 * The review card as the MCP App draws it: the question, Show answer, then
 * the answer (text and its page picture) and the four grades with their next
 * intervals. Pure drawing: main.ts owns the state and the host.
 */

export type Rating = 'again' | 'hard' | 'good' | 'easy';
export const RATINGS: readonly Rating[] = ['again', 'hard', 'good', 'easy'];
const LABEL: Record<Rating, string> = { again: 'Again', hard: 'Hard', good: 'Good', easy: 'Easy' };

export interface Shown {
  state: ReviewAppState;
  /** The pictures as data: URLs (read from the tool result's image content). */
  questionImage?: string;
  answerImage?: string;
  /** The pictures the card HTML names, as data: URLs by media name. */
  pictures?: Record<string, string>;
  revealed: boolean;
  busy: boolean;
  message?: { text: string; kind: 'info' | 'error' };
}

export interface Handlers {
  reveal(): void;
  grade(rating: Rating): void;
}

const picture = (src: string, alt: string) => {
  const img = el('img', 'picture');
  img.src = src;
  img.alt = alt;
  return img;
};

function answerPart(shown: Shown): HTMLElement {
  const { card } = shown.state;
  const a = card!.answer;
  const box = el('section', 'answer');
  box.setAttribute('aria-label', 'Answer');
  if (a.title && a.title !== card!.question.text) box.append(el('h2', 'answer-title', a.title));
  if (shown.answerImage) box.append(picture(shown.answerImage, a.page ? `The excerpt on page ${a.page}` : 'Answer'));
  if (a.html) {
    // The bridge's sanitised card HTML, drawn as it is.
    const body = el('div', a.excerpt ? 'body excerpt' : 'body');
    drawCardHtml(body, a.html, shown.pictures);
    box.append(body);
  } else if (a.body) box.append(el('p', a.excerpt ? 'body excerpt' : 'body', a.body));
  if (a.excerpt && a.page) box.append(el('p', 'muted', `Excerpt of p. ${a.page}`));
  for (const c of a.comments) box.append(el('p', 'comment', c));
  if (!card!.sourceAlive) box.append(el('p', 'muted', 'The card this one reads is gone: its stored text shows.'));
  return box;
}

function gradeButtons(shown: Shown, on: Handlers): HTMLElement {
  const row = el('div', 'grades');
  row.setAttribute('role', 'group');
  row.setAttribute('aria-label', 'Grade this card');
  for (const r of RATINGS) {
    const b = el('button', `grade ${r}`);
    b.type = 'button';
    b.dataset.rating = r;
    b.disabled = shown.busy;
    b.append(el('span', 'interval', shown.state.card!.nextIntervals[r]), el('span', 'label', LABEL[r]));
    b.setAttribute('aria-label', `${LABEL[r]}: next in ${shown.state.card!.nextIntervals[r]}`);
    b.addEventListener('click', () => on.grade(r));
    row.append(b);
  }
  return row;
}

export function render(root: HTMLElement, shown: Shown, on: Handlers): void {
  clear(root);
  const { state } = shown;
  const head = el('header', 'bar');
  head.append(el('strong', 'deck', state.deck.title), el('span', 'muted', `${state.dueCount} due`));
  root.append(head);
  if (shown.message) root.append(el('p', `message ${shown.message.kind}`, shown.message.text));
  const card = state.card;
  if (!card) {
    const when = state.nextDueAt ? `Next card due ${new Date(state.nextDueAt).toLocaleString()}.` : 'No cards yet.';
    root.append(el('p', 'done', `Nothing due now. ${when}`));
    return;
  }
  const q = el('section', 'question');
  q.setAttribute('aria-label', 'Question');
  if (shown.questionImage) q.append(picture(shown.questionImage, 'Question'));
  else if (card.question.html) {
    const text = el('div', 'question-text');
    drawCardHtml(text, card.question.html, shown.pictures);
    q.append(text);
  } else q.append(el('p', 'question-text', card.question.text));
  root.append(q);
  if (!shown.revealed) {
    const show = el('button', 'show', 'Show answer');
    show.type = 'button';
    show.addEventListener('click', () => on.reveal());
    root.append(show);
    return;
  }
  root.append(el('hr', 'divider'), answerPart(shown), gradeButtons(shown, on));
}
