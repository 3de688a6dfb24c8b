import { createHash } from 'node:crypto';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { loadSqlite } from '../../src/server/ground/store/sqlite';

/**
 * Builds .apkg files the way Anki's legacy exporter lays them out (schema 11:
 * col row with models/decks/dconf JSON, notes with \x1f-separated fields and
 * space-padded tags, cards with scheduling and `data`, revlog, a `media` JSON
 * map and media files named 0, 1, …). Written on its own, not from the
 * bridge's exporter, so an import test reads a package the bridge did not make.
 */

export interface BuildCard {
  ord?: number;
  deck?: string;
  /** 0 new, 1 learning, 2 review, 3 relearning. */
  type?: number;
  queue?: number;
  due?: number;
  ivl?: number;
  factor?: number;
  reps?: number;
  lapses?: number;
  data?: string;
  /** Epoch ms of reviews to write to revlog (ease 3, a review). */
  reviews?: number[];
  /** Full revlog rows (id = epoch ms of the review). */
  revlog?: BuildRevlog[];
  /** Anki's flag colour, 0–7. */
  flags?: number;
}

/** One revlog row: ease 1–4 (0 for a manual reschedule), ivl/lastIvl days (negative: seconds), time ms, type 0 learn 1 review 2 relearn 3 filtered 4 manual. */
export interface BuildRevlog {
  id: number;
  ease: number;
  ivl?: number;
  lastIvl?: number;
  time?: number;
  type?: number;
}

export interface BuildNote {
  guid: string;
  model: string;
  fields: string[];
  tags?: string[];
  cards?: BuildCard[];
}

export interface BuildTemplate {
  name?: string;
  qfmt: string;
  afmt: string;
}

export interface BuildModel {
  name: string;
  fields: string[];
  cloze?: boolean;
  /** A count (question `{{field[ord]}}`, answer adds `{{Back}}`) or the templates themselves. */
  templates?: number | BuildTemplate[];
}

function templatesOf(m: BuildModel): Array<Required<BuildTemplate> & { ord: number }> {
  if (Array.isArray(m.templates))
    return m.templates.map((t, ord) => ({ name: t.name ?? `Card ${ord + 1}`, ord, qfmt: t.qfmt, afmt: t.afmt }));
  return Array.from({ length: m.templates ?? 1 }, (_, ord) => ({
    name: `Card ${ord + 1}`,
    ord,
    qfmt: m.cloze ? `{{cloze:${m.fields[0]}}}` : `{{${m.fields[ord % m.fields.length]}}}`,
    afmt: m.cloze ? `{{cloze:${m.fields[0]}}}<br>{{${m.fields[1]}}}` : '{{FrontSide}}<hr id=answer>{{Back}}',
  }));
}

export interface BuildPackage {
  /** Collection creation, epoch seconds (Anki: a day's start). */
  crt: number;
  models: BuildModel[];
  decks: string[];
  notes: BuildNote[];
  media?: Record<string, Uint8Array>;
  /** Name of the collection entry (collection.anki2 or collection.anki21). */
  collectionName?: string;
  /** Extra zip entries (e.g. a collection.anki21b). */
  extra?: Record<string, Uint8Array>;
}

const sha1Int = (s: string) => parseInt(createHash('sha1').update(s).digest('hex').slice(0, 8), 16);

