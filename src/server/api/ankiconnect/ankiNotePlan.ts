import { hashtagKey } from '../../domain/cards/noteHashtags';
import type { Db } from '../../domain/cards/noteRows';
import { AnkiError } from './ankiError';
import { clozeText, htmlToText, imageNames, type ModelName } from './ankiFields';
import { checkCardText, checkDeckName, checkFieldSizes, tagsToHashtags } from './ankiLimits';
import { imageTypeOf, type AnkiMedia } from './ankiMedia';
import { madeCardText, madeFieldValues } from './ankiModelNotes';
import { madeModelsById, modelByName, modelNames, type MadeModel, type ResolvedModel } from './ankiModels';
import { OWNER_NOTE } from './ankiNoteRead';

/**
 * An addNote `note` checked, within the limits of ankiLimits.ts, and turned
 * into what is written (ankiNotes.ts writes it): its deck, card title and
 * text, hashtags and pictures, or Anki's refusal; duplicates refused as Anki
 * does.
 */

/** A note checked and turned into what is written; nothing written yet. */
export interface NotePlan {
  deckName: string;
  model: ModelName;
  title: string;
  body: string;
  /** Cloze: the review card's question. */
  question: string | null;
  hashtags: string[];
  images: Array<{ field: string; name: string; mime: string; bytes: Buffer }>;
  /** The note's type (made by createModel, or Basic or Cloze): its id and name, and every field's HTML as sent. */
  made: { mid: string; name: string; fields: string[]; type: MadeModel };
}

const DUPLICATE = 'cannot create note because it is a duplicate';

/** The note type a note names, or Anki's refusal naming the types served. */
function resolveModel(db: Db, name: unknown): ResolvedModel {
  try {
    return modelByName(db, name);
  } catch (e) {
    if (e instanceof AnkiError) throw new AnkiError(`${e.message} (served: ${modelNames(db).join(', ')})`);
    throw e;
  }
}

/** The pictures the fields name, read from the media folder; each must be there and be a picture. */
function picturesOf(media: Pick<AnkiMedia, 'read'>, fields: Record<string, string>): NotePlan['images'] {
  const images: NotePlan['images'] = [];
  for (const [field, html] of Object.entries(fields)) {
    for (const name of imageNames(html)) {
      const bytes = media.read(name);
      if (!bytes) throw new AnkiError(`media file ${name} was not found: store it with storeMediaFile first`);
      const mime = imageTypeOf(bytes);
      if (!mime) throw new AnkiError(`media file ${name} is not a PNG, JPEG, GIF or WebP image`);
      images.push({ field, name, mime, bytes });
    }
  }
  return images;
}

type CardPlan = Pick<NotePlan, 'title' | 'body' | 'question' | 'images' | 'made'>;

/** The card a note's fields make: its title from the first field, the others as its body; every field's HTML kept. */
function cardOf(
  deps: { media: Pick<AnkiMedia, 'read'> },
  model: ResolvedModel,
  given: Record<string, unknown>,
): CardPlan {
  const values = madeFieldValues(model, given);
  const fields = Object.fromEntries(model.fields.map((f, i) => [f, values[i]]));
  checkFieldSizes(fields);
  const images = picturesOf(deps.media, fields);
  const text = madeCardText(model, values);
  if (!text.firstText && !images.some((i) => i.field === model.fields[0]))
    throw new AnkiError('cannot create note because it is empty');
  const made = { mid: model.made!.id, name: model.name, fields: values, type: model.made! };
  return { title: text.title, body: text.body, question: text.question, images, made };
}

