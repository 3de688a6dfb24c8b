import { invalidInput, notFound } from '../../errors';
import type { Store } from '../../ground/store/store';
import { nextDueSql } from '../decks/nextDue';
import { newId, nowIso } from './ids';

export interface DeckSummary {
  deckId: string;
  title: string;
  isDeck: true;
  cardCount: number;
  /** Review cards due now (FSRS due date reached). */
  dueCount: number;
  /** Review cards never reviewed yet. */
  newCount: number;
  /** When the next card not due yet comes due (decks/nextDue.ts, the same in every view); null when none waits. */
  nextDueAt: string | null;
  lastModifiedAt: string;
  createdAt: string;
}

interface DeckRow {
  topicid: string;
  title: string;
  created_at: string;
  modified_at: string;
  card_count: number;
  due_count: number;
  new_count: number;
  next_due_at: string | null;
}

const SELECT_DECKS = `
SELECT t.topicid, t.title, t.created_at, t.modified_at,
  (SELECT count(*) FROM deck_cards c WHERE c.deck_id = t.topicid) AS card_count,
  (SELECT count(*) FROM deck_cards c WHERE c.deck_id = t.topicid AND c.due_at <= ?1
     AND (c.queue IS NULL OR (c.queue = 'buried' AND coalesce(c.buried_until, '') <= ?1))) AS due_count,
  (SELECT count(*) FROM deck_cards c WHERE c.deck_id = t.topicid AND c.state = 0) AS new_count,
  (SELECT ${nextDueSql('c.', '?1')} FROM deck_cards c WHERE c.deck_id = t.topicid) AS next_due_at
FROM topics t WHERE t.kind = 'deck' AND t.hidden = 0`;

const toSummary = (r: DeckRow): DeckSummary => ({
  deckId: r.topicid,
  title: r.title,
  isDeck: true,
  cardCount: r.card_count,
  dueCount: r.due_count,
  newCount: r.new_count,
  nextDueAt: r.next_due_at ?? null,
  lastModifiedAt: r.modified_at,
  createdAt: r.created_at,
});

/** Review decks: topics of kind `deck`, kept apart from study sets (their ids are not interchangeable). */
export class Decks {
  constructor(private readonly store: Store) {}

  list(query?: string): DeckSummary[] {
    const now = nowIso();
    const rows = query
      ? this.store.all<DeckRow>(
          `${SELECT_DECKS} AND instr(lower(t.title), lower(?)) > 0 ORDER BY t.created_at, t.topicid`,
          [now, query],
        )
      : this.store.all<DeckRow>(`${SELECT_DECKS} ORDER BY t.created_at, t.topicid`, [now]);
    return rows.map(toSummary);
  }

  /** The deck, or 404; a study set's id → 422 NOT_A_DECK. */
  get(deckId: string): DeckSummary {
    const row = this.store.get<DeckRow>(`${SELECT_DECKS} AND t.topicid = ?`, [nowIso(), deckId]);
    if (row) return toSummary(row);
    const other = this.store.get<{ kind: string }>('SELECT kind FROM topics WHERE topicid = ? AND hidden = 0', [
      deckId,
    ]);
    if (other)
      throw invalidInput(
        `${deckId} is a study set, not a review deck: use the /study-sets routes.`,
        { deckId },
        'NOT_A_DECK',
      );
    throw notFound('TOPIC_NOT_FOUND', `No review deck ${deckId}. GET /decks lists them.`);
  }

  async create(title: string): Promise<DeckSummary> {
    const deckId = newId();
    const now = nowIso();
    await this.store.write((tx) =>
      tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'deck', ?, ?, ?)`, [
        deckId,
        title,
        now,
        now,
      ]),
    );
    return this.get(deckId);
  }
}
