import { invalidInput, notFound, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import type { WriteTx, Store } from '../../ground/store/store';
import { inList, recordOperation } from '../cards/noteRows';
import type { Decks } from '../library/decks';
import { nowIso } from '../library/ids';
import { studyDay } from './deckOptions';
import { deckOptionsOf } from './deckPresets';
import { newSchedule, parseSchedule } from './deckScheduling';
import type { DeckCardRow } from './deckCardRows';

/**
 * Card management as Anki's browser has it: suspend and unsuspend, bury
 * until the next study day, flag (0 none, 1..7 Anki's colours), forget (back
 * to new, the review log kept unless asked), and set due date in Anki's
 * syntax ("0" today, "3-7" a day in that range, "10!" also sets the interval).
 * Each call is one transaction over cards of one deck; all or nothing.
 */

export type CardAction =
  | { kind: 'suspend' }
  | { kind: 'unsuspend' }
  | { kind: 'bury' }
  | { kind: 'flag'; flag: number }
  | { kind: 'forget'; keepLog: boolean }
  | { kind: 'set-due'; days: string };

/** Anki's set-due-date text: "N", "N-M" (inclusive range), each optionally ending in "!". */
export const DUE_DAYS = /^(\d{1,5})(?:-(\d{1,5}))?(!)?$/;

export function parseDueDays(text: string): { from: number; to: number; setInterval: boolean } | undefined {
  const m = DUE_DAYS.exec(text.trim());
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (to < from) return undefined;
  return { from, to, setInterval: m[3] === '!' };
}

interface CardState {
  cardNoteId: string;
  queue: 'suspended' | 'buried' | null;
  buriedUntil: string | null;
  flag: number;
  leech: boolean;
  due: string;
  state: number;
}

type Row = DeckCardRow & { queue: string | null; buried_until: string | null; flag: number; leech: number };

const view = (r: Row): CardState => ({
  cardNoteId: r.card_note_id,
  queue: (r.queue as CardState['queue']) ?? null,
  buriedUntil: r.queue === 'buried' ? r.buried_until : null,
  flag: r.flag,
  leech: !!r.leech,
  due: r.due_at ?? r.created_at,
  state: parseSchedule(r.fsrs, r.due_at ?? r.created_at).state,
});

export class CardActions {
  constructor(
    private readonly store: Store,
    private readonly decks: Decks,
  ) {}

  async apply(deckId: string, cardNoteIds: readonly string[], action: CardAction, actor: Actor, now = new Date()) {
    const at = nowIso();
    const ids = [...new Set(cardNoteIds)];
    const expected = await this.store.write((tx) => {
      this.decks.get(deckId);
      const rows = this.rows(tx, deckId, ids);
      const missing = ids.filter((id) => !rows.some((r) => r.card_note_id === id));
      if (missing.length)
        throw notFound(
          'CARD_NOT_FOUND',
          `No review card ${missing.join(', ')} in deck ${deckId}; GET /decks/{id}/cards lists them. Nothing was changed.`,
          { missing, deckId },
        );
      const options = deckOptionsOf(tx, deckId).options;
      const day = studyDay(now, options.dayStartHour);
      for (const r of rows) this.change(tx, r, action, { now, day, at });
      if (action.kind === 'forget' && !action.keepLog)
        tx.run(`DELETE FROM review_logs WHERE card_note_id IN ${inList(ids.length)}`, ids);
      recordOperation(tx, { topicid: deckId, kind: `card-${action.kind}`, actor, noteIds: ids, now: at });
      return this.rows(tx, deckId, ids).map(view);
    });
    // Proof: read back outside the transaction.
    const back = this.rows(this.store, deckId, ids).map(view);
    if (JSON.stringify(back) !== JSON.stringify(expected))
      throw saveFailed('The cards were changed but reading them back disagrees; GET /decks/{id}/cards shows them.', {
        deckId,
      });
    return {
      persisted: true as const,
      deckId,
      action: action.kind,
      cards: back.map(({ state: _s, ...c }) => c),
      count: back.length,
    };
  }

  private rows(db: Pick<WriteTx, 'all'>, deckId: string, ids: readonly string[]): Row[] {
    if (!ids.length) return [];
    return db.all<Row>(
      `SELECT * FROM deck_cards WHERE deck_id = ? AND card_note_id IN ${inList(ids.length)} ORDER BY rowid`,
      [deckId, ...ids],
    );
  }

  private change(
    tx: WriteTx,
    r: Row,
    action: CardAction,
    c: { now: Date; day: { start: Date; end: Date }; at: string },
  ) {
    const set = (sql: string, params: unknown[]) =>
      tx.run(`UPDATE deck_cards SET ${sql}, modified_at = ? WHERE card_note_id = ?`, [
        ...params,
        c.at,
        r.card_note_id,
      ] as never);
    switch (action.kind) {
      case 'suspend':
        return set(`queue = 'suspended', buried_until = NULL`, []);
      case 'unsuspend':
        // Back with its schedule as it was; a buried card stays buried.
        return r.queue === 'suspended' ? set('queue = NULL', []) : undefined;
      case 'bury':
        return r.queue === 'suspended'
          ? undefined
          : set(`queue = 'buried', buried_until = ?`, [c.day.end.toISOString()]);
      case 'flag':
        return set('flag = ?', [action.flag]);
      case 'forget': {
        const fresh = newSchedule(c.now);
        return set('fsrs = ?, due_at = ?, leech = 0', [JSON.stringify(fresh), fresh.due]);
      }
      case 'set-due':
        return this.setDue(set, r, action.days, c);
    }
  }

  private setDue(
    set: (sql: string, params: unknown[]) => unknown,
    r: Row,
    text: string,
    c: { now: Date; day: { start: Date; end: Date } },
  ) {
    const d = parseDueDays(text);
    if (!d)
      throw invalidInput(`days "${text}" is not Anki's syntax ("0", "3-7", "10!"). Nothing was changed.`, {
        days: text,
      });
    const n = d.from + Math.floor(Math.random() * (d.to - d.from + 1));
    // Due at the start of that study day, so it is among that day's cards (today: due at once).
    const start = c.day.start;
    const due = new Date(start.getFullYear(), start.getMonth(), start.getDate() + n, start.getHours());
    const schedule = parseSchedule(r.fsrs, r.due_at ?? r.created_at);
    const next = {
      ...schedule,
      due: due.toISOString(),
      ...(d.setInterval && schedule.state !== 0 ? { scheduled_days: n } : {}),
    };
    return set('fsrs = ?, due_at = ?', [JSON.stringify(next), next.due]);
  }
}
