import type { Actor } from '../../../actor';
import { recordOperation } from '../../cards/noteRows';
import { newId } from '../../library/ids';
import { cardIndexBody } from '../../../ground/search/cardIndexText';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx, Store } from '../../../ground/store/store';
import { importedTextHash, placeReviewCards, writeAnkiLinks } from './ankiImportCards';
import type { ImportPlan } from './ankiImportPlan';
import { importDeckOptions } from './ankiImportOptions';
import { writeReviews } from './ankiImportReviews';
import { allForIds, ascendingIds, byKey, insertRows, runForIds, updateRows } from './sqlBatches';

/**
 * The import's one transaction. A note guid seen before (anki_notes) updates
 * its card and review card in place; the rest are new cards under the set's
 * root and new review cards. Pictures imported from Anki are image parts
 * marked `{"ankiMedia": name}`, replaced whole on update (parts made here
 * otherwise are left alone). Rows go in as multi-row statements.
 */

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
};
const mimeOf = (name: string) => MIME[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream';

interface Target {
  topicid: string;
  rootId: string;
  deckId: string;
}

interface Known {
  guid: string;
  noteid: string;
  topicid: string;
  deck_id: string;
}

/** The planned notes' rows, each table in one multi-row statement. */
function writeNoteRows(
  tx: WriteTx,
  rows: Record<'notes' | 'texts' | 'tags' | 'parts' | 'fts' | 'links', SqlParam[][]>,
): void {
  insertRows(tx, 'INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at)', rows.notes);
  writeTexts(tx, rows.texts);
  insertRows(tx, 'INSERT OR IGNORE INTO note_hashtags(noteid, path)', rows.tags);
  writeParts(tx, rows.parts);
  insertRows(tx, 'INSERT INTO notes_fts(noteid, topicid, body)', rows.fts);
  insertRows(
    tx,
    'INSERT OR REPLACE INTO anki_notes(guid, noteid, topicid, deck_id, imported_at, mid, fields, text_hash)',
    byKey(rows.links),
  );
}

export async function writeImport(
  store: Store,
  plan: ImportPlan,
  media: ReadonlyMap<string, Uint8Array>,
  actor: Actor,
  now: string,
) {
  return store.write((tx) => {
    const known = knownNotes(
      tx,
      plan.notes.map((n) => n.guid),
    );
    const target = targetOf(tx, known, plan.deckName, now);
    let position =
      tx.get<{ p: number | null }>('SELECT max(position) + 1 AS p FROM notes WHERE parent_id = ?', [target.rootId])
        ?.p ?? 0;
    const fresh = ascendingIds(plan.notes.length);
    const ids = plan.notes.map((n, i) => {
      const prior = known.get(n.guid);
      return prior && prior.topicid === target.topicid
        ? { id: prior.noteid, isNew: false }
        : { id: fresh[i], isNew: true };
    });
    const updatedIds = ids.filter((x) => !x.isNew).map((x) => x.id);
    const nextPart = clearUpdated(tx, plan, ids, updatedIds, now);
    const notes: SqlParam[][] = [];
    const texts: SqlParam[][] = [];
    const tags: SqlParam[][] = [];
    const parts: SqlParam[][] = [];
    const fts: SqlParam[][] = [];
    const links: SqlParam[][] = [];
    let mediaCount = 0;
    plan.notes.forEach((n, i) => {
      const { id, isNew } = ids[i];
      if (isNew) notes.push([id, target.topicid, target.rootId, position++, n.title, now, now]);
      if (n.body) texts.push([id, n.body]);
      for (const h of n.hashtags) tags.push([id, h]);
      let idx = nextPart.get(id) ?? 0;
      for (const name of n.images) {
        const bytes = media.get(name);
        if (!bytes) continue;
        parts.push([`anki-${newId()}`, id, idx++, mimeOf(name), JSON.stringify({ ankiMedia: name }), bytes]);
        mediaCount++;
      }
      fts.push([id, target.topicid, cardIndexBody([n.title, n.body, ...n.hashtags.map((h) => `#${h}`)].join('\n'))]);
      links.push([
        n.guid,
        id,
        target.topicid,
        target.deckId,
        now,
        n.mid,
        JSON.stringify(n.fields),
        importedTextHash(n.title, n.body),
      ]);
    });
    writeNoteRows(tx, { notes, texts, tags, parts, fts, links });
    const noteIds = ids.map((x) => x.id);
    const { sources, childIds } = placeReviewCards(tx, plan, noteIds, target, new Set(updatedIds), now);
    writeAnkiLinks(tx, plan, sources);
    // Options first: a buried card's day ends at the deck's day start.
    const preset = plan.deckConfig ? importDeckOptions(tx, target.deckId, plan.deckConfig, now) : undefined;
    const cardIds = writeReviews(tx, target.deckId, sources, actor, now);
    recordOperation(tx, {
      topicid: target.topicid,
      kind: 'anki-import',
      actor,
      noteIds: [...noteIds, ...childIds],
      now,
    });
    recordOperation(tx, { topicid: target.deckId, kind: 'deck-cards', actor, noteIds: cardIds, now });
    return {
      deckId: target.deckId,
      topicid: target.topicid,
      notes: plan.notes.length,
      created: notes.length,
      updated: updatedIds.length,
      cards: cardIds.length,
      media: mediaCount,
      ...(preset ? { presetId: preset.presetId } : {}),
    };
  });
}

/** Updated cards: title follows the package; body, hashtags, Anki pictures and index row are rewritten by the caller. */
function clearUpdated(
  tx: WriteTx,
  plan: ImportPlan,
  ids: { id: string; isNew: boolean }[],
  updatedIds: string[],
  now: string,
): Map<string, number> {
  updateRows(
    tx,
    'notes',
    'noteid',
    ['title', 'modified_at'],
    plan.notes.flatMap((n, i) => (ids[i].isNew ? [] : [[ids[i].id, n.title, now]])),
  );
  runForIds(tx, 'DELETE FROM note_texts WHERE idx = 0 AND noteid IN $IN', updatedIds);
  runForIds(tx, 'DELETE FROM note_hashtags WHERE noteid IN $IN', updatedIds);
  runForIds(
    tx,
    `DELETE FROM note_parts WHERE kind = 'image' AND json_extract(data, '$.ankiMedia') IS NOT NULL AND noteid IN $IN`,
    updatedIds,
  );
  runForIds(
    tx,
    'DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE c0noteid IN $IN)',
    updatedIds,
  );
  return new Map(
    allForIds<{ noteid: string; m: number }>(
      tx,
      'SELECT noteid, max(idx) + 1 AS m FROM note_parts WHERE noteid IN $IN GROUP BY noteid',
      updatedIds,
    ).map((r) => [r.noteid, r.m]),
  );
}

const writeTexts = (tx: WriteTx, rows: SqlParam[][]) =>
  insertRows(
    tx,
    'INSERT INTO note_texts(noteid, idx, text, excerpt, kind)',
    rows.map(([id, text]) => [id, 0, text, 0, 'text']),
  );

const writeParts = (tx: WriteTx, rows: SqlParam[][]) =>
  insertRows(
    tx,
    'INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob)',
    rows.map(([cid, id, idx, mime, data, blob]) => [cid, id, idx, 'image', mime, data, blob]),
  );

function knownNotes(tx: WriteTx, guids: readonly string[]): Map<string, Known> {
  const rows = allForIds<Known>(
    tx,
    `SELECT a.guid, a.noteid, a.topicid, a.deck_id FROM anki_notes a
     JOIN notes n ON n.noteid = a.noteid AND n.hidden = 0
     JOIN topics s ON s.topicid = a.topicid AND s.hidden = 0
     JOIN topics d ON d.topicid = a.deck_id AND d.hidden = 0 AND d.kind = 'deck'
     WHERE a.guid IN $IN`,
    guids,
  );
  return new Map(rows.map((r) => [r.guid, r]));
}

/** The set and deck of the notes imported before (most of them), else a new set and deck. */
function targetOf(tx: WriteTx, known: ReadonlyMap<string, Known>, title: string, now: string): Target {
  const votes = new Map<string, number>();
  for (const k of known.values())
    votes.set(`${k.topicid} ${k.deck_id}`, (votes.get(`${k.topicid} ${k.deck_id}`) ?? 0) + 1);
  const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (best) {
    const [topicid, deckId] = best.split(' ');
    const rootId = tx.get<{ root_note_id: string }>('SELECT root_note_id FROM topics WHERE topicid = ?', [
      topicid,
    ])!.root_note_id;
    return { topicid, rootId, deckId };
  }
  const topicid = newId();
  const rootId = newId();
  const deckId = newId();
  tx.run(
    `INSERT INTO topics(topicid, kind, title, root_note_id, created_at, modified_at) VALUES (?, 'studyset', ?, ?, ?, ?)`,
    [topicid, title, rootId, now, now],
  );
  tx.run(
    `INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, NULL, 0, ?, ?, ?)`,
    [rootId, topicid, title, now, now],
  );
  tx.run(`INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)`, [rootId, topicid, cardIndexBody(title)]);
  tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'deck', ?, ?, ?)`, [
    deckId,
    title,
    now,
    now,
  ]);
  return { topicid, rootId, deckId };
}
