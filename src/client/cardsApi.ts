import type { z } from 'zod';
import type { RouteResponse, RouteResponseItem } from '../server/api/http/routeTable';
import type { deckCardsResponse } from '../server/api/routes/deckCards';
import type { changesResponse } from '../server/api/routes/libraryChanges';
import type { batchGetResponse } from '../server/api/routes/noteReads';
import type { snapshotCreateResponse, snapshotListResponse, restoreResponse } from '../server/api/routes/snapshots';
import type {
  createNoteRequest,
  noteCreateResponse,
  notePaletteResponse,
  treeResponse,
} from '../server/api/routes/studySetCards';
import type { commentResponse, titleResponse } from '../server/api/routes/noteEdits';
import type { deleteResponse } from '../server/api/routes/noteStructure';
import type { Requester } from './requester';

/**
 * The card library through the typed client: trees, cards, snapshots, deck
 * cards and the change feed. Shapes are the routes' declared answers (src/server/api/routes);
 * views and commands call these, never raw paths.
 */

/** Result types come from the routes' declared response schemas (one declaration, checked by the API tests). */
export type TreeResponse = RouteResponse<typeof treeResponse>;
/** One card of GET /study-sets/{id}/tree, in pre-order (depth = sub-map nesting, level = distance from the root card, title ≤ 64). */
export type TreeNode = RouteResponseItem<typeof treeResponse, 'nodes'>;
/** One card of POST /notes/batch-get. */
/** POST /notes/batch-get takes at most this many cards per call. */
const BATCH_GET_MAX = 200;

export type Note = RouteResponseItem<typeof batchGetResponse, 'notes'>;
export type NoteText = Note['texts'][number];
export type SourceAnchor = Note['sourceAnchor'];
export type CreatedCard = RouteResponse<typeof noteCreateResponse>;
export type PaletteEntry = RouteResponseItem<typeof notePaletteResponse, 'palette'>;
export type Snapshot = RouteResponseItem<typeof snapshotListResponse, 'snapshots'>;
/** sourceAlive false: the source card was deleted or hidden; the card stays with an empty back. */
export type DeckCard = RouteResponseItem<typeof deckCardsResponse, 'cards'>;
export type LibraryChanges = RouteResponse<typeof changesResponse>;

/**
 * POST /study-sets/{id}/notes's body, from the route's schema: its output
 * type, because excerpt.page also accepts a numeric string (its input type is
 * unknown) and a client sends a number.
 */
export type NewCard = z.output<typeof createNoteRequest>;

/** The dry-run of POST /notes/delete (the 422's details). */
export interface DeletePreview {
  wouldDelete: number | string[];
  cards: Array<{ noteid: string; title: string; orphanedChildren: number; descendants: number }>;
  [key: string]: unknown;
}

/** Cards a restore would overwrite (409 USER_EDITS_PRESENT details.changedNodes). */
export interface ChangedNode {
  noteid: string;
  title: string;
  operations: unknown;
}

const seg = encodeURIComponent;

export class CardsApi {
  constructor(private readonly http: Requester) {}

  tree(topicid: string, root?: string) {
    return this.http.request<TreeResponse>('GET', `/study-sets/${seg(topicid)}/tree`, { query: { root } });
  }
  batchGet(noteIds: string[]) {
    return this.http.request<RouteResponse<typeof batchGetResponse>>('POST', '/notes/batch-get', { body: { noteIds } });
  }
  /** Any number of cards: POST /notes/batch-get takes at most 200 per call, so this asks in slices of 200. */
  async batchGetAll(noteIds: string[]): Promise<Note[]> {
    const notes: Note[] = [];
    for (let i = 0; i < noteIds.length; i += BATCH_GET_MAX)
      notes.push(...(await this.batchGet(noteIds.slice(i, i + BATCH_GET_MAX))).notes);
    return notes;
  }
  async palette(topicid: string): Promise<PaletteEntry[]> {
    return (
      await this.http.request<RouteResponse<typeof notePaletteResponse>>(
        'GET',
        `/study-sets/${seg(topicid)}/note-palette`,
      )
    ).palette;
  }
  create(topicid: string, card: NewCard) {
    return this.http.request<CreatedCard>('POST', `/study-sets/${seg(topicid)}/notes`, {
      body: { ...card, confirm: true },
    });
  }
  /** `expectedPrefix`: the first 32 characters of the title as last read (409 when it changed since). */
  setTitle(noteId: string, text: string, expectedPrefix: string) {
    return this.http.request<RouteResponse<typeof titleResponse>>('POST', `/notes/${seg(noteId)}/title`, {
      body: { text, expectedPrefix, confirm: true },
    });
  }
  addComment(noteId: string, text: string) {
    return this.http.request<RouteResponse<typeof commentResponse>>('POST', `/notes/${seg(noteId)}/comments`, {
      body: { text, confirm: true },
    });
  }
  /** The true dry-run: what deleting would do, nothing changed. */
  async previewDelete(noteIds: string[]): Promise<DeletePreview> {
    try {
      await this.http.request('POST', '/notes/delete', { body: { noteIds } });
    } catch (err) {
      const e = err as { code?: string; details?: DeletePreview };
      if (e.code === 'CONFIRM_REQUIRED' && e.details) return e.details;
      throw err;
    }
    throw new Error('POST /notes/delete without confirm did not answer with its dry-run');
  }
  delete(noteIds: string[]) {
    return this.http.request<RouteResponse<typeof deleteResponse>>('POST', '/notes/delete', {
      body: { noteIds, confirm: true },
    });
  }
  /** Asynchronous by contract: the UI shows the card; read GET /context for the outcome. */
  focus(noteId: string, topicid?: string) {
    return this.http.request('POST', `/notes/${seg(noteId)}/focus`, { body: { topicid } });
  }
  createSnapshot(topicid: string, description: string) {
    return this.http.request<RouteResponse<typeof snapshotCreateResponse>>(
      'POST',
      `/study-sets/${seg(topicid)}/snapshots`,
      {
        body: { description, confirm: true },
      },
    );
  }
  async snapshots(topicid: string): Promise<Snapshot[]> {
    return (
      await this.http.request<RouteResponse<typeof snapshotListResponse>>(
        'GET',
        `/study-sets/${seg(topicid)}/snapshots`,
      )
    ).snapshots;
  }
  /** 409 USER_EDITS_PRESENT (details.changedNodes) unless `force`; 409 STUDY_SET_IN_USE while the set is open. */
  restoreSnapshot(snapshotId: string, opts: { force?: boolean } = {}) {
    return this.http.request<RouteResponse<typeof restoreResponse>>('POST', `/snapshots/${seg(snapshotId)}/restore`, {
      body: { confirm: true, force: opts.force || undefined },
    });
  }
  deckCards(deckId: string) {
    return this.http.request<RouteResponse<typeof deckCardsResponse>>('GET', `/decks/${seg(deckId)}/cards`);
  }
  /** Long poll: answers when the library revision differs from `since`, or after `waitMs`. */
  changes(since: number, waitMs: number, signal?: AbortSignal) {
    return this.http.request<LibraryChanges>('GET', '/library/changes', { query: { since, waitMs }, signal });
  }
}