export async function buildCollection(p: BuildPackage): Promise<Uint8Array> {
  const SQL = await loadSqlite(); // the sql.js engine only (found from a bundle too)
  const db = new SQL.Database();
  db.exec(`
CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null, dconf text not null, tags text not null);
CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null);
CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);`);
  const modelIds = new Map(p.models.map((m, i) => [m.name, 1_600_000_000_000 + i]));
  const deckIds = new Map(p.decks.map((d, i) => [d, 1_600_000_100_000 + i]));
  const models: Record<string, unknown> = {};
  for (const m of p.models) {
    const id = modelIds.get(m.name)!;
    models[id] = {
      id,
      name: m.name,
      type: m.cloze ? 1 : 0,
      mod: p.crt,
      usn: -1,
      sortf: 0,
      did: 1,
      flds: m.fields.map((name, ord) => ({ name, ord, sticky: false, rtl: false, font: 'Arial', size: 20 })),
      tmpls: templatesOf(m).map((t) => ({ ...t, did: null })),
      css: '.card {}',
      latexPre: '',
      latexPost: '',
      req: [[0, 'any', [0]]],
      tags: [],
      vers: [],
    };
  }
  const decks: Record<string, unknown> = { 1: { id: 1, name: 'Default', conf: 1, dyn: 0 } };
  for (const [name, id] of deckIds)
    decks[id] = {
      id,
      name,
      conf: 1,
      dyn: 0,
      desc: '',
      collapsed: false,
      newToday: [0, 0],
      revToday: [0, 0],
      lrnToday: [0, 0],
      timeToday: [0, 0],
    };
  db.run('INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)', [
    p.crt,
    p.crt * 1000,
    p.crt * 1000,
    '{"nextPos":1}',
    JSON.stringify(models),
    JSON.stringify(decks),
    JSON.stringify({ 1: { id: 1, name: 'Default' } }),
    '{}',
  ]);
  db.exec('BEGIN');
  const ns = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, ?)');
  const cs = db.prepare('INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?)');
  const rs = db.prepare('INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, 2500, ?, ?)');
  let cardId = 1_700_000_000_000;
  p.notes.forEach((n, i) => {
    const nid = 1_650_000_000_000 + i;
    const first = n.fields[0].replace(/<[^>]*>/g, '');
    ns.run([
      nid,
      n.guid,
      modelIds.get(n.model)!,
      p.crt,
      n.tags?.length ? ` ${n.tags.join(' ')} ` : '',
      n.fields.join('\x1f'),
      first,
      sha1Int(first),
      '',
    ]);
    for (const c of n.cards ?? [{}]) {
      const cid = cardId++;
      cs.run([
        cid,
        nid,
        deckIds.get(c.deck ?? p.decks[0])!,
        c.ord ?? 0,
        p.crt,
        c.type ?? 0,
        c.queue ?? c.type ?? 0,
        c.due ?? i + 1,
        c.ivl ?? 0,
        c.factor ?? (c.type ? 2500 : 0),
        c.reps ?? 0,
        c.lapses ?? 0,
        c.flags ?? 0,
        c.data ?? '',
      ]);
      for (const at of c.reviews ?? []) rs.run([at, cid, 3, c.ivl ?? 0, 0, 6000, 1]);
      for (const r of c.revlog ?? [])
        rs.run([r.id, cid, r.ease, r.ivl ?? 0, r.lastIvl ?? 0, r.time ?? 6000, r.type ?? 1]);
    }
  });
  ns.free();
  cs.free();
  rs.free();
  db.exec('COMMIT');
  const bytes = db.export();
  db.close();
  return bytes;
}

export async function buildApkg(p: BuildPackage): Promise<Uint8Array> {
  const files: Zippable = { [p.collectionName ?? 'collection.anki2']: await buildCollection(p) };
  const map: Record<string, string> = {};
  Object.entries(p.media ?? {}).forEach(([name, bytes], i) => {
    map[String(i)] = name;
    files[String(i)] = [bytes, { level: 0 }];
  });
  files.media = strToU8(JSON.stringify(map));
  Object.assign(files, p.extra ?? {});
  return zipSync(files);
}

/** A day's start (UTC) `daysAgo` days before `now`, in epoch seconds: a collection's crt. */
/** Anki's stock "Basic (and reversed card)" note type: two templates, each side asked once. */
export const BASIC_AND_REVERSED: BuildModel = {
  name: 'Basic (and reversed card)',
  fields: ['Front', 'Back'],
  templates: [
    { qfmt: '{{Front}}', afmt: '{{FrontSide}}<hr id=answer>{{Back}}' },
    { qfmt: '{{Back}}', afmt: '{{FrontSide}}<hr id=answer>{{Front}}' },
  ],
};

export const crtDaysAgo = (daysAgo: number, now = Date.now()) => Math.floor(now / 86_400_000 - daysAgo) * 86_400;

/** A w × h PNG of one colour with a darker frame, written with zlib alone (no canvas: usable in the extension host). */
export function solidPng(w: number, h: number, [r, g, b]: [number, number, number]): Uint8Array {
  const zlib = require('node:zlib') as typeof import('node:zlib');
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0;
    for (let x = 0; x < w; x++) {
      const edge = x < 3 || y < 3 || x >= w - 3 || y >= h - 3;
      const o = y * (w * 3 + 1) + 1 + x * 3;
      raw[o] = edge ? r >> 1 : r;
      raw[o + 1] = edge ? g >> 1 : g;
      raw[o + 2] = edge ? b >> 1 : b;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A zstd frame of raw (stored) blocks: valid zstd any decoder reads, made without an encoder. */
export function zstdStored(data: Uint8Array): Uint8Array {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])]; // magic; no content size; window 128 KiB
  const MAX = 128 * 1024;
  let off = 0;
  do {
    const n = Math.min(MAX, data.length - off);
    const last = off + n >= data.length ? 1 : 0;
    const h = (n << 3) | last; // block type 0: raw
    parts.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), Buffer.from(data.subarray(off, off + n)));
    off += n;
  } while (off < data.length);
  return Buffer.concat(parts);
}

