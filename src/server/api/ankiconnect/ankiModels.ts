import type { Db } from '../../domain/cards/noteRows';
import type { AnkiModel } from '../../domain/decks/anki/ankiNotetypes';
import type { Store } from '../../ground/store/store';
import { AnkiError } from './ankiError';
import { MODELS, type ModelName } from './ankiFields';

/**
 * The note types AnkiConnect sees: the two built in (Basic, Cloze) and those a
 * client made with createModel. A made one is kept where imported note types
 * live (anki_models, as the AnkiModel JSON an export reads), marked
 * `ankiConnect` so that only these, not every type a package brought in, are
 * listed and added to. Every note added (Basic and Cloze too) keeps its type
 * and fields' HTML; its cards are those Anki makes of it (decks/anki/ankiNoteCards.ts).
 */

export const DEFAULT_CSS =
  '.card {\n font-family: arial;\n font-size: 20px;\n text-align: center;\n color: black;\n background-color: white;\n}\n';

/** A note type made by createModel, as stored. */
export interface MadeModel extends AnkiModel {
  ankiConnect: true;
}

/** A note type by name: built in (`made` undefined) or made by a client. */
export interface ResolvedModel {
  name: string;
  /** How its notes are stored and reviewed. */
  kind: ModelName;
  fields: readonly string[];
  templates: Array<{ name: string; qfmt: string; afmt: string }>;
  css: string;
  made?: MadeModel;
}

/**
 * Basic and Cloze as stored note types, ids 1 and 2 (modelNamesAndIds' ids):
 * a note added under them keeps its fields' HTML and its type in anki_notes
 * as a made type's note does, so review renders it through the template.
 * Written to anki_models with the first note; never listed as made.
 */
const builtinModel = (kind: ModelName, id: string, qfmt: string, afmt: string): MadeModel => ({
  id,
  name: kind,
  cloze: kind === 'Cloze',
  fields: [...MODELS[kind]],
  templates: [{ name: kind === 'Cloze' ? 'Cloze' : 'Card 1', ord: 0, qfmt, afmt }],
  css: DEFAULT_CSS,
  ankiConnect: true,
});

const BUILTIN_MODELS: Record<ModelName, MadeModel> = {
  Basic: builtinModel('Basic', '1', '{{Front}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}'),
  Cloze: builtinModel('Cloze', '2', '{{cloze:Text}}', '{{cloze:Text}}<br>\n{{Back Extra}}'),
};
const BUILTIN_IDS = Object.values(BUILTIN_MODELS).map((m) => m.id);

const resolvedOf = (m: MadeModel): ResolvedModel => ({
  name: m.name,
  kind: m.cloze ? 'Cloze' : 'Basic',
  fields: m.fields,
  templates: m.templates,
  css: m.css,
  made: m,
});

const BUILTIN: Record<ModelName, ResolvedModel> = {
  Basic: resolvedOf(BUILTIN_MODELS.Basic),
  Cloze: resolvedOf(BUILTIN_MODELS.Cloze),
};

/** Every stored note type AnkiConnect adds to (made and built in), oldest first. */
function storedModels(db: Db): MadeModel[] {
  return db
    .all<{ model: string }>(
      "SELECT model FROM anki_models WHERE json_valid(model) AND json_extract(model, '$.ankiConnect') = 1 ORDER BY rowid",
    )
    .map((r) => JSON.parse(r.model) as MadeModel);
}

/** The note types made by clients, oldest first. */
export const madeModels = (db: Db): MadeModel[] => storedModels(db).filter((m) => !BUILTIN_IDS.includes(m.id));

export const modelNames = (db: Db): string[] => [...Object.keys(BUILTIN), ...madeModels(db).map((m) => m.name)];

/** The note type called `name`, or AnkiConnect's "model was not found". */
export function modelByName(db: Db, name: unknown): ResolvedModel {
  if (typeof name === 'string' && Object.hasOwn(BUILTIN, name)) return BUILTIN[name as ModelName];
  const made = typeof name === 'string' ? madeModels(db).find((m) => m.name === name) : undefined;
  if (!made) throw new AnkiError(`model was not found: ${String(name)}`);
  return resolvedOf(made);
}

