import type { Actor } from '../../actor';
import { insertNote, recordOperation, reindexNote, type Db } from '../../domain/cards/noteRows';
import { rootCardOf } from '../../domain/cards/noteCreate';
import { insertHashtags, insertImageParts } from '../../domain/cards/rows/cardRowsInsert';
import { deleteParts, setBodyText, setTitle, touchNote } from '../../domain/cards/rows/cardRowsEdit';
import { rewriteNoteCards, setClozeQuestion, writeNoteCards } from '../../domain/decks/anki/ankiNoteCards';
import type { Decks } from '../../domain/library/decks';
import { newId, nowIso } from '../../domain/library/ids';
import type { StudySets } from '../../domain/library/studySets';
import type { Store, WriteTx } from '../../ground/store/store';
import { AnkiError } from './ankiError';
import { clozeParts, fieldsOf, htmlToText, imageNames, MODELS } from './ankiFields';
import { checkCardText, checkFieldSizes } from './ankiLimits';
import { imageTypeOf, type AnkiMedia } from './ankiMedia';
import { readAnkiNotes, type AnkiNote } from './ankiNoteRead';
import type { NotePlan } from './ankiNotePlan';
import { madeCardText, madeFieldValues, rewriteMadeNote, writeMadeNote } from './ankiModelNotes';

/**
 * Notes added through AnkiConnect: each a card of the deck's study set (its
 * title the first field, its body the others, `<img>` media as image parts,
 * tags as hashtags, its type and fields' HTML in anki_notes) and the cards
 * Anki makes of it as review cards of the named deck (ankiNoteCards.ts),
 * written a few dozen notes a transaction. A deck that does not exist yet is
 * made, with a study set of the same title; a deck's study set is the one
 * most of its cards come from.
 */

export interface AnkiNotesDeps {
  store: Store;
  decks: Decks;
  studySets: StudySets;
  media: AnkiMedia;
}

/** The visible deck titled `name` (Anki compares deck names without case). */
export function deckByName(db: Db, name: string): string | undefined {
  return db.get<{ topicid: string }>(
    `SELECT topicid FROM topics WHERE kind = 'deck' AND hidden = 0 AND lower(title) = lower(?) ORDER BY created_at, topicid LIMIT 1`,
    [name],
  )?.topicid;
}

/** The study set the deck's cards mostly come from, else a set titled like the deck. */
export function setOfDeck(db: Db, deckId: string | undefined, title: string): string | undefined {
  const fromCards = deckId
    ? db.get<{ topicid: string }>(
        `SELECT n.topicid FROM deck_cards c JOIN notes n ON n.noteid = c.source_note_id AND n.hidden = 0
         JOIN topics s ON s.topicid = n.topicid AND s.hidden = 0 AND s.kind = 'studyset'
         WHERE c.deck_id = ? GROUP BY n.topicid ORDER BY count(*) DESC, min(c.created_at) LIMIT 1`,
        [deckId],
      )?.topicid
    : undefined;
  return (
    fromCards ??
    db.get<{ topicid: string }>(
      `SELECT topicid FROM topics WHERE kind = 'studyset' AND hidden = 0 AND title = ? ORDER BY created_at, topicid LIMIT 1`,
      [title],
    )?.topicid
  );
}

export class AnkiNotes {
  constructor(private readonly deps: AnkiNotesDeps) {}

  /**
   * Adds planned notes (checked beforehand: nothing here refuses a note), their decks and study sets made first
   * when missing. Written in transactions of CHUNK_MS of work each, so a call of 1,000 notes leaves the event loop
   * free between them (one transaction of 1,000 held it 2-3 s); each is its own undo group.
   */
  async add(plans: readonly NotePlan[], actor: Actor): Promise<string[]> {
    const targets = new Map<string, Target>();
    for (const p of plans) {
      const key = p.deckName.toLowerCase();
      if (!targets.has(key)) targets.set(key, await this.targetOf(p.deckName));
    }
    const now = nowIso();
    const noteIds = plans.map(() => newId());
    const items = plans.map((plan, i) => ({
      plan,
      noteid: noteIds[i],
      target: targets.get(plan.deckName.toLowerCase())!,
    }));
    for (let from = 0; from < items.length;)
      from = await this.deps.store.write((tx) => writeChunk(tx, items, from, actor, now));
    return noteIds;
  }

