import type { RouteResponseItem } from '../server/api/http/routeTable';
import type { studySetDocumentsResponse, studySetListResponse } from '../server/api/routes/studySets';
import type { CardsApi, CreatedCard, SourceAnchor } from './cardsApi';
import type { Requester } from './requester';

/**
 * What the PDF reader asks of the bridge: where a library document's file is,
 * the anchored cards of a set in one book, and Make card (an excerpt card
 * anchored to the selected text's glyphs).
 */

export interface LibraryFile {
  bookmd5: string;
  filename: string;
  folder: string;
}

export interface AnchoredCard {
  noteid: string;
  title: string;
  colorIndex: number | null;
  page: number;
  rect: NonNullable<SourceAnchor['rect']>;
  /** One per line or fragment of the excerpt (rect is their union). */
  rects: SourceAnchor['rects'];
}

export interface ExcerptCard {
  parentNoteId?: string;
  excerpt: {
    bookmd5: string;
    page: number;
    text: string;
    /** The selection's box as the browser drew it: a hint where on the page the text is (the anchor is the glyphs'). */
    near: { x: number; y: number; width: number; height: number };
  };
}

/** The client's requests, and the reads of sets and cards this API builds on (BridgeClient has them all). */
interface Http extends Pick<Requester, 'request'> {
  cards: Pick<CardsApi, 'tree' | 'batchGetAll'>;
  listStudySets(): Promise<Array<RouteResponseItem<typeof studySetListResponse, 'studySets'>>>;
  studySetDocuments(topicid: string): Promise<Array<RouteResponseItem<typeof studySetDocumentsResponse, 'documents'>>>;
}
const seg = encodeURIComponent;

export class ReaderApi {
  constructor(private readonly http: Http) {}

  /** Where a document lives in the library folder: looked up in `topicid` first, then in every set. */
  async findFile(bookmd5: string, topicid?: string): Promise<LibraryFile | undefined> {
    const sets = topicid ? [topicid] : [];
    for (const set of await this.http.listStudySets()) if (set.topicid !== topicid) sets.push(set.topicid);
    for (const id of sets) {
      const doc = (await this.http.studySetDocuments(id).catch(() => [])).find((d) => d.bookmd5 === bookmd5);
      if (doc) return { bookmd5, filename: doc.filename, folder: doc.folder };
    }
    return undefined;
  }

  /** Study sets holding the book as a member, in title order. */
  async setsWith(bookmd5: string): Promise<Array<{ topicid: string; title: string }>> {
    const out: Array<{ topicid: string; title: string }> = [];
    for (const set of await this.http.listStudySets()) {
      if ((await this.http.studySetDocuments(set.topicid)).some((d) => d.bookmd5 === bookmd5))
        out.push({ topicid: set.topicid, title: set.title });
    }
    return out.sort((a, b) => a.title.localeCompare(b.title));
  }

  /** Cards of the set anchored to a rectangle of this book: one tree read, then batch-get of the excerpt cards. */
  async anchoredCards(topicid: string, bookmd5: string): Promise<AnchoredCard[]> {
    const tree = await this.http.cards.tree(topicid);
    const ids = tree.nodes.filter((n) => n.hasExcerpt).map((n) => n.noteid);
    const out: AnchoredCard[] = [];
    for (const n of await this.http.cards.batchGetAll(ids)) {
      const a = n.sourceAnchor;
      if (a.bookmd5 === bookmd5 && a.page && a.rect)
        out.push({
          noteid: n.noteid,
          title: n.title,
          colorIndex: n.metadata.colorIndex,
          page: a.page,
          rect: a.rect,
          rects: a.rects?.length ? a.rects : [a.rect],
        });
    }
    return out;
  }

  /**
   * POST /study-sets/{id}/notes with excerpt.near: the selected text is matched on its page near the selection's
   * box, and the card anchored to its glyphs, one rectangle per line (warning EXCERPT_SELECTION_BOX: to the box).
   */
  makeCard(topicid: string, card: ExcerptCard) {
    return this.http.request<CreatedCard & { title: string }>('POST', `/study-sets/${seg(topicid)}/notes`, {
      body: { ...card, confirm: true },
    });
  }
}
