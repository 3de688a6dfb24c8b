import { invalidInput, notFound, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { inList, recordOperation, type Db } from '../cards/noteRows';
import type { Decks } from '../library/decks';
import { newId, nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import { newSchedule } from './deckScheduling';
import { listDeckCards } from './deckCardList';

/**
 * Review cards of a deck. A review card is a `deck_cards` row (not a note)
 * that reads a card of a study set: its front is the source's title
 * (automatic), a custom text (`question`, where `{{cloze}}` marks the hidden
 * answer) or one content part of the card (`questionContentId`); its back is
 * the card's body. A reference copy is read through its original
 * (`resolvedNoteId`). The FSRS state lives in `deck_cards.fsrs`, the due date
 * in `deck_cards.due_at` (ISO strings, so they sort as text).
 */

export type QuestionMode = 'automatic' | 'custom_text' | 'content_part';

export interface NewDeckCard {
  sourceNoteId: string;
  question?: string;
  questionContentId?: string;
  title?: string;
}

export interface DeckCardRow {
  card_note_id: string;
  deck_id: string;
  source_note_id: string;
  question: string | null;
  question_content_id: string | null;
  question_index: number | null;
  title: string | null;
  fsrs: string | null;
  due_at: string | null;
  created_at: string;
  modified_at: string;
  /** NULL: studied; 'suspended' | 'buried' (cardActions.ts). */
  queue?: string | null;
  buried_until?: string | null;
  flag?: number;
  leech?: number;
}

/** One card of an add request, checked against the library. */
interface AddPlan {
  card: NewDeckCard;
  resolvedNoteId: string;
  existing: DeckCardRow | undefined;
  mode: QuestionMode;
  questionIndex: number | null;
  questionPart: { kind: string; partIndex: number | null; questionIndex: number | null; hasImageOcclusions: false };
}

export const modeOf = (r: Pick<DeckCardRow, 'question' | 'question_content_id'>): QuestionMode =>
  r.question_content_id ? 'content_part' : r.question !== null ? 'custom_text' : 'automatic';

/** The card a (possibly reference-copied) card reads: follows `reference_of` to the original, hidden rows included. */
export function resolveNote(db: Db, noteid: string): string {
  let id = noteid;
  for (let hop = 0; hop < 16; hop++) {
    const next = db.get<{ reference_of: string | null }>('SELECT reference_of FROM notes WHERE noteid = ?', [
      id,
    ])?.reference_of;
    if (!next || next === id) break;
    id = next;
  }
  return id;
}

/** Visible cards of visible study sets among `ids`. */
export function aliveIds(db: Db, ids: readonly string[]): Set<string> {
  const unique = [...new Set(ids)];
  const alive = new Set<string>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    for (const r of db.all<{ noteid: string }>(
      `SELECT n.noteid FROM notes n JOIN topics t ON t.topicid = n.topicid
       WHERE n.hidden = 0 AND t.hidden = 0 AND t.kind = 'studyset' AND n.noteid IN ${inList(chunk.length)}`,
      chunk,
    ))
      alive.add(r.noteid);
  }
  return alive;
}

export class DeckCards {
  constructor(
    private readonly store: Store,
    private readonly decks: Decks,
  ) {}

  /** The deck's review cards by due date, then creation (deckCardList.ts). */
  list(deckId: string, opts: { dueOnly?: boolean; now?: Date } = {}) {
    return listDeckCards(this.store, this.decks, deckId, opts);
  }

  /** The dry-run: what an add would do, after the same checks, changing nothing. */
  previewAdd(deckId: string, cards: readonly NewDeckCard[]) {
    this.decks.get(deckId);
    const plans = this.plan(this.store, deckId, cards);
    return {
      wouldAdd: plans.map((p) => ({
        sourceNoteId: p.card.sourceNoteId,
        resolvedNoteId: p.resolvedNoteId,
        updatedExisting: !!p.existing,
        questionMode: p.mode,
        questionPart: p.questionPart,
      })),
    };
  }

  /** Adds review cards; a source already in the deck is updated and rescheduled (a fresh card, due now). */
  async add(deckId: string, cards: readonly NewDeckCard[], actor: Actor) {
    const now = nowIso();
    const written = await this.store.write((tx) => {
      this.decks.get(deckId);
      const plans = this.plan(tx, deckId, cards);
      const schedule = newSchedule(new Date(now));
      const fsrsJson = JSON.stringify(schedule);
      const out = plans.map((p) => {
        const c = p.card;
        const values = [
          c.question ?? null,
          c.questionContentId ?? null,
          p.questionIndex,
          c.title ?? null,
          fsrsJson,
          schedule.due,
          now,
        ];
        const cardNoteId = p.existing?.card_note_id ?? newId();
        if (p.existing) {
          tx.run(
            'UPDATE deck_cards SET question = ?, question_content_id = ?, question_index = ?, title = ?, fsrs = ?, due_at = ?, modified_at = ? WHERE card_note_id = ?',
            [...values, cardNoteId],
          );
        } else {
          tx.run(
            `INSERT INTO deck_cards(question, question_content_id, question_index, title, fsrs, due_at, modified_at, card_note_id, deck_id, source_note_id, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [...values, cardNoteId, deckId, c.sourceNoteId, now],
          );
        }
        return { cardNoteId, plan: p, values };
      });
      recordOperation(tx, { topicid: deckId, kind: 'deck-cards', actor, noteIds: out.map((o) => o.cardNoteId), now });
      return out;
    });
    // Proof: read every row back and compare with what was asked.
    const persisted = written.every(({ cardNoteId, values }) => {
      const r = this.store.get<DeckCardRow>('SELECT * FROM deck_cards WHERE card_note_id = ? AND deck_id = ?', [
        cardNoteId,
        deckId,
      ]);
      return (
        !!r &&
        [r.question, r.question_content_id, r.question_index, r.title, r.fsrs, r.due_at, r.modified_at].every(
          (v, i) => v === values[i],
        )
      );
    });
    if (!persisted)
      throw saveFailed(
        'The review cards were written but reading them back disagrees; GET /decks/{id}/cards shows what is stored.',
        { deckId },
      );
    return {
      persisted: true as const,
      deckId,
      cards: written.map(({ cardNoteId, plan: p, values }) => ({
        cardNoteId,
        sourceNoteId: p.card.sourceNoteId,
        resolvedNoteId: p.resolvedNoteId,
        updatedExisting: !!p.existing,
        questionMode: p.mode,
        ...(p.mode === 'automatic' ? { autoQuestionIndex: 0 } : {}),
        due: values[5] as string,
      })),
      count: written.length,
    };
  }

  /** Checks every card of an add request (all or nothing) and works out what each would become. */
  private plan(db: Db, deckId: string, cards: readonly NewDeckCard[]): AddPlan[] {
    const ids = cards.map((c) => c.sourceNoteId);
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (twice.length)
      throw invalidInput(
        `sourceNoteId ${[...new Set(twice)].join(', ')} is listed more than once; each source is one review card. Nothing was changed.`,
        { duplicates: [...new Set(twice)] },
      );

    const alive = aliveIds(db, ids);
    const missing = ids.filter((id) => !alive.has(id));
    if (missing.length) {
      const reviewCards = db
        .all<{ card_note_id: string }>(
          `SELECT card_note_id FROM deck_cards WHERE card_note_id IN ${inList(missing.length)}`,
          missing,
        )
        .map((r) => r.card_note_id);
      const why = reviewCards.length
        ? ` (${reviewCards.join(', ')} ${reviewCards.length > 1 ? 'are review cards' : 'is a review card'}: a source must be a card of a study set)`
        : '';
      throw notFound('NOTE_NOT_FOUND', `No visible card ${missing.join(', ')}${why}. Nothing was changed.`, {
        missing,
        reviewCards,
      });
    }

    return cards.map((card): AddPlan => {
      const resolvedNoteId = resolveNote(db, card.sourceNoteId);
      const existing = db.get<DeckCardRow>('SELECT * FROM deck_cards WHERE deck_id = ? AND source_note_id = ?', [
        deckId,
        card.sourceNoteId,
      ]);
      if (card.questionContentId !== undefined) {
        const part = db.get<{ idx: number; kind: string }>(
          `SELECT idx, kind FROM note_parts WHERE content_id = ? AND noteid IN (?, ?)`,
          [card.questionContentId, card.sourceNoteId, resolvedNoteId],
        );
        if (!part) {
          throw invalidInput(
            `${card.questionContentId} is not a content part of card ${card.sourceNoteId}; POST /notes/batch-get lists its parts[]. Nothing was changed.`,
            {
              sourceNoteId: card.sourceNoteId,
              questionContentId: card.questionContentId,
            },
            'CONTENT_NOT_FOUND',
          );
        }
        return {
          card,
          resolvedNoteId,
          existing,
          mode: 'content_part',
          questionIndex: part.idx,
          questionPart: { kind: part.kind, partIndex: part.idx, questionIndex: part.idx, hasImageOcclusions: false },
        };
      }
      if (card.question !== undefined) {
        return {
          card,
          resolvedNoteId,
          existing,
          mode: 'custom_text',
          questionIndex: null,
          questionPart: { kind: 'custom_text', partIndex: null, questionIndex: null, hasImageOcclusions: false },
        };
      }
      // Automatic: the card's title (index 0) is the question, its body the answer.
      return {
        card,
        resolvedNoteId,
        existing,
        mode: 'automatic',
        questionIndex: 0,
        questionPart: { kind: 'title', partIndex: null, questionIndex: 0, hasImageOcclusions: false },
      };
    });
  }
}