  /** The deck named (made when missing), its study set (made when missing) and that set's root card. */
  private async targetOf(deckName: string): Promise<Target> {
    const { store, decks, studySets } = this.deps;
    const deckId = deckByName(store, deckName) ?? (await decks.create(deckName)).deckId;
    const topicid = setOfDeck(store, deckId, deckName) ?? (await studySets.create(deckName)).topicid;
    return { deckId, topicid, root: rootCardOf(store, topicid) };
  }

  /** updateNoteFields: the fields given replace the card's title, body, Cloze question and that field's images. */
  async updateFields(noteid: string, fields: Record<string, unknown>, actor: Actor): Promise<void> {
    const note = readAnkiNotes(this.deps.store, [noteid])[0];
    if (!note) throw new AnkiError('note was not found');
    const change = note.made ? this.madeChange(note, fields) : this.builtinChange(note, fields);
    checkCardText(change.title, change.body);
    await this.writeChange(note, change, actor);
  }

  /** A Basic or Cloze note's change: the fields given, and only those. */
  private builtinChange(note: AnkiNote, fields: Record<string, unknown>): FieldChange {
    const given = fieldsOf(note.model, fields);
    checkFieldSizes(given);
    const [first, second] = MODELS[note.model];
    const touched = MODELS[note.model].filter((f) =>
      Object.keys(fields).some((k) => k === f || (k === 'Extra' && f === 'Back Extra')),
    );
    const images = this.picturesOf(touched, given);
    let title: string | undefined;
    let question: string | undefined;
    if (touched.includes(first)) {
      const text = htmlToText(given[first]);
      if (note.model === 'Cloze') {
        const cloze = clozeParts(text);
        if (!cloze.deletions) throw new AnkiError('a Cloze note needs a cloze deletion in Text, like {{c1::…}}');
        [title, question] = [cloze.title, cloze.question];
      } else title = text;
    }
    const body = touched.includes(second) ? htmlToText(given[second]) : undefined;
    return { title, question, body, touched, images };
  }

  /** A made type's note: the fields given over the stored ones, the card's text made again from them all. */
  private madeChange(note: AnkiNote, fields: Record<string, unknown>): FieldChange {
    const model = note.made!.model;
    const resolved = { ...model, kind: model.cloze ? ('Cloze' as const) : ('Basic' as const), made: model };
    const values = madeFieldValues(resolved, fields, note.made!.values);
    const byName = Object.fromEntries(model.fields.map((f, i) => [f, values[i]]));
    checkFieldSizes(byName);
    const touched = model.fields.filter(
      (f) => Object.hasOwn(fields, f) || (f === 'Back Extra' && Object.hasOwn(fields, 'Extra')),
    );
    const images = this.picturesOf(touched, byName);
    const text = madeCardText(resolved, values);
    const question = text.question ?? undefined;
    return { title: text.title, body: text.body, question, touched, images, madeFields: values };
  }

  private picturesOf(touched: readonly string[], given: Record<string, string>): NotePlan['images'] {
    const images: NotePlan['images'] = [];
    for (const field of touched) {
      for (const name of imageNames(given[field])) {
        const bytes = this.deps.media.read(name);
        const mime = bytes && imageTypeOf(bytes);
        if (!bytes || !mime)
          throw new AnkiError(
            `media file ${name} was not found or is not an image: store it with storeMediaFile first`,
          );
        images.push({ field, name, mime, bytes });
      }
    }
    return images;
  }

  private async writeChange(note: AnkiNote, change: FieldChange, actor: Actor): Promise<void> {
    const { title, question, body, touched, images } = change;
    const noteid = note.noteid;
    const now = nowIso();
    await this.deps.store.write((tx) => {
      if (title !== undefined) setTitle(tx, noteid, title);
      if (question !== undefined && !change.madeFields) setClozeQuestion(tx, noteid, question, now);
      if (body !== undefined) setBodyText(tx, noteid, body);
      const stale = tx
        .all<{ content_id: string; data: string | null }>(
          `SELECT content_id, data FROM note_parts WHERE noteid = ? AND kind = 'image'`,
          [noteid],
        )
        .filter((p) => touched.some((f) => p.data?.includes(`"ankiField":${JSON.stringify(f)}`)));
      deleteParts(
        tx,
        stale.map((p) => p.content_id),
      );
      const next =
        tx.get<{ i: number | null }>('SELECT max(idx) + 1 AS i FROM note_parts WHERE noteid = ?', [noteid])?.i ?? 0;
      insertImages(tx, noteid, images, next);
      touchNote(tx, noteid, now);
      reindexNote(tx, noteid);
      recordOperation(tx, { topicid: note.topicid, kind: 'text', actor, noteIds: [noteid], now });
      if (change.madeFields) this.rewriteCards(tx, note, change.madeFields, { title: title!, body: body! }, actor, now);
    });
  }

