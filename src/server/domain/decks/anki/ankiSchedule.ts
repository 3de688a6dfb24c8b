import { newSchedule, type StoredSchedule } from '../deckScheduling';
import type { AnkiCard, AnkiCardSchedule } from './ankiCollection';

/**
 * Scheduling between an Anki card and our FSRS state. Anki's card types
 * (0 new, 1 learning, 2 review, 3 relearning) are ts-fsrs's State numbers.
 * A review card's due is a day number counted from the collection's
 * creation (`crt`); a learning card's is epoch seconds. The FSRS memory
 * state (stability `s`, difficulty `d`) is the card's `data` JSON where
 * Anki's FSRS wrote one; else stability is the interval and difficulty the
 * middle of FSRS's 1–10 scale.
 */

const DAY_MS = 86_400_000;
const MID_DIFFICULTY = 5;

interface CardData {
  s?: number;
  d?: number;
  lrt?: number;
}

function cardData(json: string): CardData {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as CardData;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

const positive = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;

/** The due instant of an Anki card (ms). */
function ankiDueMs(card: AnkiCard, crtSec: number): number {
  // Learning cards in the intraday queue count epoch seconds; the rest count days from crt.
  if (card.due > 1_000_000_000) return card.due * 1000;
  return (crtSec + card.due * 86_400) * 1000;
}

let lastNew: { at: number; schedule: Readonly<StoredSchedule> } | undefined;

/** A new card's schedule at `now`: one frozen object the new cards of an import share (most of its cards). */
function newAt(now: Date): Readonly<StoredSchedule> {
  if (lastNew?.at !== now.getTime()) lastNew = { at: now.getTime(), schedule: Object.freeze(newSchedule(now)) };
  return lastNew.schedule;
}

/** Our schedule of an imported Anki card; a new card is due at `now` (a shared, frozen schedule). */
export function scheduleFromAnki(
  card: AnkiCard,
  crtSec: number,
  lastReviewMs: number | undefined,
  now: Date,
): Readonly<StoredSchedule> {
  if (card.type === 0 || card.type > 3 || card.type < 0) return newAt(now);
  const data = cardData(card.data);
  const due = ankiDueMs(card, crtSec);
  const ivl = card.type === 2 ? Math.max(1, card.ivl) : 0;
  const last = positive(data.lrt) ? data.lrt! * 1000 : (lastReviewMs ?? due - ivl * DAY_MS);
  return {
    due: new Date(due).toISOString(),
    stability: positive(data.s) ?? Math.max(ivl, 0.1),
    difficulty: positive(data.d) !== undefined ? Math.min(10, Math.max(1, data.d!)) : MID_DIFFICULTY,
    elapsed_days: Math.max(0, Math.round((due - last) / DAY_MS)),
    scheduled_days: ivl,
    learning_steps: 0,
    reps: Math.max(0, card.reps),
    lapses: Math.max(0, card.lapses),
    state: card.type,
    last_review: new Date(last).toISOString(),
  };
}

/** Day number of an instant counted from `crtSec` (the export's collection creation). */
export const dayNumber = (ms: number, crtSec: number) => Math.floor((ms / 1000 - crtSec) / 86_400);

/** An exported card's scheduling; `position` orders new cards. */
export function scheduleToAnki(s: StoredSchedule, crtSec: number, position: number): AnkiCardSchedule {
  const base = { reps: s.reps, lapses: s.lapses, factor: 2500 };
  if (s.state === 0) return { ...base, type: 0, queue: 0, due: position, ivl: 0, data: '' };
  const dueMs = Date.parse(s.due);
  const data = JSON.stringify({ s: round4(s.stability), d: round4(Math.min(10, Math.max(1, s.difficulty))) });
  if (s.state === 2)
    return {
      ...base,
      type: 2,
      queue: 2,
      due: dayNumber(dueMs, crtSec),
      ivl: Math.max(1, Math.round(s.scheduled_days)),
      data,
    };
  // Learning and relearning: due in epoch seconds on the intraday queue.
  return {
    ...base,
    type: s.state,
    queue: 1,
    due: Math.floor(dueMs / 1000),
    ivl: s.state === 3 ? Math.max(1, Math.round(s.scheduled_days)) : 0,
    data,
  };
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
