import type { BridgeClient, Success } from './bridgeClient';

/**
 * The card library through the typed client: trees, cards, snapshots, deck
 * cards and the change feed. Shapes are the team's agreed answers (issue 7);
 * views and commands call these, never raw paths.
 */

export interface SourceAnchor {
  hasExcerpt: boolean;
  bookmd5: string | null;
  page: number | null;
  rect: { x: number; y: number; width: number; height: number } | null;
}

/** One card of GET /study-sets/{id}/tree, in pre-order. */
export interface TreeNode {
  noteid: string;
  parent: string | null;
  /** Sub-map roots among the strict ancestors (0 = main map). */
  depth: number;
  /** Distance from the set's root card. */
  level: number;
  childCount: number;
  subMapId: string | null;
  isSubMapRoot: boolean;
  /** At most 64 characters. */
  title: string;
  folded: boolean;
  colorIndex: number | null;
  fillIndex: number | null;
  hasExcerpt: boolean;
  page: number | null;
}

export interface TreeResponse extends Success {
  topicid: string;
  rootNoteId: string;
  nodes: TreeNode[];
  count: number;
}

export interface NoteText {
  index: number;
  text: string;
  excerpt: boolean;
  noteid: string;
  kind: string;
}

/** One card of POST /notes/batch-get. */
export interface Note {
  noteid: string;
  topicid: string;
  parent: string | null;
  title: string;
  texts: NoteText[];
  parts: unknown[];
  metadata: { colorIndex: number | null; fillIndex: number | null };
  hashtags: string[];
  hashtagPaths: unknown[];
  sourceAnchor: SourceAnchor;
  links: string[];
  folded: boolean;
  isSubMapRoot: boolean;
  childCount: number;
  createdAt: string;
  modifiedAt: string;
}

export interface NewCard {
  parentNoteId?: string;
  title?: string;
  text?: string;
  excerpt?: { bookmd5: string; page: number; text: string };
  colorIndex?: number;
  fillIndex?: number;
}

export interface CreatedCard extends Success {
  noteid: string;
  topicid: string;
  parentNoteId: string;
  persisted: true;
  sourceAnchor: SourceAnchor;
}

export interface PaletteEntry {
  colorIndex: number;
  baseColor: string;
  displayColor: string;
}

/** The dry-run of POST /notes/delete (the 422's details). */
export interface DeletePreview {
  wouldDelete: number | string[];
  cards: Array<{ noteid: string; title: string; orphanedChildren: number; descendants: number }>;
  [key: string]: unknown;
}

export interface Snapshot {
  snapshotId: string;
  topicid?: string;
  label?: string;
  description: string;
  createdAt: string;
  noteCount: number;
  version?: number;
  kind: string;
}

/** Cards a restore would overwrite (409 USER_EDITS_PRESENT details.changedNodes). */
export interface ChangedNode {
  noteid: string;
  title: string;
  operations: unknown;
}

export interface DeckCard {
  cardNoteId: string;
  sourceNoteId: string;
  /** False: the source card was deleted or hidden; the card stays with an empty back. */
  sourceAlive: boolean;
  title: string;
  /** The custom front (questionMode custom_text), `{{cloze}}` marking the hidden answer. */
  question?: string;
  due: string | null;
  state: string;
}

export interface LibraryChanges extends Success {
  revision: number;
  changed: boolean;
}

type Requester = Pick<BridgeClient, 'request'>;
const seg = encodeURIComponent;

export class CardsApi {
  constructor(private readonly http: Requester) {}

  tree(topicid: string, root?: string) {
    return this.http.request<TreeResponse>('GET', `/study-sets/${seg(topicid)}/tree`, { query: { root } });
  }
  batchGet(noteIds: string[]) {
    return this.http.request<Success & { notes: Note[]; notFound: string[] }>('POST', '/notes/batch-get', { body: { noteIds } });
  }
  async palette(topicid: string): Promise<PaletteEntry[]> {
    return (await this.http.request<Success & { palette: PaletteEntry[] }>('GET', `/study-sets/${seg(topicid)}/note-palette`)).palette;
  }
  create(topicid: string, card: NewCard) {
    return this.http.request<CreatedCard>('POST', `/study-sets/${seg(topicid)}/notes`, { body: { ...card, confirm: true } });
  }
  /** `expectedPrefix`: the first 32 characters of the title as last read (409 when it changed since). */
  setTitle(noteId: string, text: string, expectedPrefix: string) {
    return this.http.request<Success & { persisted?: boolean }>('POST', `/notes/${seg(noteId)}/title`, {
      body: { text, expectedPrefix, confirm: true },
    });
  }
  addComment(noteId: string, text: string) {
    return this.http.request<Success & { index?: number }>('POST', `/notes/${seg(noteId)}/comments`, { body: { text, confirm: true } });
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
    return this.http.request<Success & Record<string, unknown>>('POST', '/notes/delete', { body: { noteIds, confirm: true } });
  }
  /** Asynchronous by contract: the UI shows the card; read GET /context for the outcome. */
  focus(noteId: string, topicid?: string) {
    return this.http.request('POST', `/notes/${seg(noteId)}/focus`, { body: { topicid } });
  }
  createSnapshot(topicid: string, description: string) {
    return this.http.request<Success & Snapshot & { created: boolean }>('POST', `/study-sets/${seg(topicid)}/snapshots`, {
      body: { description, confirm: true },
    });
  }
  async snapshots(topicid: string): Promise<Snapshot[]> {
    return (await this.http.request<Success & { snapshots: Snapshot[] }>('GET', `/study-sets/${seg(topicid)}/snapshots`)).snapshots;
  }
  /** 409 USER_EDITS_PRESENT (details.changedNodes) unless `force`; 409 STUDY_SET_IN_USE while the set is open. */
  restoreSnapshot(snapshotId: string, opts: { force?: boolean } = {}) {
    return this.http.request<Success & Record<string, unknown>>('POST', `/snapshots/${seg(snapshotId)}/restore`, {
      body: { confirm: true, force: opts.force || undefined },
    });
  }
  deckCards(deckId: string) {
    return this.http.request<Success & { cards: DeckCard[]; dueCount: number }>('GET', `/decks/${seg(deckId)}/cards`);
  }
  /** Long poll: answers when the library revision differs from `since`, or after `waitMs`. */
  changes(since: number, waitMs: number, signal?: AbortSignal) {
    return this.http.request<LibraryChanges>('GET', '/library/changes', { query: { since, waitMs }, signal });
  }
}
