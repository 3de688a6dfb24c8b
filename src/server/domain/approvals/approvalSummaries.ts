import type { Store } from '../../ground/store/store';

/**
 * One line each for the person deciding an agent's destructive call: what
 * would be lost, in counts they can judge ("delete 12 cards, 3 of them in
 * review decks"). Read-only; an id that names nothing says so (the call
 * itself would then answer 404).
 */
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** From the notes/delete dry-run: cards used by review decks are hidden rather than deleted. */
export function describeCardDelete(dryRun: Record<string, unknown> | undefined): string {
  const cards = (dryRun?.cards as Array<{ outcome: string; descendants: number }> | undefined) ?? [];
  const inDecks = cards.filter((c) => c.outcome === 'hidden').length;
  return `delete ${plural(cards.length, 'card')}${inDecks ? `, ${inDecks} of them in review decks` : ''}`;
}

export function describeSetDelete(store: Store, topicid: string, forGood: boolean): string {
  const set = store.get<{ title: string; kind: string }>('SELECT title, kind FROM topics WHERE topicid = ?', [topicid]);
  if (!set) return `delete study set ${topicid} (not found)`;
  const cards =
    store.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ? AND hidden = 0', [topicid])?.n ?? 0;
  const inDecks =
    store.get<{ n: number }>(
      'SELECT count(DISTINCT d.source_note_id) AS n FROM deck_cards d JOIN notes n ON n.noteid = d.source_note_id WHERE n.topicid = ?',
      [topicid],
    )?.n ?? 0;
  const what = set.kind === 'deck' ? 'deck' : 'study set';
  return `delete ${what} "${set.title}" with ${plural(cards, 'card')}${inDecks ? `, ${inDecks} of them in review decks` : ''}${forGood ? ', for good' : ''}`;
}

export function describeDocumentDelete(store: Store, bookmd5: string): string {
  const doc = store.get<{ filename: string; page_count: number }>(
    'SELECT filename, page_count FROM documents WHERE bookmd5 = ?',
    [bookmd5],
  );
  if (!doc) return `delete document ${bookmd5} (not found)`;
  const sets =
    store.get<{ n: number }>('SELECT count(*) AS n FROM topic_documents WHERE bookmd5 = ?', [bookmd5])?.n ?? 0;
  return `delete "${doc.filename}" (${plural(doc.page_count, 'page')}) from the library${sets ? `, used by ${plural(sets, 'study set')}` : ''}`;
}

/** From the restore dry-run. */
export function describeRestore(dryRun: Record<string, unknown> | undefined): string {
  const d = dryRun ?? {};
  const edits = Array.isArray(d.changedNodes) ? d.changedNodes.length : 0;
  return `restore "${String(d.snapshotLabel ?? d.snapshotId)}": ${String(d.currentNoteCount)} cards now become the snapshot's ${String(d.noteCountInSnapshot)}, overwriting the person's edits to ${plural(edits, 'card')}`;
}

export function previousImport(store: Store, bundleId: string): { version: number; cards: number } | undefined {
  const row = store.get<{ version: number; root_note_id: string | null; topicid: string }>(
    'SELECT version, root_note_id, topicid FROM bundles WHERE bundle_id = ?',
    [bundleId],
  );
  if (!row || row.version < 1) return undefined;
  const cards = store.get<{ n: number }>(
    `WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT n.noteid FROM notes n JOIN t ON n.parent_id = t.id) SELECT count(*) AS n FROM t`,
    [row.root_note_id ?? ''],
  )?.n;
  return { version: row.version, cards: row.root_note_id ? (cards ?? 0) : 0 };
}

export function describeReplaceImport(store: Store, bundleId: string): string {
  const prev = previousImport(store, bundleId);
  return prev
    ? `replace the earlier import of bundle ${bundleId} (version ${prev.version}, ${plural(prev.cards, 'card')}) with a new tree`
    : `import bundle ${bundleId}`;
}
