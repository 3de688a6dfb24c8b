import type { Store } from '../../ground/store/store';
import type { Decks } from '../library/decks';
import { displayTitle } from '../cards/displayTitle';
import { aliveIds, modeOf, resolveNote, type DeckCardRow, type QuestionMode } from './deckCardRows';
import { deckOptionsOf } from './deckPresets';
import { nextIntervals, parseSchedule, viewOf, type ReviewRating, type ScheduleView } from './deckScheduling';

/**
 * GET /decks/{id}/cards: a deck's review cards as the deck list shows them,
 * each with its schedule and the intervals under the four buttons, computed
 * with the deck's own options (desired retention, maximum interval, steps,
 * FSRS weights), as grading and the due queue compute them.
 */

export interface DeckCardView extends ScheduleView {
  cardNoteId: string;
  sourceNoteId: string;
  resolvedNoteId: string;
  sourceAlive: boolean;
  title: string;
  questionMode: QuestionMode;
  question?: string;
  questionContentId?: string;
  nextIntervals: Record<ReviewRating, string>;
  createdAt: string;
  suspended: boolean;
  /** A buried card: when it comes back; null otherwise. */
  buriedUntil: string | null;
  flag: number;
  leech: boolean;
}

/** The deck's review cards by due date, then creation; `dueOnly` keeps those due at `now`. */
export function listDeckCards(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: { dueOnly?: boolean; now?: Date } = {},
): { deckId: string; cards: DeckCardView[]; count: number; dueCount: number } {
  decks.get(deckId);
  const { options } = deckOptionsOf(store, deckId);
  const now = opts.now ?? new Date();
  const nowText = now.toISOString();
  const rows = store.all<DeckCardRow>('SELECT * FROM deck_cards WHERE deck_id = ? ORDER BY due_at, created_at, rowid', [
    deckId,
  ]);
  const resolved = new Map(rows.map((r) => [r.source_note_id, resolveNote(store, r.source_note_id)]));
  const alive = aliveIds(store, [...rows.map((r) => r.source_note_id), ...resolved.values()]);
  const titles = sourceTitles(store, [...resolved.values()], alive);
  const cards = rows.map((r): DeckCardView => {
    const resolvedNoteId = resolved.get(r.source_note_id)!;
    const sourceAlive = alive.has(r.source_note_id) && alive.has(resolvedNoteId);
    const schedule = parseSchedule(r.fsrs, r.due_at ?? r.created_at);
    const mode = modeOf(r);
    // Intervals from now, or from the last review if a client clock placed it later.
    const from = schedule.last_review && schedule.last_review > nowText ? new Date(schedule.last_review) : now;
    return {
      cardNoteId: r.card_note_id,
      sourceNoteId: r.source_note_id,
      resolvedNoteId,
      sourceAlive,
      title: r.title ?? (sourceAlive ? (titles.get(resolvedNoteId) ?? '') : ''),
      questionMode: mode,
      ...(mode === 'custom_text' ? { question: r.question! } : {}),
      ...(mode === 'content_part' ? { questionContentId: r.question_content_id! } : {}),
      ...viewOf(schedule),
      nextIntervals: nextIntervals(schedule, from, options),
      createdAt: r.created_at,
      suspended: r.queue === 'suspended',
      buriedUntil: r.queue === 'buried' && (r.buried_until ?? '') > nowText ? r.buried_until! : null,
      flag: r.flag ?? 0,
      leech: !!r.leech,
    };
  });
  const isDue = (c: DeckCardView) => c.due <= nowText && !c.suspended && !c.buriedUntil;
  const dueCount = cards.filter(isDue).length;
  const shown = opts.dueOnly ? cards.filter(isDue) : cards;
  return { deckId, cards: shown, count: shown.length, dueCount };
}

/** The titles of the (alive) source cards; an untitled one (an excerpt card) shows the first words of its excerpt or body. */
function sourceTitles(store: Store, ids: readonly string[], alive: ReadonlySet<string>): Map<string, string> {
  const titles = new Map<string, string>();
  for (const id of ids) {
    if (!alive.has(id) || titles.has(id)) continue;
    const title = store.get<{ title: string }>('SELECT title FROM notes WHERE noteid = ?', [id])?.title ?? '';
    const lead = title.trim()
      ? undefined
      : store.get<{ text: string }>(
          `SELECT text FROM note_texts WHERE noteid = ? AND trim(text) <> '' ORDER BY excerpt DESC, idx LIMIT 1`,
          [id],
        )?.text;
    titles.set(id, lead === undefined ? title : displayTitle(title, lead));
  }
  return titles;
}
