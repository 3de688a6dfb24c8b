import { parseSchedule, type StoredSchedule } from '../../domain/decks/deckScheduling';
import type { Db } from '../../domain/cards/noteRows';
import { AnkiError } from './ankiError';
import { MODELS } from './ankiFields';
import { ankiIdOf, prefixRange, uuidPrefixOf } from './ankiIds';
import { ankiFaceHtml } from '../../domain/decks/anki/ankiFaceHtml';
import { fieldValues, noteModel, OWNER_NOTE, readAnkiNotes } from './ankiNoteRead';
import { deckByName } from './ankiNotes';
import { findAnkiNotes } from './ankiNotePages';
import type { ActionDecl } from './ankiActionTypes';

/**
 * AnkiConnect's card actions. An Anki card is a review card of a deck
 * (deck_cards), its id the AnkiConnect id of the review card's id; its note
 * is the study-set card it asks about, or that card's note when it is one of
 * a note's several Anki cards (anki_cards gives its ordinal). Scheduling reads as Anki states it:
 * type/queue 0 new, 1 learning, 2 review, 3 relearning; interval in days;
 * ease factor 2500 (FSRS keeps difficulty, not ease).
 */

interface CardRow {
  card_note_id: string;
  deck_id: string;
  deck_title: string;
  source_note_id: string;
  fsrs: string | null;
  due_at: string | null;
  created_at: string;
  modified_at: string;
}

const CARD_SELECT = `SELECT c.card_note_id, c.deck_id, d.title AS deck_title, c.source_note_id, c.fsrs, c.due_at, c.created_at, c.modified_at
FROM deck_cards c JOIN topics d ON d.topicid = c.deck_id AND d.kind = 'deck' AND d.hidden = 0`;

const cardList = (params: Record<string, unknown>, key = 'cards'): unknown[] => {
  const list = params[key];
  if (!Array.isArray(list)) throw new AnkiError(`${key} must be a list`);
  return list;
};

/** The review card each AnkiConnect card id names (unknown ids left out). */
export function cardsFor(db: Db, ids: readonly unknown[]): Map<unknown, CardRow> {
  const out = new Map<unknown, CardRow>();
  for (const id of ids) {
    // getReviewsOfCards sends ids as strings of digits.
    const prefix = uuidPrefixOf(typeof id === 'string' && /^\d{1,16}$/.test(id) ? Number(id) : id);
    if (!prefix) continue;
    const row = db.get<CardRow>(
      `${CARD_SELECT} WHERE c.card_note_id >= ? AND c.card_note_id < ? LIMIT 1`,
      prefixRange(prefix),
    );
    if (row) out.set(id, row);
  }
  return out;
}

const DAY_MS = 86_400_000;
const scheduleOf = (r: CardRow): StoredSchedule => parseSchedule(r.fsrs, r.due_at ?? r.created_at);
const intervalOf = (s: StoredSchedule) => (s.state === 2 ? Math.max(1, Math.round(s.scheduled_days)) : 0);

/** Anki's due: a new card's position, a review card's day number from today, a learning card's epoch seconds. */
function ankiDue(s: StoredSchedule, position: number): number {
  if (s.state === 0) return position;
  if (s.state === 2) return Math.floor(Date.parse(s.due) / DAY_MS);
  return Math.floor(Date.parse(s.due) / 1000);
}

/** cardsInfo's entry of one review card (`position`: its place among new cards). */
export function cardInfo(db: Db, r: CardRow, position: number) {
  // A child card made for one of a note's several Anki cards answers for that note, with its own ordinal.
  const origin = db.get<{ owner: string; ord: number | null }>(
    `SELECT ${OWNER_NOTE} AS owner, (SELECT ord FROM anki_cards WHERE noteid = c.source_note_id LIMIT 1) AS ord
     FROM deck_cards c WHERE c.card_note_id = ?`,
    [r.card_note_id],
  );
  const owner = origin?.owner ?? r.source_note_id;
  const note = readAnkiNotes(db, [owner])[0];
  const s = scheduleOf(r);
  const model = note ? noteModel(note) : { name: 'Basic', fields: MODELS.Basic };
  const values = note ? fieldValues(note) : {};
  const [front, back] = model.fields;
  const face = ankiFaceHtml(db, r.source_note_id);
  const question = face?.question ?? values[front] ?? '';
  const answer = face?.answer ?? (back === undefined ? '' : (values[back] ?? ''));
  return {
    cardId: ankiIdOf(r.card_note_id)!,
    fields: Object.fromEntries(model.fields.map((f, order) => [f, { value: values[f] ?? '', order }])),
    fieldOrder: 0,
    question,
    answer: `${question}<hr id=answer>${answer}`,
    modelName: model.name,
    ord: Number(origin?.ord ?? 0),
    deckName: r.deck_title,
    css: note?.made?.model.css ?? '',
    factor: 2500,
    interval: intervalOf(s),
    note: ankiIdOf(owner) ?? null,
    type: s.state,
    queue: s.state,
    due: ankiDue(s, position),
    reps: s.reps,
    lapses: s.lapses,
    left: 0,
    mod: Math.floor(Date.parse(r.modified_at) / 1000),
  };
}

