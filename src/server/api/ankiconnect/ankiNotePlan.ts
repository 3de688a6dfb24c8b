import { hashtagKey } from '../../domain/cards/noteHashtags';
import type { Db } from '../../domain/cards/noteRows';
import { AnkiError } from './ankiError';
import { clozeParts, fieldsOf, htmlToText, imageNames, isModel, MODELS, type ModelName } from './ankiFields';
import { checkCardText, checkDeckName, checkFieldSizes, tagsToHashtags } from './ankiLimits';
import { imageTypeOf, type AnkiMedia } from './ankiMedia';

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
}

const DUPLICATE = 'cannot create note because it is a duplicate';

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
  if (!isModel(n.modelName))
    throw new AnkiError(`model was not found: ${String(n.modelName)} (served: ${Object.keys(MODELS).join(', ')})`);
  if (!n.fields || typeof n.fields !== 'object') throw new AnkiError('note fields are missing');
  const model = n.modelName;
  const fields = fieldsOf(model, n.fields as Record<string, unknown>);
  checkFieldSizes(fields);
  const [first, second] = MODELS[model];
  const images: NotePlan['images'] = [];
  for (const field of [first, second]) {
    for (const name of imageNames(fields[field])) {
      const bytes = deps.media.read(name);
      if (!bytes) throw new AnkiError(`media file ${name} was not found: store it with storeMediaFile first`);
      const mime = imageTypeOf(bytes);
      if (!mime) throw new AnkiError(`media file ${name} is not a PNG, JPEG, GIF or WebP image`);
      images.push({ field, name, mime, bytes });
    }
  }
  const firstText = htmlToText(fields[first]);
  if (!firstText && !images.some((i) => i.field === first))
    throw new AnkiError('cannot create note because it is empty');
  let title = firstText;
  let question: string | null = null;
  if (model === 'Cloze') {
    const cloze = clozeParts(firstText);
    if (!cloze.deletions)
      throw new AnkiError('cannot create note because it has no cloze deletions: mark them in Text as {{c1::…}}');
    [title, question] = [cloze.title, cloze.question];
  }
  const tags = Array.isArray(n.tags) ? n.tags : typeof n.tags === 'string' ? n.tags.split(/\s+/) : [];
  const hashtags = new Map<string, string>();
  for (const path of tagsToHashtags(tags)) if (!hashtags.has(hashtagKey(path))) hashtags.set(hashtagKey(path), path);
  const body = htmlToText(fields[second]);
  checkCardText(title, body);
  const plan: NotePlan = {
    deckName,
    model,
    title,
    body,
    question,
    hashtags: [...hashtags.values()],
    images,
  };
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

  private static key = (model: ModelName, first: string) => `${model}\u0000${first}`;

  private load(): Map<string, Set<string>> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    const rows = this.db.all<{ title: string; question: string | null; deck: string }>(
      `SELECT n.title, c.question, lower(d.title) AS deck FROM deck_cards c
       JOIN topics d ON d.topicid = c.deck_id AND d.kind = 'deck' AND d.hidden = 0
       JOIN notes n ON n.noteid = c.source_note_id AND n.hidden = 0`,
    );
    for (const r of rows) {
      const cloze = r.question !== null && /\{\{\s*cloze\s*\}\}/i.test(r.question);
      this.add(cloze ? 'Cloze' : 'Basic', cloze ? r.question! : r.title, r.deck);
    }
    return this.entries;
  }

  private add(model: ModelName, first: string, deckLower: string): void {
    const k = DuplicateIndex.key(model, first);
    const decks = this.entries!.get(k) ?? new Set<string>();
    decks.add(deckLower);
    this.entries!.set(k, decks);
  }

  has(plan: NotePlan, sameDeck: boolean): boolean {
    const decks = this.load().get(DuplicateIndex.key(plan.model, plan.question ?? plan.title));
    return !!decks && (!sameDeck || decks.has(plan.deckName.toLowerCase()));
  }

  /** A note planned in this call counts for the next ones. */
  remember(plan: NotePlan): void {
    this.load();
    this.add(plan.model, plan.question ?? plan.title, plan.deckName.toLowerCase());
  }
}
