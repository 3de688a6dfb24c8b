import type { Actor } from '../../actor';
import { recordOperation } from '../../cards/noteRows';
import { newId } from '../../library/ids';
import { cardIndexBody } from '../../search/cardIndexText';
import type { WriteTx, Store } from '../../store/store';
import type { ImportPlan, PlannedNote } from './ankiImportPlan';

/**
 * The import's one transaction. A note guid seen before (anki_notes) updates
 * its card and review card in place; the rest are new cards under the set's
 * root and new review cards. Pictures imported from Anki are image parts
 * marked `{"ankiMedia": name}`, replaced whole on update (parts made here
 * otherwise are left alone).
 */

const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', svg: 'image/svg+xml' };
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

export async function writeImport(store: Store, plan: ImportPlan, media: ReadonlyMap<string, Uint8Array>, actor: Actor, now: string) {
  return store.write((tx) => {
    const known = knownNotes(tx, plan.notes.map((n) => n.guid));
    const target = targetOf(tx, known, plan.deckName, now);
    let position = (tx.get<{ p: number | null }>('SELECT max(position) + 1 AS p FROM notes WHERE parent_id = ?', [target.rootId])?.p ?? 0);
    const noteIds: string[] = [];
    const cardIds: string[] = [];
    let created = 0;
    let updated = 0;
    let mediaCount = 0;
    for (const n of plan.notes) {
      const prior = known.get(n.guid);
      const noteid = prior && prior.topicid === target.topicid ? prior.noteid : undefined;
      let id: string;
      if (noteid) {
        id = noteid;
        updateNote(tx, id, n, now);
        updated++;
      } else {
        id = newId();
        tx.run(
          `INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [id, target.topicid, target.rootId, position++, n.title, now, now],
        );
        writeContent(tx, id, n);
        created++;
      }
      mediaCount += writeImages(tx, id, n, media);
      tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [id, target.topicid, cardIndexBody([n.title, n.body, ...n.hashtags.map((h) => `#${h}`)].join('\n'))]);
      tx.run('INSERT OR REPLACE INTO anki_notes(guid, noteid, topicid, deck_id, imported_at) VALUES (?, ?, ?, ?, ?)', [n.guid, id, target.topicid, target.deckId, now]);
      noteIds.push(id);
      if (n.review) cardIds.push(writeReview(tx, target.deckId, id, n, now));
    }
    recordOperation(tx, { topicid: target.topicid, kind: 'anki-import', actor, noteIds, now });
    recordOperation(tx, { topicid: target.deckId, kind: 'deck-cards', actor, noteIds: cardIds, now });
    return { deckId: target.deckId, topicid: target.topicid, notes: plan.notes.length, created, updated, cards: cardIds.length, media: mediaCount };
  });
}

function knownNotes(tx: WriteTx, guids: readonly string[]): Map<string, Known> {
  const out = new Map<string, Known>();
  for (let i = 0; i < guids.length; i += 500) {
    const chunk = guids.slice(i, i + 500);
    for (const r of tx.all<Known>(
      `SELECT a.guid, a.noteid, a.topicid, a.deck_id FROM anki_notes a
       JOIN notes n ON n.noteid = a.noteid AND n.hidden = 0
       JOIN topics s ON s.topicid = a.topicid AND s.hidden = 0
       JOIN topics d ON d.topicid = a.deck_id AND d.hidden = 0 AND d.kind = 'deck'
       WHERE a.guid IN (${chunk.map(() => '?').join(',')})`,
      chunk,
    )) out.set(r.guid, r);
  }
  return out;
}

/** The set and deck of the notes imported before (most of them), else a new set and deck. */
function targetOf(tx: WriteTx, known: ReadonlyMap<string, Known>, title: string, now: string): Target {
  const votes = new Map<string, number>();
  for (const k of known.values()) votes.set(`${k.topicid} ${k.deck_id}`, (votes.get(`${k.topicid} ${k.deck_id}`) ?? 0) + 1);
  const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (best) {
    const [topicid, deckId] = best.split(' ');
    const rootId = tx.get<{ root_note_id: string }>('SELECT root_note_id FROM topics WHERE topicid = ?', [topicid])!.root_note_id;
    return { topicid, rootId, deckId };
  }
  const topicid = newId();
  const rootId = newId();
  const deckId = newId();
  tx.run(`INSERT INTO topics(topicid, kind, title, root_note_id, created_at, modified_at) VALUES (?, 'studyset', ?, ?, ?, ?)`, [topicid, title, rootId, now, now]);
  tx.run(`INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, NULL, 0, ?, ?, ?)`, [rootId, topicid, title, now, now]);
  tx.run(`INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)`, [rootId, topicid, cardIndexBody(title)]);
  tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'deck', ?, ?, ?)`, [deckId, title, now, now]);
  return { topicid, rootId, deckId };
}

function writeContent(tx: WriteTx, id: string, n: PlannedNote): void {
  if (n.body) tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 0, ?, 0, 'text')`, [id, n.body]);
  for (const h of n.hashtags) tx.run('INSERT OR IGNORE INTO note_hashtags(noteid, path) VALUES (?, ?)', [id, h]);
}

