import type { Store } from '../../ground/store/store';
import type { BookTextIndex } from '../../ground/search/bookTextIndex';
import { cardFtsQuery } from '../../ground/search/cardIndexText';
import { bestOf, rankCardWindow } from '../../ground/search/cardWindow';
import type { CardLengths } from '../../ground/search/cardLengths';
import type { CommonTerms } from '../../ground/search/commonTerms';
import { snippetOf } from '../../ground/search/searchRanking';
import { searchQuery, type QueryPart } from '../../ground/text/searchTerms';

export type SearchScope = 'all' | 'notes' | 'studysets' | 'documents';

/** A query → an FTS4 query on the `body` column (cardIndexText.ts): every part must match. */
export const ftsQuery = (q: string): string | undefined => cardFtsQuery(searchQuery(q));

/** Where document text is searched and snippets are read. */
export interface DocumentText {
  index: Pick<BookTextIndex, 'search'>;
  pageTexts: (
    bookmd5: string,
    start: number,
    end: number,
  ) => Promise<Array<{ page: number; text: string }>> | Array<{ page: number; text: string }>;
}

export interface SearchWindows {
  /** Card index rows ranked per request. */
  notes: number;
  /** Matching pages ranked per request, newest books first (documents are grouped from them). */
  pages: number;
  /**
   * Books whose index is read per request. A phrase on a few pages of every
   * book read all 1,000 books of the scale bench (~190 ms); 200 keeps such a
   * search near 40 ms and answers truncated:true.
   */
  books: number;
  /** Matching pages listed per document. */
  pagesPerDocument: number;
}

/**
 * Measured at 100k cards (bench/cards.bench.ts): reading a candidate's rank
 * data costs ~2 µs, so 2000 candidates keep a search near 5 ms. A window
 * that cuts anything answers truncated:true.
 */
export const DEFAULT_WINDOWS: SearchWindows = { notes: 2000, pages: 10_000, books: 200, pagesPerDocument: 20 };

/**
 * Searches cards, study-set titles and document text, ranked bm25-style:
 * cards over the FTS4 index in the database, page text over the book text
 * index (src/server/ground/search). Each scope reads a bounded window of index rows
 * (newest first, so a fresh write is always inside it); `scanned` says how
 * many rows each scope examined and `truncated` is true when any window or
 * the `limit` cut a result. The card index is written in the same
 * transaction as the cards, so a card is searchable as soon as it is
 * acknowledged; a book is searchable once it is ready.
 */
export class LibrarySearch {
  constructor(
    private readonly store: Store,
    private readonly text: DocumentText,
    private readonly windows: SearchWindows = DEFAULT_WINDOWS,
    /** What the card index keeps in memory for speed (search/cardWindow.ts): lengths, and postings of terms in most cards. */
    readonly memory: { common?: CommonTerms; lengths?: CardLengths } = {},
  ) {}

  async search(q: string, scope: SearchScope, limit: number) {
    const words = searchQuery(q);
    const want = (s: SearchScope) => scope === 'all' || scope === s;
    const notes = want('notes') && words.length ? this.notes(words, limit) : { hits: [], scanned: 0, cut: false };
    const studySets = want('studysets') ? this.studySets(q, limit) : { hits: [], scanned: 0, cut: false };
    const documents = want('documents')
      ? await this.documents(q, words, limit)
      : { hits: [], scanned: 0, pagesScanned: 0, cut: false };
    const truncatedScopes = [notes.cut && 'notes', studySets.cut && 'studysets', documents.cut && 'documents'].filter(
      (s): s is string => !!s,
    );
    return {
      q,
      scope,
      notes: notes.hits,
      studySets: studySets.hits,
      documents: documents.hits,
      scanned: {
        notes: notes.scanned,
        studySets: studySets.scanned,
        documents: documents.scanned,
        pages: documents.pagesScanned,
      },
      truncated: truncatedScopes.length > 0,
      truncatedScopes,
    };
  }

  private notes(words: readonly QueryPart[], limit: number) {
    const { rows, cut } = rankCardWindow(this.store, words, this.windows.notes, this.memory);
    const hits: Array<{
      noteid: string;
      topicid: string;
      studySetTitle: string | null;
      title: string;
      snippet: string;
      score: number;
    }> = [];
    // Details only for the best rows; hidden cards are skipped, so read on until limit + 1 visible ones are found.
    let more = false;
    for (let at = 0; at < rows.length && !more; at += limit + 1) {
      const chunk = bestOf(rows, at + limit + 1).slice(at, at + limit + 1);
      const byDocid = new Map(
        this.store
          .all<{
            docid: number;
            noteid: string;
            topicid: string;
            texts: string | null;
            title: string;
            setTitle: string | null;
          }>(
            // The index holds terms, not text: a snippet reads the card's title and texts.
            `SELECT c.docid, n.noteid, n.topicid, n.title, t.title AS setTitle,
               (SELECT group_concat(text, char(10)) FROM (SELECT text FROM note_texts x WHERE x.noteid = n.noteid ORDER BY idx)) AS texts
             FROM notes_fts_content c JOIN notes n ON n.noteid = c.c0noteid LEFT JOIN topics t ON t.topicid = n.topicid
             WHERE c.docid IN (${chunk.map(() => '?').join(',')}) AND n.hidden = 0`,
            chunk.map((c) => c.docid),
          )
          .map((r) => [r.docid, r] as const),
      );
      for (const c of chunk) {
        const r = byDocid.get(c.docid);
        if (!r) continue;
        if (hits.length === limit) {
          more = true;
          break;
        }
        hits.push({
          noteid: r.noteid,
          topicid: r.topicid,
          studySetTitle: r.setTitle,
          title: r.title,
          snippet: snippetOf(r.texts ? `${r.title}\n${r.texts}` : r.title, words),
          score: round(c.score),
        });
      }
    }
    return { hits, scanned: rows.length, cut: cut || more };
  }