  /** A stored note's fields and its cards made again: faces renewed, cards the new fields make added. */
  private rewriteCards(
    tx: WriteTx,
    note: AnkiNote,
    fields: string[],
    text: { title: string; body: string },
    actor: Actor,
    now: string,
  ): void {
    rewriteMadeNote(tx, note.noteid, fields, text, now);
    const target = { topicid: note.topicid, deckId: note.decks[0].deckId };
    const cardNote = { noteid: note.noteid, model: note.made!.model, fields, hashtags: note.hashtags };
    const { cardIds, childIds } = rewriteNoteCards(tx, cardNote, target, actor, now);
    if (childIds.length) recordOperation(tx, { topicid: note.topicid, kind: 'text', actor, noteIds: childIds, now });
    if (cardIds.length)
      recordOperation(tx, { topicid: target.deckId, kind: 'deck-cards', actor, noteIds: cardIds, now });
  }
}

/** What updateNoteFields changes: undefined parts stay as they are. */
interface FieldChange {
  title?: string;
  question?: string;
  body?: string;
  touched: readonly string[];
  images: NotePlan['images'];
  /** A made type's note: every field's HTML, to store. */
  madeFields?: string[];
}

/**
 * Time one addNotes transaction spends writing its cards before it closes (their review cards then take about half
 * as long again): a note costs 2-7 ms of SQL, more on a busy machine, so a budget bounds the hold where a count
 * would not.
 */
const CHUNK_MS = 40;

interface Target {
  deckId: string;
  topicid: string;
  root: string;
}

/**
 * Writes `items` from `from` on until CHUNK_MS have passed (one at least): the cards, their Anki notes and review
 * cards, an operation per set and deck touched. Answers the index to go on from.
 */
function writeChunk(
  tx: WriteTx,
  items: readonly { plan: NotePlan; noteid: string; target: Target }[],
  from: number,
  actor: Actor,
  now: string,
): number {
  const started = performance.now();
  let end = from;
  do {
    const { plan: p, noteid, target: t } = items[end++];
    insertNote(tx, { noteid, topicid: t.topicid, parentId: t.root, title: p.title, text: p.body || undefined, now });
    insertHashtags(tx, noteid, p.hashtags);
    insertImages(tx, noteid, p.images, 0);
    const note = { noteid, topicid: t.topicid, deckId: t.deckId, title: p.title, body: p.body, now };
    writeMadeNote(tx, note, p.made, p.made.type);
    reindexNote(tx, noteid);
  } while (end < items.length && performance.now() - started < CHUNK_MS);
  const chunk = items.slice(from, end);
  for (const t of new Set(chunk.map((c) => c.target))) {
    const mine = chunk.filter((c) => c.target === t);
    const notes = mine.map(({ plan, noteid }) => ({
      noteid,
      model: plan.made.type,
      fields: plan.made.fields,
      hashtags: plan.hashtags,
    }));
    const { cardIds, childIds } = writeNoteCards(tx, notes, t, actor, now);
    const created = [...mine.map((c) => c.noteid), ...childIds];
    recordOperation(tx, { topicid: t.topicid, kind: 'create', actor, noteIds: created, now });
    recordOperation(tx, { topicid: t.deckId, kind: 'deck-cards', actor, noteIds: cardIds, now });
  }
  return end;
}

/** Image parts from a client's media, remembering the file name and field (notesInfo gives them back as `<img>`). */
function insertImages(tx: WriteTx, noteid: string, images: NotePlan['images'], firstIdx: number): void {
  insertImageParts(
    tx,
    noteid,
    images.map((img) => ({
      contentId: newId(),
      mime: img.mime,
      data: JSON.stringify({ ankiMedia: img.name, ankiField: img.field }),
      bytes: img.bytes,
    })),
    firstIdx,
  );
}
