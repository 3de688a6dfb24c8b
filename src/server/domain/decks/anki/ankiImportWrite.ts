import type { Actor } from '../../../actor';
import { recordOperation } from '../../cards/noteRows';
import { newId } from '../../library/ids';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx, Store } from '../../../ground/store/store';
import { SLICE_END, stepsOf, type WriteSteps } from '../../../ground/store/writeSteps';
import { importedTextHash, placeReviewCardsSteps, writeAnkiLinksSteps } from './ankiImportCards';
import type { ImportPlan } from './ankiImportPlan';
import { importDeckOptions } from './ankiImportOptions';
import { mimeOfName } from './ankiMediaTypes';
import { writeReviewsSteps } from './ankiImportReviews';
import { withoutInsertTriggers } from './ankiImportTriggers';
import { allForIdsSteps, ascendingIds, byKey, insertRowsSteps } from './sqlBatches';
import { insertRootCard, nextChildPosition } from '../../cards/rows/cardRowsInsert';
import {
  clearCardContentSteps,
  insertCardRowsSteps,
  insertIndexRowsSteps,
  updateTitlesSteps,
  type CardRowsBatch,
  type PlannedCardRow,
  type PlannedIndexRow,
  type PlannedImage,
  type PlannedText,
} from '../../cards/rows/cardRowsBatch';

/**
 * The import's one transaction. A note guid seen before (anki_notes) updates
 * its card and review card in place; the rest are new cards under the set's
 * root and new review cards. Pictures imported from Anki are image parts
 * marked `{"ankiMedia": name}`, replaced whole on update (parts made here
 * otherwise are left alone). Rows go in as multi-row statements, in one
 * sliced write (Store.writeSliced): one transaction and one journal record,
 * acknowledged whole or not at all, written in steps of STEP_MS with the
 * event loop served between them (40,000 cards in one turn held it 5-13 s).
 */

/** Time one step of the write holds the event loop. */
const STEP_MS = 40;
/** Planned notes between yields while their rows are planned (JS work only). */
const PLAN_NOTES = 250;
/** Notes whose card rows are made before they are written: one multi-row statement's worth, so their rows die young. */
const NOTES_PER_WRITE = 200;
/** Past this many notes an import's change events are cut anyway (ground/store/rowChanges.ts): its rows go unnoted. */
const UNNOTED_PAST = 1000;

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

/**
 * The notes' card rows, made and written NOTES_PER_WRITE notes at a time (all made first, the copies of every card's
 * text lived long enough to grow the old generation), then their anki_notes links, in key order. Their index rows
 * go to `index`, written after all the import's cards (insertIndexRowsSteps).
 */
function* writeNoteRows(
  tx: WriteTx,
  plan: ImportPlan,
  ids: readonly PlannedIds[],
  nextPart: ReadonlyMap<string, number>,
  media: ReadonlyMap<string, Uint8Array>,
  at: { target: Target; position: number; now: string; index: PlannedIndexRow[] },
): WriteSteps<{ created: number; mediaCount: number }> {
  const links: SqlParam[][] = [];
  let [created, mediaCount, position] = [0, 0, at.position];
  for (let from = 0; from < plan.notes.length; from += NOTES_PER_WRITE) {
    const to = Math.min(plan.notes.length, from + NOTES_PER_WRITE);
    const planned = yield* planNoteRows(plan, ids, nextPart, media, { ...at, position }, from, to);
    const { index = [], ...rows } = planned.rows;
    yield* insertCardRowsSteps(tx, rows);
    for (const row of index) at.index.push(row);
    for (const link of planned.links) links.push(link);
    [created, mediaCount, position] = [
      created + planned.rows.cards.length,
      mediaCount + planned.mediaCount,
      planned.position,
    ];
  }
  yield* insertRowsSteps(
    tx,
    'INSERT OR REPLACE INTO anki_notes(guid, noteid, topicid, deck_id, imported_at, mid, fields, text_hash)',
    byKey(links),
  );
  return { created, mediaCount };
}

interface PlannedIds {
  id: string;
  isNew: boolean;
}

/** Notes `from`..`to`'s card and link rows: new cards under the root from `position` on, updated ones in place. */
function* planNoteRows(
  plan: ImportPlan,
  ids: readonly PlannedIds[],
  nextPart: ReadonlyMap<string, number>,
  media: ReadonlyMap<string, Uint8Array>,
  at: { target: Target; position: number; now: string },
  from: number,
  to: number,
): WriteSteps<{ rows: CardRowsBatch; links: SqlParam[][]; mediaCount: number; position: number }> {
  const { target, now } = at;
  let position = at.position;
  const cards: PlannedCardRow[] = [];
  const texts: PlannedText[] = [];
  const hashtags: { noteid: string; path: string }[] = [];
  const images: PlannedImage[] = [];
  const index: PlannedIndexRow[] = [];
  const links: SqlParam[][] = [];
  for (let i = from; i < to; i++) {
    if (i % PLAN_NOTES === PLAN_NOTES - 1) yield;
    const n = plan.notes[i];
    const { id, isNew } = ids[i];
    if (isNew)
      cards.push({
        noteid: id,
        topicid: target.topicid,
        parentId: target.rootId,
        position: position++,
        title: n.title,
        now,
      });
    if (n.body) texts.push({ noteid: id, idx: 0, text: n.body });
    for (const h of n.hashtags) hashtags.push({ noteid: id, path: h });
    let idx = nextPart.get(id) ?? 0;
    for (const name of n.images) {
      const bytes = media.get(name);
      if (!bytes) continue;
      const data = JSON.stringify({ ankiMedia: name });
      images.push({ contentId: `anki-${newId()}`, noteid: id, idx: idx++, mime: mimeOfName(name), data, bytes });
    }
    index.push({
      noteid: id,
      topicid: target.topicid,
      text: [n.title, n.body, ...n.hashtags.map((h) => `#${h}`)].join('\n'),
    });
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
  }
  return { rows: { cards, texts, hashtags, images, index }, links, mediaCount: images.length, position };
}

