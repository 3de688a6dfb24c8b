import type { Store } from '../store/store';

export type SearchScope = 'all' | 'notes' | 'studysets' | 'documents';

/**
 * User words → an FTS4 query on the `body` column: every word must match,
 * each as a prefix. Words are letters and digits only, lower-cased, so no FTS
 * syntax (quotes, -, OR, NEAR) in what the user typed is read as an operator.
 */
export function ftsQuery(q: string): string | undefined {
  const words = q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 16);
  return words.length ? words.map((w) => `body:${w}*`).join(' ') : undefined;
}

/**
 * Searches cards, study-set titles and document text. The full-text indexes
 * are written in the same transaction as what they index, so a write is
 * searchable as soon as it is acknowledged.
 */
export class LibrarySearch {
  constructor(private readonly store: Store) {}

  search(q: string, scope: SearchScope, limit: number) {
    const match = ftsQuery(q);
    const like = `%${q.trim().toLowerCase()}%`;
    const want = (s: SearchScope) => scope === 'all' || scope === s;
    // One more than asked tells whether the window was too short.
    const take = limit + 1;

    const notes = want('notes') && match
      ? this.store.all<{ noteid: string; topicid: string; title: string; snippet: string; setTitle: string | null }>(
          `SELECT f.noteid, f.topicid, n.title, snippet(notes_fts, '[', ']', '…', 2, 12) AS snippet, t.title AS setTitle
           FROM notes_fts f JOIN notes n ON n.noteid = f.noteid LEFT JOIN topics t ON t.topicid = f.topicid
           WHERE notes_fts MATCH ? AND n.hidden = 0 LIMIT ?`,
          [match, take],
        )
      : [];
    const studySets = want('studysets')
      ? this.store.all<{ topicid: string; title: string }>(
          `SELECT topicid, title FROM topics WHERE kind = 'studyset' AND hidden = 0 AND lower(title) LIKE ? ORDER BY title LIMIT ?`,
          [like, take],
        )
      : [];
    const documents = want('documents') ? this.documents(match, like, take) : [];

    const truncated = notes.length > limit || studySets.length > limit || documents.length > limit;
    return {
      q,
      scope,
      notes: notes.slice(0, limit).map((n) => ({ noteid: n.noteid, topicid: n.topicid, studySetTitle: n.setTitle, title: n.title, snippet: n.snippet })),
      studySets: studySets.slice(0, limit).map((s) => ({ topicid: s.topicid, title: s.title, isStudySet: true })),
      documents: documents.slice(0, limit),
      truncated,
    };
  }

  /** Documents whose file name or page text matches; every document is found, in a study set or not. */
  private documents(match: string | undefined, like: string, take: number) {
    const byName = this.store.all<{ bookmd5: string; filename: string; folder: string }>(
      'SELECT bookmd5, filename, folder FROM documents WHERE lower(filename) LIKE ? ORDER BY filename LIMIT ?',
      [like, take],
    );
    const byText = match
      ? this.store.all<{ bookmd5: string; page: string; snippet: string }>(
          `SELECT bookmd5, page, snippet(pages_fts, '[', ']', '…', 2, 12) AS snippet FROM pages_fts WHERE pages_fts MATCH ? LIMIT 500`,
          [match],
        )
      : [];
    const hits = new Map<string, { bookmd5: string; filename: string; folder: string; pages: number[]; snippet?: string }>();
    for (const d of byName) hits.set(d.bookmd5, { ...d, pages: [] });
    for (const p of byText) {
      let h = hits.get(p.bookmd5);
      if (!h) {
        const d = this.store.get<{ filename: string; folder: string }>('SELECT filename, folder FROM documents WHERE bookmd5 = ?', [p.bookmd5]);
        if (!d) continue;
        h = { bookmd5: p.bookmd5, ...d, pages: [] };
        hits.set(p.bookmd5, h);
      }
      h.pages.push(Number(p.page));
      h.snippet ??= p.snippet;
    }
    for (const h of hits.values()) h.pages.sort((a, b) => a - b);
    return [...hits.values()].slice(0, take);
  }
}
