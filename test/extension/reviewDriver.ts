// Drives the review panel's webview from outside (playwright), for the suite's
// review.test.ts: for each card, reads the question, presses Space, reads the
// four intervals, presses the grade's key (1–4); then reads the summary.
// Photographs the whole window (status bar included) at the first question,
// the first answer and the summary.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { sleep, statusBarTexts, until, webviewFrame } from './workbenchFrames';

export interface ReviewAction {
  action: 'review';
  /** One key per card, in session order: '1' again … '4' easy. */
  keys: string[];
  screenshots?: { question: string; answer: string; summary: string };
  /** Wait (at the end) until a Study Bridge status bar item reads this text. */
  expectStatus?: string;
  timeoutMs?: number;
}

export interface ReviewStep {
  position: string;
  question: string;
  /** What each button showed, by label (Again, Hard, Good, Easy). */
  intervals: Record<string, string>;
  answer: string;
}

export interface ReviewSeen {
  steps: ReviewStep[];
  summary: string;
  /** Study Bridge status bar items as rendered at the end. */
  statusBar: string[];
}

export async function serveReview(page: Page, a: ReviewAction, out: string): Promise<ReviewSeen> {
  const timeoutMs = a.timeoutMs ?? 20_000;
  const expectStatus = a.expectStatus;
  const waitStatus = () =>
    expectStatus === undefined
      ? statusBarTexts(page)
      : until(
          async () => {
            const t = await statusBarTexts(page);
            return t.some((x) => x.includes(expectStatus)) ? t : undefined;
          },
          timeoutMs,
          `a status bar item reading "${expectStatus}"`,
        );
  if (!a.keys.length) return { steps: [], summary: '', statusBar: await waitStatus() };
  const screenshots = a.screenshots ?? {
    question: 'review-question.png',
    answer: 'review-answer.png',
    summary: 'review-summary.png',
  };
  const frame = await webviewFrame(page, '#grades', timeoutMs);
  const body = frame.locator('body');
  const shot = async (file: string) => {
    await sleep(300); // layout settles
    await page.screenshot({ path: join(out, file) });
  };
  const steps: ReviewStep[] = [];
  for (const [i, key] of a.keys.entries()) {
    // The (i+1)-th card, question side: the position tells it from the card just graded.
    const position = await until(
      async () => {
        const [status, side, progress] = [
          await body.getAttribute('data-status'),
          await body.getAttribute('data-side'),
          await frame.locator('#progress').innerText(),
        ];
        return status === 'card' && side === 'question' && progress.startsWith(`${i + 1} / `) ? progress : undefined;
      },
      timeoutMs,
      `card ${i + 1}, question side`,
    );
    const question = await frame.locator('#question .text').innerText();
    if (i === 0) await shot(screenshots.question);
    await frame.locator('#review').press('Space');
    await until(
      async () => ((await body.getAttribute('data-side')) === 'answer' ? true : undefined),
      timeoutMs,
      `card ${i + 1}, answer side`,
    );
    const intervals: Record<string, string> = {};
    for (const b of await frame.locator('#grades button.grade').all()) {
      intervals[(await b.locator('.label').innerText()).trim()] = (await b.locator('.interval').innerText()).trim();
    }
    const answer = await frame.locator('#answer').innerText();
    if (i === 0) await shot(screenshots.answer);
    await frame.locator('#review').press(key);
    steps.push({ position, question, intervals, answer });
  }
  await until(
    async () => ((await body.getAttribute('data-status')) === 'summary' ? true : undefined),
    timeoutMs,
    'the session summary',
  );
  const summary = await frame.locator('#summary').innerText();
  const statusBar = await waitStatus();
  await shot(screenshots.summary);
  return { steps, summary, statusBar };
}