/** Checks one addNote `note` param and reads its media; AnkiError when Anki would refuse it. */
export function planNote(
  deps: { store: Db; media: Pick<AnkiMedia, 'read'> },
  note: unknown,
  duplicates = new DuplicateIndex(deps.store),
): NotePlan {
  const n = (note ?? {}) as {
    deckName?: unknown;
    modelName?: unknown;
    fields?: unknown;
    tags?: unknown;
    options?: { allowDuplicate?: unknown; duplicateScope?: unknown };
  };
  const deckName = checkDeckName(n.deckName);
  const model = resolveModel(deps.store, n.modelName);
  if (!n.fields || typeof n.fields !== 'object') throw new AnkiError('note fields are missing');
  const card = cardOf(deps, model, n.fields as Record<string, unknown>);
  const tags = Array.isArray(n.tags) ? n.tags : typeof n.tags === 'string' ? n.tags.split(/\s+/) : [];
  const hashtags = new Map<string, string>();
  for (const path of tagsToHashtags(tags)) if (!hashtags.has(hashtagKey(path))) hashtags.set(hashtagKey(path), path);
  checkCardText(card.title, card.body);
  const plan: NotePlan = { deckName, model: model.kind, ...card, hashtags: [...hashtags.values()] };
  if (n.options?.allowDuplicate !== true && duplicates.has(plan, n.options?.duplicateScope === 'deck'))
    throw new AnkiError(DUPLICATE);
  return plan;
}

/**
 * The first fields of the notes already there (and of those planned before in
 * the same call), to refuse duplicates as Anki does: same note type, same
 * first field, anywhere (or in the same deck, for duplicateScope "deck").
 * One read per call, not one per note.
 */
export class DuplicateIndex {
  private entries?: Map<string, Set<string>>;

  constructor(private readonly db: Db) {}

  private static key = (model: string, first: string) => `${model}\u0000${first}`;

  private load(): Map<string, Set<string>> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    // A note of a stored type counts under that type's name (Anki compares within a note type), by its first field.
    const types = madeModelsById(this.db);
    const rows = this.db.all<{
      title: string;
      question: string | null;
      deck: string;
      mid: string | null;
      fields: string | null;
    }>(
      `SELECT n.title, c.question, lower(d.title) AS deck, a.mid, a.fields FROM deck_cards c
       JOIN topics d ON d.topicid = c.deck_id AND d.kind = 'deck' AND d.hidden = 0
       JOIN notes n ON n.noteid = ${OWNER_NOTE} AND n.hidden = 0
       LEFT JOIN anki_notes a ON a.noteid = n.noteid`,
    );
    for (const r of rows) {
      const type = r.mid ? types.get(r.mid) : undefined;
      if (type && r.fields) {
        const first = htmlToText((JSON.parse(r.fields) as string[])[0] ?? '');
        this.add(type.name, first, r.deck);
        continue;
      }
      // A note stored before types were: its Cloze text made again from the title and question.
      const cloze = r.question !== null && /\{\{\s*cloze\s*\}\}/i.test(r.question);
      this.add(cloze ? 'Cloze' : 'Basic', cloze ? clozeText(r.title, r.question!) : r.title, r.deck);
    }
    return this.entries;
  }

  private add(model: string, first: string, deckLower: string): void {
    const k = DuplicateIndex.key(model, first);
    const decks = this.entries!.get(k) ?? new Set<string>();
    decks.add(deckLower);
    this.entries!.set(k, decks);
  }

  /** Anki compares the whole first field, a cloze's answers and numbers too (rslib notes is_duplicate). */
  private static firstOf = (plan: NotePlan) => htmlToText(plan.made.fields[0] ?? '');

  has(plan: NotePlan, sameDeck: boolean): boolean {
    const decks = this.load().get(DuplicateIndex.key(plan.made?.name ?? plan.model, DuplicateIndex.firstOf(plan)));
    return !!decks && (!sameDeck || decks.has(plan.deckName.toLowerCase()));
  }

  /** A note planned in this call counts for the next ones. */
  remember(plan: NotePlan): void {
    this.load();
    this.add(plan.made?.name ?? plan.model, DuplicateIndex.firstOf(plan), plan.deckName.toLowerCase());
  }
}