  /** Set titles containing the query: an exact title first, then titles starting with it, then the rest by title. */
  private studySets(q: string, limit: number) {
    const needle = q.trim().toLowerCase();
    const rows = this.store.all<{ topicid: string; title: string }>(
      `SELECT topicid, title FROM topics WHERE kind = 'studyset' AND hidden = 0 AND instr(lower(title), ?) > 0
       ORDER BY lower(title) = ? DESC, instr(lower(title), ?) = 1 DESC, title LIMIT ?`,
      [needle, needle, needle, limit + 1],
    );
    const scanned = this.store.get<{ n: number }>(
      `SELECT count(*) AS n FROM topics WHERE kind = 'studyset' AND hidden = 0`,
    )!.n;
    return {
      hits: rows.slice(0, limit).map((s) => ({ topicid: s.topicid, title: s.title, isStudySet: true })),
      scanned,
      cut: rows.length > limit,
    };
  }

  /**
   * Documents whose file name contains the query (listed first) or whose
   * pages match, ranked by their best page. Pages come from the text index
   * (ready books, newest first, one window of pages); page text is read for
   * one snippet per listed document.
   */
  private async documents(q: string, words: readonly QueryPart[], limit: number) {
    const needle = q.trim().toLowerCase();
    const byName = this.store.all<{ bookmd5: string }>(
      'SELECT bookmd5 FROM documents WHERE instr(lower(filename), ?) > 0 ORDER BY filename',
      [needle],
    );
    const docCount = this.store.get<{ n: number }>('SELECT count(*) AS n FROM documents')!.n;

    const { pagesOf, pagesScanned, pagesCut } = await this.matchingPages(words);

    const nameHit = new Set(byName.map((d) => d.bookmd5));
    const order = [...new Set([...byName.map((d) => d.bookmd5), ...pagesOf.keys()])];
    const best = (id: string) => pagesOf.get(id)?.[0]?.score ?? 0;
    order.sort(
      (a, b) =>
        Number(nameHit.has(b)) - Number(nameHit.has(a)) ||
        best(b) - best(a) ||
        (pagesOf.get(b)?.length ?? 0) - (pagesOf.get(a)?.length ?? 0),
    );

    const hits: Array<{
      bookmd5: string;
      filename: string;
      folder: string;
      pages: number[];
      matchingPages: number;
      pagesTruncated: boolean;
      snippet?: string;
      score: number;
    }> = [];
    let pageListCut = false;
    let more = false;
    for (const bookmd5 of order) {
      const d = this.store.get<{ filename: string; folder: string }>(
        'SELECT filename, folder FROM documents WHERE bookmd5 = ?',
        [bookmd5],
      );
      if (!d) continue;
      if (hits.length === limit) {
        more = true;
        break;
      }
      const pages = pagesOf.get(bookmd5) ?? [];
      const shown = pages.slice(0, this.windows.pagesPerDocument);
      const pagesTruncated = pages.length > shown.length;
      pageListCut ||= pagesTruncated;
      const text = shown[0] && (await this.bestPageText(bookmd5, shown[0].page));
      hits.push({
        bookmd5,
        ...d,
        pages: shown.map((p) => p.page).sort((a, b) => a - b),
        matchingPages: pages.length,
        pagesTruncated,
        ...(text ? { snippet: snippetOf(text, words) } : {}),
        score: round(best(bookmd5)),
      });
    }
    return { hits, scanned: docCount, pagesScanned, cut: pagesCut || pageListCut || more };
  }

  /** Pages of ready books that match, best first per book (pages ranked in one window of the text index). */
  private async matchingPages(words: readonly QueryPart[]) {
    const pagesOf = new Map<string, Page[]>();
    let pagesScanned = 0;
    let pagesCut = false;
    const indexWords = words.flatMap((w) => w.terms);
    if (indexWords.length) {
      const ready = this.store
        .all<{ bookmd5: string }>(
          `SELECT bookmd5 FROM documents WHERE extraction_state = 'ready' ORDER BY added_at DESC, rowid DESC`,
        )
        .map((r) => r.bookmd5);
      const found = await this.text.index.search(
        indexWords,
        ready,
        this.windows.pages,
        this.windows.books,
        words.flatMap((w) => w.bonus),
      );
      pagesScanned = found.hits.length;
      // A book whose index could not be rebuilt was not searched: say so rather than answer as if it held nothing.
      pagesCut = found.cut || found.unsearched.length > 0;
      // Ties keep the newest first (the order hits came in: sort is stable).
      const ranked = [...found.hits].sort((a, b) => b.score - a.score);
      for (const h of ranked) {
        let list = pagesOf.get(h.bookmd5);
        if (!list) pagesOf.set(h.bookmd5, (list = []));
        list.push({ page: h.page, score: h.score }); // best first: ranked is sorted
      }
    }
    return { pagesOf, pagesScanned, pagesCut };
  }

  /** The snippet page's text; a page that cannot be read now only costs its snippet. */
  private async bestPageText(bookmd5: string, page: number): Promise<string | undefined> {
    try {
      const [p] = await this.text.pageTexts(bookmd5, page, page);
      return p?.text ? String(p.text) : undefined;
    } catch {
      return undefined;
    }
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** A matching page of a book, with its score. */
type Page = { page: number; score: number };
