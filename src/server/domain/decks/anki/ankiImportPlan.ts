import { drained, inSlices, type WriteSteps } from '../../../ground/store/writeSteps';
import { renderAnkiCard } from './ankiCardFace';
import type { AnkiDeckConfig } from './ankiDeckConfig';
import type { StoredSchedule } from '../deckScheduling';
import type { AnkiCard, AnkiCollection, AnkiModel, AnkiNote } from './ankiCollection';
import type { AnkiRevlog } from './ankiRevlog';
import { scheduleFromAnki } from './ankiSchedule';
import { clozeNumbers, clozeQuestion, htmlToText, imageNames, revealClozes, tagToHashtag } from './ankiText';

/**
 * An Anki collection mapped onto what the bridge stores: each note a card of
 * a study set (title from the first field, the other fields as its body,
 * `<img>` media as image parts, tags as hashtags). A deck holds one review
 * card per study-set card, so a note Anki made one card of is reviewed
 * itself, and a note with several cards (templates, reversed, clozes) gets
 * one child card per Anki card (its rendered front as title, back as body),
 * each reviewed with its own scheduling. Pure: no store, no files.
 */

export interface PlannedReview {
  ankiCardId: number;
  /** Anki's card ordinal: the template, or the cloze number - 1. */
  ord: number;
  /** null: automatic (the card's title asks); else custom text, a cloze kept as `{{cN::…}}`. */
  question: string | null;
  schedule: Readonly<StoredSchedule>;
  /** Anki's queue -1: set aside until unsuspended; -2/-3: buried until the next study day. */
  queue: 'suspended' | 'buried' | null;
  /** Flag colour, 0 none, 1–7. */
  flag: number;
  /** The card's graded reviews, oldest first. */
  revlog: AnkiRevlog[];
  /** Set when the note has several cards: the child card this Anki card becomes. */
  face?: { title: string; body: string };
}

export interface PlannedNote {
  guid: string;
  title: string;
  body: string;
  hashtags: string[];
  /** Media names of the note's pictures, in field order. */
  images: string[];
  /** Anki's cards of the note, by ordinal: one is reviewed on the note's card, more on child cards. */
  reviews: PlannedReview[];
  /** The note type and fields as Anki wrote them, so an export gives the note back whole. */
  mid: string;
  fields: string[];
}

export interface ImportSkip {
  kind: 'card' | 'note' | 'media';
  ref: string;
  reason: string;
}

export interface ImportPlan {
  /** The Anki deck most of the cards are in: the new deck's and study set's title. */
  deckName: string;
  notes: PlannedNote[];
  /** The options group of that deck (Anki's dconf), when the package carries one. */
  deckConfig?: AnkiDeckConfig;
  /** The note types the notes use. */
  models: AnkiModel[];
  skipped: ImportSkip[];
}

const TITLE_MAX = 1000;
const TOPIC_TITLE_MAX = 200;
const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|svg)$/i;

/** Notes mapped between yields (planSteps). */
const PLAN_NOTES = 100;

export const planImport = (col: AnkiCollection, now: Date): ImportPlan => drained(planSteps(col, now));

/** planImport in slices of the event loop (a 20,000-note package took 1.5-3 s in one turn). */
export const planImportSliced = (col: AnkiCollection, now: Date): Promise<ImportPlan> => inSlices(planSteps(col, now));

