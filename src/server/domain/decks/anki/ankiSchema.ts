import type { DeckOptions } from '../deckOptions';
import { fieldRequirements } from './ankiCardgen';
import { dconfEntry } from './ankiDeckConfig';
import type { AnkiModel } from './ankiNotetypes';

/**
 * Anki's legacy collection layout (schema 11, what "Support older Anki
 * versions" writes and every Anki 2.1+ and AnkiDroid opens): the tables, and
 * the JSON the col row carries (note types, decks, deck options, settings).
 * Two note types, Basic and Cloze, with fixed ids so a second export maps
 * onto the note types the first one created in Anki; imported note types
 * go back out under their own ids.
 */

export const ANKI_SCHEMA = `
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null, dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_notes_usn on notes (usn);
CREATE INDEX ix_cards_usn on cards (usn);
CREATE INDEX ix_revlog_usn on revlog (usn);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_cards_sched on cards (did, queue, due);
CREATE INDEX ix_revlog_cid on revlog (cid);
CREATE INDEX ix_notes_csum on notes (csum);
`;

export const BASIC_MODEL_ID = 1_716_000_000_001;
export const CLOZE_MODEL_ID = 1_716_000_000_002;

const CSS =
  '.card {\n font-family: arial;\n font-size: 20px;\n text-align: center;\n color: black;\n background-color: white;\n}\n.cloze {\n font-weight: bold;\n color: blue;\n}\nimg { max-width: 100%; }\n';
const LATEX_PRE =
  '\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n';

const field = (name: string, ord: number) => ({
  name,
  ord,
  sticky: false,
  rtl: false,
  font: 'Arial',
  size: 20,
  media: [],
});
const template = (name: string, qfmt: string, afmt: string, ord = 0) => ({
  name,
  ord,
  qfmt,
  afmt,
  bqfmt: '',
  bafmt: '',
  did: null,
  bfont: '',
  bsize: 0,
});

function model(
  id: number,
  name: string,
  type: 0 | 1,
  fields: string[],
  tmpls: Array<ReturnType<typeof template>>,
  deckId: number,
  mod: number,
  css = CSS,
) {
  return {
    id,
    name,
    type,
    mod,
    usn: -1,
    sortf: 0,
    did: deckId,
    tmpls,
    flds: fields.map(field),
    css,
    latexPre: LATEX_PRE,
    latexPost: '\\end{document}',
    latexsvg: false,
    // Older Anki makes cards from these: computed as Anki computes them, not 'any of the first field'.
    req: tmpls.map((t) => [t.ord, ...fieldRequirements(fields, t.qfmt)]),
    tags: [],
    vers: [],
  };
}

/** Our Basic and Cloze note types, and the imported ones (`kept`) the exported notes still use. */
export function modelsJson(deckId: number, mod: number, kept: readonly AnkiModel[] = []): string {
  const imported = Object.fromEntries(
    kept.map((m) => [
      m.id,
      model(
        Number(m.id),
        m.name,
        m.cloze ? 1 : 0,
        m.fields,
        m.templates.map((t) => template(t.name, t.qfmt, t.afmt, t.ord)),
        deckId,
        mod,
        m.css || CSS,
      ),
    ]),
  );
  return JSON.stringify({
    ...imported,
    [BASIC_MODEL_ID]: model(
      BASIC_MODEL_ID,
      'Basic (Study Bridge)',
      0,
      ['Front', 'Back'],
      [template('Card 1', '{{Front}}', '{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}')],
      deckId,
      mod,
    ),
    [CLOZE_MODEL_ID]: model(
      CLOZE_MODEL_ID,
      'Cloze (Study Bridge)',
      1,
      ['Text', 'Back Extra'],
      [template('Cloze', '{{cloze:Text}}', '{{cloze:Text}}<br>\n{{Back Extra}}')],
      deckId,
      mod,
    ),
  });
}

function deck(id: number, name: string, mod: number) {
  return {
    id,
    name,
    desc: '',
    mod,
    usn: -1,
    collapsed: false,
    browserCollapsed: false,
    newToday: [0, 0],
    revToday: [0, 0],
    lrnToday: [0, 0],
    timeToday: [0, 0],
    dyn: 0,
    conf: 1,
    extendNew: 0,
    extendRev: 0,
  };
}

export function decksJson(deckId: number, name: string, mod: number): string {
  return JSON.stringify({ 1: deck(1, 'Default', mod), [deckId]: deck(deckId, name, mod) });
}

/** The options group (id 1) every exported deck uses: the deck's own options, under its preset's name. */
export function dconfJson(mod: number, options?: DeckOptions, name = 'Default'): string {
  return JSON.stringify({ 1: dconfEntry(1, name, options, mod) });
}

export function confJson(deckId: number, nextPos: number, dayStartHour = 4): string {
  return JSON.stringify({
    // Anki's "next day starts at" (a collection setting in Anki, a deck option here).
    rollover: dayStartHour,
    activeDecks: [deckId],
    curDeck: deckId,
    newSpread: 0,
    collapseTime: 1200,
    timeLim: 0,
    estTimes: true,
    dueCounts: true,
    curModel: BASIC_MODEL_ID,
    nextPos,
    sortType: 'noteFld',
    sortBackwards: false,
    addToCur: true,
  });
}
