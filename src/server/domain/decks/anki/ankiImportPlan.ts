import type { StoredSchedule } from '../deckScheduling';
import type { AnkiCollection, AnkiNote } from './ankiCollection';
import { scheduleFromAnki } from './ankiSchedule';
import { clozeNumbers, clozeQuestion, htmlToText, imageNames, revealClozes, tagToHashtag } from './ankiText';

/**
 * An Anki collection mapped onto what the bridge stores: each note a card of
 * a study set (title from the first field, the other fields as its body,
 * `<img>` media as image parts, tags as hashtags), each note's first Anki card
 * a review card of a deck (a deck holds one review card per study-set card),
 * with its scheduling. Pure: no store, no files.
 */

export interface PlannedReview {
  ankiCardId: number;
  /** null: automatic (the card's title asks); else custom text, a cloze kept as `{{cN::…}}`. */
  question: string | null;
  schedule: StoredSchedule;
}

export interface PlannedNote {
  guid: string;
  title: string;
  body: string;
  hashtags: string[];
  /** Media names of the note's pictures, in field order. */
  images: string[];
  review: PlannedReview | null;
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
  skipped: ImportSkip[];
}

const TITLE_MAX = 1000;
const TOPIC_TITLE_MAX = 200;
const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|svg)$/i;

export function planImport(col: AnkiCollection, now: Date): ImportPlan {
  const skipped: ImportSkip[] = [];
  const cardsByNote = new Map<number, AnkiCollection['cards']>();
  for (const c of col.cards) {
    const list = cardsByNote.get(c.nid);
    if (list) list.push(c);
    else cardsByNote.set(c.nid, [c]);
  }
  const deckCounts = new Map<string, number>();
  const notes: PlannedNote[] = [];
  const seen = new Set<string>();
  for (const n of col.notes) {
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
    const first = cards[0];
    for (const extra of cards.slice(1)) {
      skipped.push({
        kind: 'card',
        ref: `${n.guid}#${extra.ord}`,
        reason: `card ${extra.ord + 1} of a note with ${cards.length} cards: a deck holds one review card per study-set card, the first was kept`,
      });
    }
    let review: PlannedReview | null = null;
    if (first) {
      deckCounts.set(first.did, (deckCounts.get(first.did) ?? 0) + 1);
      const cloze = model.cloze ? clozeNumbers(mapped.firstText) : [];
      const question = cloze.length
        ? clozeQuestion(mapped.firstText, cloze.includes(first.ord + 1) ? first.ord + 1 : cloze[0])
        : null;
      review = {
        ankiCardId: first.id,
        question,
        schedule: scheduleFromAnki(first, col.crt, col.lastReview.get(first.id), now),
      };
    }
    for (const img of mapped.images.filter((i) => !IMAGE_EXT.test(i)))
      skipped.push({ kind: 'media', ref: img, reason: 'not a picture format cards show' });
    notes.push({
      guid: n.guid,
      title: mapped.title,
      body: mapped.body,
      hashtags: mapped.hashtags,
      images: mapped.images.filter((i) => IMAGE_EXT.test(i)),
      review,
    });
  }
  const topDeck = [...deckCounts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const name = (topDeck !== undefined ? col.decks.get(topDeck) : undefined) ?? 'Anki import';
  const deckName = name.replace(/::/g, ' / ').trim().slice(0, TOPIC_TITLE_MAX) || 'Anki import';
  return { deckName, notes, skipped };
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