/** Each stored note type (made, and Basic and Cloze) by its id, for reading notes. */
export const madeModelsById = (db: Db): Map<string, MadeModel> =>
  new Map([...Object.values(BUILTIN_MODELS), ...storedModels(db)].map((m) => [m.id, m]));

const nonEmptyText = (v: unknown, what: string, max = 200): string => {
  if (typeof v !== 'string' || !v.trim() || v.length > max)
    throw new AnkiError(`${what} must be text of 1-${max} characters`);
  return v;
};

/** createModel's params checked in AnkiConnect's order, as AnkiConnect words its refusals. */
function checkModelParams(db: Db, p: Record<string, unknown>) {
  const name = nonEmptyText(p.modelName, 'modelName');
  if (!Array.isArray(p.inOrderFields) || p.inOrderFields.length === 0)
    throw new AnkiError('Must provide at least one field for inOrderFields');
  if (!Array.isArray(p.cardTemplates) || p.cardTemplates.length === 0)
    throw new AnkiError('Must provide at least one card for cardTemplates');
  if (modelNames(db).includes(name)) throw new AnkiError('Model name already exists');
  if (p.inOrderFields.length > 100 || p.cardTemplates.length > 100)
    throw new AnkiError('a note type takes at most 100 fields and 100 card templates');
  const fields = p.inOrderFields.map((f) => nonEmptyText(f, 'each of inOrderFields'));
  if (new Set(fields).size !== fields.length) throw new AnkiError('inOrderFields names a field twice');
  const templates = p.cardTemplates.map((raw, ord) => {
    const t = (raw ?? {}) as Record<string, unknown>;
    if (typeof t.Front !== 'string' || typeof t.Back !== 'string')
      throw new AnkiError('each of cardTemplates needs Front and Back, as text');
    if (t.Front.length > 100_000 || t.Back.length > 100_000)
      throw new AnkiError('a card template is over 100,000 characters');
    const tname = t.Name === undefined ? `Card ${ord + 1}` : nonEmptyText(t.Name, 'a card template Name');
    return { name: tname, ord, qfmt: t.Front, afmt: t.Back };
  });
  if (p.css !== undefined && p.css !== null && (typeof p.css !== 'string' || p.css.length > 100_000))
    throw new AnkiError('css must be text of at most 100,000 characters');
  return { name, fields, templates, css: typeof p.css === 'string' ? p.css : DEFAULT_CSS, cloze: p.isCloze === true };
}

/** Anki's notetype dict, as createModel answers it. */
function ankiDict(m: MadeModel) {
  const mod = Math.floor(Date.now() / 1000);
  return {
    sortf: 0,
    did: 1,
    latexPre:
      '\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n',
    latexPost: '\\end{document}',
    mod,
    usn: -1,
    vers: [],
    type: m.cloze ? 1 : 0,
    css: m.css,
    name: m.name,
    flds: m.fields.map((name, ord) => ({ name, ord, sticky: false, rtl: false, font: 'Arial', size: 20, media: [] })),
    tmpls: m.templates.map((t) => ({ ...t, did: null, bqfmt: '', bafmt: '' })),
    tags: [],
    id: Number(m.id),
    req: m.templates.map((t) => [t.ord, 'any', [0]]),
  };
}

/** createModel: a new note type, stored; answers Anki's dict of it. */
export async function createModel(store: Store, p: Record<string, unknown>) {
  const checked = checkModelParams(store, p);
  const model = await store.write((tx) => {
    let id = Date.now();
    while (tx.get('SELECT 1 AS x FROM anki_models WHERE mid = ?', [String(id)])) id++;
    const made: MadeModel = { id: String(id), ...checked, ankiConnect: true };
    tx.run('INSERT INTO anki_models(mid, model) VALUES (?, ?)', [made.id, JSON.stringify(made)]);
    return made;
  });
  return ankiDict(model);
}