export async function writeImport(
  store: Store,
  plan: ImportPlan,
  media: ReadonlyMap<string, Uint8Array>,
  actor: Actor,
  now: string,
) {
  const steps = stepsOf((tx) => importSteps(tx, plan, media, actor, now), STEP_MS);
  return store.writeSliced(steps, plan.notes.length > UNNOTED_PAST ? ['card', 'set', 'deck'] : undefined);
}

function* importSteps(
  tx: WriteTx,
  plan: ImportPlan,
  media: ReadonlyMap<string, Uint8Array>,
  actor: Actor,
  now: string,
) {
  const known = yield* knownNotes(
    tx,
    plan.notes.map((n) => n.guid),
  );
  const target = targetOf(tx, known, plan.deckName, now);
  const position = nextChildPosition(tx, target.rootId);
  const fresh = ascendingIds(plan.notes.length);
  const ids = plan.notes.map((n, i) => {
    const prior = known.get(n.guid);
    return prior && prior.topicid === target.topicid
      ? { id: prior.noteid, isNew: false }
      : { id: fresh[i], isNew: true };
  });
  const updatedIds = ids.filter((x) => !x.isNew).map((x) => x.id);
  const nextPart = yield* clearUpdated(tx, plan, ids, updatedIds, now);
  const noteIds = ids.map((x) => x.id);
  const written = yield* withoutInsertTriggers(
    tx,
    function* (tally) {
      const index: PlannedIndexRow[] = [];
      const at = { target, position, now, index };
      const { created, mediaCount } = yield* writeNoteRows(tx, plan, ids, nextPart, media, at);
      const placed = yield* placeReviewCardsSteps(tx, plan, noteIds, target, new Set(updatedIds), now, index);
      // All the cards' index rows together, in large statements: far fewer FTS4 segments to merge (cardRowsBatch.ts).
      yield* insertIndexRowsSteps(tx, index);
      const { sources, childIds } = placed;
      yield* writeAnkiLinksSteps(tx, plan, sources);
      // Options first: a buried card's day ends at the deck's day start.
      const preset = plan.deckConfig ? importDeckOptions(tx, target.deckId, plan.deckConfig, now) : undefined;
      const cardIds = yield* writeReviewsSteps(tx, target.deckId, sources, { actor, now, tally });
      return { created, mediaCount, childIds, preset, cardIds };
    },
    (out) => [...noteIds, ...out.childIds],
  );
  const { created, mediaCount, childIds, preset, cardIds } = written;
  // Each operation row names every card (60,000 ids in one JSON): a slice of its own, ~0.1 s.
  yield SLICE_END;
  recordOperation(tx, {
    topicid: target.topicid,
    kind: 'anki-import',
    actor,
    noteIds: [...noteIds, ...childIds],
    now,
  });
  yield SLICE_END;
  recordOperation(tx, { topicid: target.deckId, kind: 'deck-cards', actor, noteIds: cardIds, now });
  return {
    deckId: target.deckId,
    topicid: target.topicid,
    notes: plan.notes.length,
    created,
    updated: updatedIds.length,
    cards: cardIds.length,
    media: mediaCount,
    ...(preset ? { presetId: preset.presetId } : {}),
  };
}

/** Updated cards: title follows the package; body, hashtags, Anki pictures and index row are rewritten by the caller. */
function* clearUpdated(
  tx: WriteTx,
  plan: ImportPlan,
  ids: { id: string; isNew: boolean }[],
  updatedIds: string[],
  now: string,
): WriteSteps<Map<string, number>> {
  yield* updateTitlesSteps(
    tx,
    plan.notes.flatMap((n, i): [string, string][] => (ids[i].isNew ? [] : [[ids[i].id, n.title]])),
    now,
  );
  yield* clearCardContentSteps(tx, updatedIds, { body: true, hashtags: true, ankiImages: true, index: true });
  const parts = yield* allForIdsSteps<{ noteid: string; m: number }>(
    tx,
    'SELECT noteid, max(idx) + 1 AS m FROM note_parts WHERE noteid IN $IN GROUP BY noteid',
    updatedIds,
  );
  return new Map(parts.map((r) => [r.noteid, r.m]));
}

function* knownNotes(tx: WriteTx, guids: readonly string[]): WriteSteps<Map<string, Known>> {
  const rows = yield* allForIdsSteps<Known>(
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
  insertRootCard(tx, { noteid: rootId, topicid, title, now });
  tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'deck', ?, ?, ?)`, [
    deckId,
    title,
    now,
    now,
  ]);
  return { topicid, rootId, deckId };
}