/** An update keeps the card's comments and its own parts; title, body, hashtags and Anki pictures follow the package. */
function updateNote(tx: WriteTx, id: string, n: PlannedNote, now: string): void {
  tx.run('UPDATE notes SET title = ?, modified_at = ? WHERE noteid = ?', [n.title, now, id]);
  tx.run('DELETE FROM note_texts WHERE noteid = ? AND idx = 0', [id]);
  tx.run('DELETE FROM note_hashtags WHERE noteid = ?', [id]);
  tx.run(`DELETE FROM note_parts WHERE noteid = ? AND kind = 'image' AND json_extract(data, '$.ankiMedia') IS NOT NULL`, [id]);
  tx.run('DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE c0noteid = ?)', [id]);
  writeContent(tx, id, n);
}

function writeImages(tx: WriteTx, id: string, n: PlannedNote, media: ReadonlyMap<string, Uint8Array>): number {
  let idx = (tx.get<{ m: number | null }>('SELECT max(idx) AS m FROM note_parts WHERE noteid = ?', [id])?.m ?? -1) + 1;
  let count = 0;
  for (const name of n.images) {
    const bytes = media.get(name);
    if (!bytes) continue;
    tx.run('INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      `anki-${newId()}`,
      id,
      idx++,
      'image',
      mimeOf(name),
      JSON.stringify({ ankiMedia: name }),
      bytes,
    ]);
    count++;
  }
  return count;
}

/** The note's review card: its scheduling from the package (an update takes the package's state). */
function writeReview(tx: WriteTx, deckId: string, noteid: string, n: PlannedNote, now: string): string {
  const r = n.review!;
  const existing = tx.get<{ card_note_id: string }>('SELECT card_note_id FROM deck_cards WHERE deck_id = ? AND source_note_id = ?', [deckId, noteid]);
  const fsrs = JSON.stringify(r.schedule);
  if (existing) {
    tx.run('UPDATE deck_cards SET question = ?, question_content_id = NULL, question_index = ?, fsrs = ?, due_at = ?, modified_at = ? WHERE card_note_id = ?', [
      r.question,
      r.question === null ? 0 : null,
      fsrs,
      r.schedule.due,
      now,
      existing.card_note_id,
    ]);
    return existing.card_note_id;
  }
  const cardId = newId();
  tx.run(
    `INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, question, question_content_id, question_index, title, fsrs, due_at, created_at, modified_at)
     VALUES (?, ?, ?, ?, NULL, ?, NULL, ?, ?, ?, ?)`,
    [cardId, deckId, noteid, r.question, r.question === null ? 0 : null, fsrs, r.schedule.due, now, now],
  );
  return cardId;
}
