import { BridgeError } from '../../errors';
import type { Store } from '../../ground/store/store';
import {
  fitOffThread,
  packHistories,
  type CardHistory,
  type FitResult,
  type FitStage,
} from '../../ground/fsrs/optimizer';
import type { Decks } from '../library/decks';
import { studyDay } from './deckOptions';
import { DeckPresets } from './deckPresets';
import { DEFAULT_FSRS_WEIGHTS } from './deckScheduling';

/**
 * Anki's Optimize: FSRS's weights fitted to the person's review log (fsrs-rs,
 * on a thread of its own). A preset's weights are fitted to the grades of
 * every deck using it, as Anki fits a preset. The newest fifth of the grades
 * is held out: the fit learns from the rest, and the defaults, the weights in
 * use and the fitted ones are scored (log loss, RMSE over bins) on that tail.
 * The fitted weights are stored with the preset only when they score better
 * than those in use, as Anki keeps the old ones otherwise.
 */

/** Anki's floor: "You must have at least 400 reviews for this operation." */
export const MIN_REVIEWS = 400;
const HELD_OUT = 0.2;

interface History {
  deckId: string;
  presetId: string;
  presetName: string;
  deckIds: string[];
  reviews: number;
  cards: CardHistory[];
  splitAt: number;
  dayStartHour: number;
  relearningSteps: number;
  current: number[] | null;
}

const dayNumber = (ms: number, hour: number) => {
  const s = studyDay(new Date(ms), hour).start;
  return Math.round(Date.UTC(s.getFullYear(), s.getMonth(), s.getDate()) / 86_400_000);
};

/** The grades of the preset's decks, per card, in study days; refuses a history under MIN_REVIEWS. */
export function historyOf(store: Store, decks: Decks, deckId: string): History {
  const presets = new DeckPresets(store, decks);
  const { presetId, name, options } = presets.ofDeck(deckId);
  const deckIds = presets.get(presetId).deckIds;
  const rows = store.all<{ card_note_id: string; rating: number; reviewed_at: string }>(
    `SELECT card_note_id, rating, reviewed_at FROM review_logs WHERE deck_id IN (${deckIds.map(() => '?').join(',')})
       ORDER BY card_note_id, reviewed_at, rowid`,
    deckIds,
  );
  const cards: CardHistory[] = [];
  let last: string | undefined;
  for (const r of rows) {
    const at = Date.parse(r.reviewed_at);
    if (!(r.rating >= 1 && r.rating <= 4) || Number.isNaN(at)) continue;
    if (r.card_note_id !== last) cards.push({ ratings: [], deltaDays: [], at: [] });
    last = r.card_note_id;
    const c = cards[cards.length - 1];
    const prev = c.at.length ? c.at[c.at.length - 1] : undefined;
    c.deltaDays.push(
      prev === undefined ? 0 : dayNumber(at, options.dayStartHour) - dayNumber(prev, options.dayStartHour),
    );
    c.ratings.push(r.rating);
    c.at.push(at);
  }
  const reviews = cards.reduce((n, c) => n + c.at.length, 0);
  if (reviews < MIN_REVIEWS)
    throw new BridgeError(
      'REVIEW_HISTORY_TOO_SHORT',
      422,
      `FSRS's optimizer needs at least ${MIN_REVIEWS} reviews in the decks of preset "${name}"; they have ${reviews}. ` +
        'Keep studying with the defaults and optimize later. Nothing was changed.',
      { reviews, needed: MIN_REVIEWS, cards: cards.length, presetId, deckIds },
    );
  const later = cards.flatMap((c) => c.at.slice(1)).sort((a, b) => a - b);
  const splitAt = later[Math.min(later.length - 1, Math.floor(later.length * (1 - HELD_OUT)))] ?? Infinity;
  return {
    deckId,
    presetId,
    presetName: name,
    deckIds,
    reviews,
    cards,
    splitAt,
    dayStartHour: options.dayStartHour,
    relearningSteps: options.relearningSteps.length,
    current: options.fsrsParameters,
  };
}

/** What the unconfirmed call shows: the history the fit would use (refused when too short). */
export function optimizePreview(store: Store, decks: Decks, deckId: string) {
  const h = historyOf(store, decks, deckId);
  return {
    presetId: h.presetId,
    presetName: h.presetName,
    deckIds: h.deckIds,
    reviews: h.reviews,
    cards: h.cards.length,
    needed: MIN_REVIEWS,
    heldOutFrom: new Date(h.splitAt).toISOString(),
  };
}

export async function optimizeDeck(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: {
    apply: boolean;
    onProgress?: (stage: FitStage, current: number, total: number) => void;
    signal?: AbortSignal;
  },
) {
  const h = historyOf(store, decks, deckId);
  const t0 = performance.now();
  const fit: FitResult = await fitOffThread(
    {
      histories: packHistories(h.cards),
      splitAt: h.splitAt,
      current: h.current,
      numRelearningSteps: h.relearningSteps,
    },
    opts.onProgress ?? (() => undefined),
    opts.signal,
  );
  const fitMs = Math.round(performance.now() - t0);
  const baseline = fit.scores.current ?? fit.scores.default;
  const better = fit.scores.fitted.logLoss < baseline.logLoss;
  const applied = opts.apply && better;
  if (applied)
    await new DeckPresets(store, decks).save({ presetId: h.presetId, options: { fsrsParameters: fit.parameters } });
  return {
    deckId,
    presetId: h.presetId,
    presetName: h.presetName,
    deckIds: h.deckIds,
    reviews: h.reviews,
    cards: h.cards.length,
    trainItems: fit.trainItems,
    testItems: fit.testItems,
    heldOutFrom: new Date(h.splitAt).toISOString(),
    parameters: fit.parameters,
    previousParameters: h.current,
    defaultParameters: [...DEFAULT_FSRS_WEIGHTS],
    scores: fit.scores,
    applied,
    ...(applied
      ? {}
      : {
          notApplied: !opts.apply
            ? 'apply:false was sent'
            : `the fitted weights do not score better on the held-out tail than the ${h.current ? 'weights in use' : 'defaults'}`,
        }),
    fitMs,
  };
}