/** findCards's ids: the review cards of the notes the query finds, in the order found. */
const findCardIds = async (db: Db, query: unknown) =>
  (await findAnkiNotes(db, query)).flatMap((n) => n.decks.map((d) => ankiIdOf(d.cardNoteId)!));

/** Each review of the cards, as Anki's revlog rows (id = review time in ms, ease 1–4, intervals in days). */
function reviewsOf(db: Db, cardNoteIds: readonly string[]) {
  const out = new Map<string, Array<Record<string, number>>>();
  for (const id of cardNoteIds) {
    const rows = db.all<{
      reviewed_at: string;
      rating: number;
      state_before: number;
      scheduled_days: number;
      due_after: string;
      duration_ms: number | null;
    }>(
      'SELECT reviewed_at, rating, state_before, scheduled_days, due_after, duration_ms FROM review_logs WHERE card_note_id = ? ORDER BY reviewed_at, rowid',
      [id],
    );
    out.set(
      id,
      rows.map((r) => ({
        id: Date.parse(r.reviewed_at),
        usn: -1,
        ease: r.rating,
        ivl: Math.max(0, Math.round((Date.parse(r.due_after) - Date.parse(r.reviewed_at)) / DAY_MS)),
        lastIvl: Math.round(r.scheduled_days),
        factor: 2500,
        time: r.duration_ms ?? 0,
        type: [0, 0, 1, 2][r.state_before] ?? 0,
      })),
    );
  }
  return out;
}

export const CARD_ACTIONS: Record<string, ActionDecl> = {
  findCards: { scope: 'read', run: (p, ctx) => findCardIds(ctx.store, p.query) },
  cardsInfo: {
    scope: 'read',
    run: (p, ctx) => {
      const asked = cardList(p);
      const found = cardsFor(ctx.store, asked);
      // As AnkiConnect: an unknown id gives an empty object in its place.
      return asked.map((id, i) => {
        const r = found.get(id);
        return r ? cardInfo(ctx.store, r, i + 1) : {};
      });
    },
  },
  getEaseFactors: {
    scope: 'read',
    run: (p, ctx) => {
      const found = cardsFor(ctx.store, cardList(p));
      return cardList(p).map((id) => (found.has(id) ? 2500 : null));
    },
  },
  getIntervals: {
    scope: 'read',
    run: (p, ctx) => {
      const asked = cardList(p);
      const found = cardsFor(ctx.store, asked);
      const logs =
        p.complete === true
          ? reviewsOf(
              ctx.store,
              [...found.values()].map((r) => r.card_note_id),
            )
          : null;
      return asked.map((id) => {
        const r = found.get(id);
        if (!r) return null;
        return logs ? (logs.get(r.card_note_id) ?? []).map((l) => l.ivl) : intervalOf(scheduleOf(r));
      });
    },
  },
  getReviewsOfCards: {
    scope: 'read',
    run: (p, ctx) => {
      const asked = cardList(p);
      const found = cardsFor(ctx.store, asked);
      const logs = reviewsOf(
        ctx.store,
        [...found.values()].map((r) => r.card_note_id),
      );
      return Object.fromEntries(asked.map((id) => [String(id), logs.get(found.get(id)?.card_note_id ?? '') ?? []]));
    },
  },
  cardReviews: {
    scope: 'read',
    // [reviewTime, cardID, usn, buttonPressed, newInterval, previousInterval, newFactor, reviewDuration, reviewType]
    run: (p, ctx) => {
      if (typeof p.deck !== 'string') throw new AnkiError('deck must be a deck name');
      const deckId = deckByName(ctx.store, p.deck);
      if (!deckId) throw new AnkiError(`deck was not found: ${p.deck}`);
      const start = typeof p.startID === 'number' ? p.startID : 0;
      const cards = ctx.store
        .all<{ card_note_id: string }>('SELECT card_note_id FROM deck_cards WHERE deck_id = ?', [deckId])
        .map((r) => r.card_note_id);
      const rows: number[][] = [];
      for (const [id, logs] of reviewsOf(ctx.store, cards))
        for (const l of logs)
          if (l.id > start) rows.push([l.id, ankiIdOf(id)!, -1, l.ease, l.ivl, l.lastIvl, 2500, l.time, l.type]);
      return rows.sort((a, b) => a[0] - b[0]);
    },
  },
  getDeckStats: {
    scope: 'read',
    run: (p, ctx) => {
      const names = cardList(p, 'decks');
      const out: Record<string, unknown> = {};
      const now = Date.now();
      for (const name of names) {
        const deckId = typeof name === 'string' ? deckByName(ctx.store, name) : undefined;
        if (!deckId) continue;
        const counts = [0, 0, 0];
        const rows = ctx.store.all<CardRow>(`${CARD_SELECT} WHERE c.deck_id = ?`, [deckId]);
        for (const r of rows) {
          const s = scheduleOf(r);
          if (Date.parse(s.due) > now && s.state !== 0) continue;
          counts[s.state === 0 ? 0 : s.state === 2 ? 2 : 1]++;
        }
        const id = ankiIdOf(deckId) ?? 0;
        out[String(id)] = {
          deck_id: id,
          name: rows[0]?.deck_title ?? name,
          new_count: counts[0],
          learn_count: counts[1],
          review_count: counts[2],
          total_in_deck: rows.length,
        };
      }
      return out;
    },
  },
};