function* planSteps(col: AnkiCollection, now: Date): WriteSteps<ImportPlan> {
  const skipped: ImportSkip[] = [];
  const cardsByNote = new Map<number, AnkiCollection['cards']>();
  for (const c of col.cards) {
    const list = cardsByNote.get(c.nid);
    if (list) list.push(c);
    else cardsByNote.set(c.nid, [c]);
  }
  const deckCounts = new Map<string, number>();
  const models = new Map<string, AnkiModel>();
  const notes: PlannedNote[] = [];
  const seen = new Set<string>();
  for (const [i, n] of col.notes.entries()) {
    if (i % PLAN_NOTES === PLAN_NOTES - 1) yield;
    const model = col.models.get(n.mid);
    if (!model) {
      skipped.push({ kind: 'note', ref: n.guid, reason: `its note type ${n.mid} is not in the collection` });
      continue;
    }
    if (seen.has(n.guid)) {
      skipped.push({ kind: 'note', ref: n.guid, reason: 'a second note with the same guid' });
      continue;
    }
    seen.add(n.guid);
    const mapped = mapFields(n, model.fields, model.cloze);
    const cards = [...(cardsByNote.get(n.id) ?? [])].sort((a, b) => a.ord - b.ord);
    if (cards[0]) deckCounts.set(cards[0].did, (deckCounts.get(cards[0].did) ?? 0) + 1);
    const reviews = cards.map((c): PlannedReview => {
      const revlog = col.revlog.get(c.id) ?? [];
      const schedule = scheduleFromAnki(c, col.crt, revlog.at(-1)?.id, now);
      const queue: PlannedReview['queue'] =
        c.queue === -1 ? 'suspended' : c.queue === -2 || c.queue === -3 ? 'buried' : null;
      // Whole literals of one shape, not `{ ...own, … }`: V8 gives each spread copy of an object with a
      // double field (the card id) a hidden class of its own (40,000 of them, ~15 MB live, in a 40,000-card import).
      const face = cards.length > 1 ? faceOf(n, model, c, mapped.title) : undefined;
      const cloze = !face && model.cloze ? clozeNumbers(mapped.firstText) : [];
      const question = cloze.length
        ? clozeQuestion(mapped.firstText, cloze.includes(c.ord + 1) ? c.ord + 1 : cloze[0])
        : null;
      return { ankiCardId: c.id, ord: c.ord, question, schedule, queue, flag: c.flags, revlog, face };
    });
    models.set(model.id, model);
    for (const img of mapped.images.filter((i) => !IMAGE_EXT.test(i)))
      skipped.push({ kind: 'media', ref: img, reason: 'not a picture format cards show' });
    notes.push({
      guid: n.guid,
      title: mapped.title,
      body: mapped.body,
      hashtags: mapped.hashtags,
      images: mapped.images.filter((i) => IMAGE_EXT.test(i)),
      reviews,
      mid: model.id,
      fields: n.fields,
    });
  }
  const topDeck = [...deckCounts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const name = (topDeck !== undefined ? col.decks.get(topDeck) : undefined) ?? 'Anki import';
  const deckName = name.replace(/::/g, ' / ').trim().slice(0, TOPIC_TITLE_MAX) || 'Anki import';
  const deckConfig = topDeck !== undefined ? col.deckConfigs.get(topDeck) : undefined;
  return { deckName, notes, models: [...models.values()], skipped, ...(deckConfig ? { deckConfig } : {}) };
}

const ANSWER_RULE = /<hr\b[^>]*\bid\s*=\s*["']?answer["']?[^>]*>/i;

/** One Anki card of a note with several, as a child card: its rendered front as title, what the back adds as body. */
function faceOf(n: AnkiNote, model: AnkiModel, c: AnkiCard, noteTitle: string): { title: string; body: string } {
  const fallback = `${noteTitle.slice(0, 200)} (card ${c.ord + 1})`;
  const faces = renderAnkiCard(
    model,
    { fieldNames: model.fields, fields: n.fields, tags: n.tags, modelName: model.name },
    c.ord,
  );
  if (!faces) return { title: fallback, body: '' };
  const { question, answer } = faces;
  const q = htmlToText(question);
  // Anki's answers repeat the front above <hr id=answer>; the body keeps what comes after.
  const parts = answer.split(ANSWER_RULE);
  let a = htmlToText(parts[parts.length - 1]);
  if (parts.length === 1 && q && a.startsWith(q)) a = a.slice(q.length).trim();
  const title = q.length > TITLE_MAX ? `${q.slice(0, 200)}…` : q;
  return { title: title || fallback, body: a };
}

function mapFields(n: AnkiNote, names: readonly string[], cloze: boolean) {
  const texts = n.fields.map(htmlToText);
  const firstText = texts[0] ?? '';
  let title = cloze ? revealClozes(firstText) : firstText;
  const rest: string[] = [];
  texts.slice(1).forEach((t, i) => {
    if (!t) return;
    // The second field is the answer as it stands; later ones carry their field name.
    rest.push(i === 0 ? t : `${names[i + 1] ?? `Field ${i + 2}`}: ${t}`);
  });
  if (title.length > TITLE_MAX) {
    rest.unshift(title);
    title = `${title.slice(0, 200)}…`;
  }
  const hashtags = [...new Set(n.tags.map(tagToHashtag).filter(Boolean))];
  const images = [...new Set(n.fields.flatMap(imageNames))];
  return { firstText, title, body: rest.join('\n\n'), hashtags, images };
}
