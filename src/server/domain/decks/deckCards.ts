import { invalidInput, notFound, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { inList, recordOperation, type Db } from '../cards/noteRows';
import { aliveIds, resolveNote, type DeckCardRow, type QuestionMode } from './deckCardRows';
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

export interface NewDeckCard {
  sourceNoteId: string;
  question?: string;
  questionContentId?: string;
  title?: string;
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