const varint = (n: number) => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};
const lenField = (field: number, bytes: Uint8Array) =>
  Buffer.from([...varint((field << 3) | 2), ...varint(bytes.length), ...bytes]);

/**
 * The newer package (Anki 2.1.50+ without "Support older Anki versions"):
 * collection.anki21b, a zstd schema-18 collection (note types, fields and
 * decks in tables), a stub collection.anki2, a zstd protobuf media list and
 * zstd media files.
 */
export async function buildNewerApkg(p: BuildPackage): Promise<Uint8Array> {
  const SQL = await loadSqlite();
  const db = new SQL.Database(await buildCollection(p));
  db.exec(`
CREATE TABLE notetypes (id integer NOT NULL PRIMARY KEY, name text NOT NULL, mtime_secs integer NOT NULL, usn integer NOT NULL, config blob NOT NULL);
CREATE TABLE fields (ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL, config blob NOT NULL, PRIMARY KEY (ntid, ord)) without rowid;
CREATE TABLE templates (ntid integer NOT NULL, ord integer NOT NULL, name text NOT NULL, mtime_secs integer NOT NULL, usn integer NOT NULL, config blob NOT NULL, PRIMARY KEY (ntid, ord)) without rowid;
CREATE TABLE decks (id integer PRIMARY KEY NOT NULL, name text NOT NULL, mtime_secs integer NOT NULL, usn integer NOT NULL, common blob NOT NULL, kind blob NOT NULL);`);
  const models = JSON.parse(String(db.exec('SELECT models FROM col')[0].values[0][0])) as Record<
    string,
    {
      id: number;
      name: string;
      type: number;
      flds: Array<{ name: string; ord: number }>;
      tmpls: Array<{ name: string; ord: number; qfmt: string; afmt: string }>;
    }
  >;
  const decks = JSON.parse(String(db.exec('SELECT decks FROM col')[0].values[0][0])) as Record<
    string,
    { id: number; name: string }
  >;
  for (const m of Object.values(models)) {
    db.run('INSERT INTO notetypes VALUES (?, ?, 0, -1, ?)', [
      m.id,
      m.name,
      new Uint8Array(m.type === 1 ? [0x08, 0x01] : []),
    ]);
    for (const f of m.flds) db.run('INSERT INTO fields VALUES (?, ?, ?, ?)', [m.id, f.ord, f.name, new Uint8Array([])]);
    // Template config: field 1 the question format, field 2 the answer format.
    for (const t of m.tmpls)
      db.run('INSERT INTO templates VALUES (?, ?, ?, 0, -1, ?)', [
        m.id,
        t.ord,
        t.name,
        Buffer.concat([lenField(1, Buffer.from(t.qfmt, 'utf8')), lenField(2, Buffer.from(t.afmt, 'utf8'))]),
      ]);
  }
  for (const d of Object.values(decks))
    db.run('INSERT INTO decks VALUES (?, ?, 0, -1, ?, ?)', [
      d.id,
      d.name.replace(/::/g, '\x1f'),
      new Uint8Array([]),
      new Uint8Array([]),
    ]);
  db.run("UPDATE col SET models = '', decks = '', dconf = '', ver = 18");
  const collection = db.export();
  db.close();
  const files: Zippable = {
    'collection.anki2': await buildCollection({
      crt: p.crt,
      models: [{ name: 'Basic', fields: ['Front', 'Back'] }],
      decks: ['Default'],
      notes: [
        {
          guid: 'stub',
          model: 'Basic',
          fields: ['Please update to the latest Anki version, then import the .colpkg/.apkg file again.', ''],
        },
      ],
    }),
    'collection.anki21b': zstdStored(collection),
  };
  const entries: Buffer[] = [];
  Object.entries(p.media ?? {}).forEach(([name, bytes], i) => {
    files[String(i)] = [zstdStored(bytes), { level: 0 }];
    entries.push(
      lenField(
        1,
        Buffer.concat([
          lenField(1, Buffer.from(name, 'utf8')),
          Buffer.from([0x10, ...varint(bytes.length)]),
          Buffer.from([0xf8, 0x0f, ...varint(i)]),
        ]),
      ),
    );
  });
  files.media = zstdStored(Buffer.concat(entries));
  return zipSync(files);
}
