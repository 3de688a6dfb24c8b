import { invalidInput, notFound } from '../../errors';
import type { Store, WriteTx } from '../../ground/store/store';
import { newId, nowIso } from './ids';

export interface StudySetSummary {
  topicid: string;
  title: string;
  isStudySet: true;
  rootNoteId: string | null;
  noteCount: number;
  documentCount: number;
  mainDocument: string | null;
  createdAt: string;
  modifiedAt: string;
}

interface TopicRow {
  topicid: string;
  title: string;
  root_note_id: string | null;
  created_at: string;
  modified_at: string;
  note_count: number;
  document_count: number;
  main_document: string | null;
}

const SELECT_SETS = `
SELECT t.topicid, t.title, t.root_note_id, t.created_at, t.modified_at,
  (SELECT count(*) FROM notes n WHERE n.topicid = t.topicid AND n.hidden = 0) AS note_count,
  (SELECT count(*) FROM topic_documents d WHERE d.topicid = t.topicid) AS document_count,
  (SELECT d.bookmd5 FROM topic_documents d WHERE d.topicid = t.topicid AND d.is_main = 1) AS main_document
FROM topics t
WHERE t.kind = 'studyset' AND t.hidden = 0`;

const toSummary = (r: TopicRow): StudySetSummary => ({
  topicid: r.topicid,
  title: r.title,
  isStudySet: true,
  rootNoteId: r.root_note_id,
  noteCount: r.note_count,
  documentCount: r.document_count,
  mainDocument: r.main_document,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

/** 404 TOPIC_NOT_FOUND for no (visible) topic; 422 IS_A_DECK for a review deck's id: the ids are not interchangeable. */
export function assertStudySet(store: Pick<Store, 'get'>, topicid: string): void {
  const t = store.get<{ kind: string }>('SELECT kind FROM topics WHERE topicid = ? AND hidden = 0', [topicid]);
  if (!t) throw notFound('TOPIC_NOT_FOUND', `No study set ${topicid}. GET /library/study-sets lists them.`);
  if (t.kind === 'deck')
    throw invalidInput(
      `${topicid} is a review deck, not a study set: use the /decks routes.`,
      { topicid },
      'IS_A_DECK',
    );
}

/** Writes a new set's root card: the card rows are domain/cards/rows/'s, handed in since the library sits below the cards. */
export type RootCardWriter = (tx: WriteTx, r: { noteid: string; topicid: string; title: string; now: string }) => void;

/** Study sets (decks are topics too, but never listed here). */
export class StudySets {
  constructor(
    private readonly store: Store,
    private readonly writeRootCard: RootCardWriter,
  ) {}

  list(query?: string): StudySetSummary[] {
    const rows = query
      ? this.store.all<TopicRow>(
          `${SELECT_SETS} AND instr(lower(t.title), lower(?)) > 0 ORDER BY t.created_at, t.topicid`,
          [query],
        )
      : this.store.all<TopicRow>(`${SELECT_SETS} ORDER BY t.created_at, t.topicid`);
    return rows.map(toSummary);
  }

  /** The set, or 404 TOPIC_NOT_FOUND; a review deck's id → 422 IS_A_DECK (the ids are not interchangeable). */
  get(topicid: string): StudySetSummary {
    const row = this.store.get<TopicRow>(`${SELECT_SETS} AND t.topicid = ?`, [topicid]);
    if (row) return toSummary(row);
    assertStudySet(this.store, topicid);
    throw notFound('TOPIC_NOT_FOUND', `No study set ${topicid}.`);
  }

  /** A new set is empty but for one root card bearing its title. */
  async create(title: string): Promise<StudySetSummary> {
    const topicid = newId();
    const rootNoteId = newId();
    const now = nowIso();
    await this.store.write((tx) => {
      tx.run(
        `INSERT INTO topics(topicid, kind, title, root_note_id, created_at, modified_at) VALUES (?, 'studyset', ?, ?, ?, ?)`,
        [topicid, title, rootNoteId, now, now],
      );
      this.writeRootCard(tx, { noteid: rootNoteId, topicid, title, now });
    });
    return this.get(topicid);
  }
}
