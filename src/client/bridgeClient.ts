import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteResponse, RouteResponseItem } from '../server/api/http/routeTable';
import type { capabilitiesResponse, contextResponse, statusResponse } from '../server/api/routes/systemShapes';
import type {
  studySetCreateResponse,
  studySetDocumentAddResponse,
  studySetDocumentRemoveResponse,
  studySetDocumentsResponse,
  studySetListResponse,
} from '../server/api/routes/studySets';
import type { deckCreateResponse, deckListResponse } from '../server/api/routes/decks';
import type { outlineResponse } from '../server/api/routes/documents';
import type { searchResponse } from '../server/api/routes/search';
import { CardsApi } from './cardsApi';
import { BundlesApi } from './bundlesApi';
import { ReaderApi } from './readerApi';
import { ReviewApi } from './reviewApi';
import { TokensApi, type AgentScope } from './tokensApi';
import { ApprovalsApi } from './approvalsApi';
import { AnkiApi } from './ankiApi';
import { DeckOptionsApi } from './deckOptionsApi';
import type { RawResponse, RequestOptions, Requester, Success } from './requester';
import { callRoute, type CallOptions, type RouteAnswer, type RouteKey } from './routeCalls';

export type { RawResponse, RequestOptions, Success } from './requester';

/**
 * Typed client of the bridge over fetch: the one way code outside the server
 * (views, commands, tests, bench) talks to it, through the same API agents use.
 * Never imports from src/server at run time.
 */

export interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> };
  bridgeApiVersion: string;
}

export class BridgeClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly retryable = false,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'BridgeClientError';
  }
}

export type StatusResponse = RouteResponse<typeof statusResponse>;

export type RouteInfo = RouteResponseItem<typeof capabilitiesResponse, 'routes'>;

export type CapabilitiesResponse = RouteResponse<typeof capabilitiesResponse>;

/** Types only: the client never loads server code at run time; result types come from the routes' response schemas. */
export type StudySet = RouteResponseItem<typeof studySetListResponse, 'studySets'>;
/** `dueCount`: review cards due now. */
export type Deck = RouteResponseItem<typeof deckListResponse, 'decks'>;

export interface InstallCode extends Success {
  kind: 'install';
  code: string;
  expiresAt: string;
  installUrl: string;
  command: string;
  mcpCommand: string;
  name: string;
  scope: AgentScope;
}

export interface PairCode extends Success {
  kind: 'pair';
  code: string;
  expiresAt: string;
  pairUrl: string;
}

export type ContextResponse = RouteResponse<typeof contextResponse>;

export type StudySetDocument = RouteResponseItem<typeof studySetDocumentsResponse, 'documents'>;

export interface UploadResult extends Success {
  bookmd5: string;
  created: boolean;
  filename: string;
  folder: string;
  addedToStudySet: boolean;
  movedToFolder: boolean;
  pageCount: number;
  warnings: string[];
}

export type ExtractionProgress = OutlineResult['extraction'];

export type OutlineResult = RouteResponse<typeof outlineResponse>;

export interface PagesResult extends Success {
  pages: Array<{ page: number; text: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export interface ClientOptions {
  baseUrl: string;
  /** The owner token (data dir's token file) acts as the person; an agent token as that agent. */
  token?: string;
}

export class BridgeClient implements Requester {
  readonly baseUrl: string;
  readonly token: string | undefined;
  /** Card trees, cards, snapshots, deck cards, the change feed. */
  readonly cards = new CardsApi(this);
  /** Bundles: list, files, focus, discard, check, submit. */
  readonly bundles = new BundlesApi(this);
  /** The PDF reader: library files, anchored cards of a book, Make card. */
  readonly reader = new ReaderApi(this);
  /** Studying decks: due cards, grades, the review log. */
  readonly reviews = new ReviewApi(this);
  /** Agent tokens (owner only): list, make, revoke. */
  readonly tokens = new TokensApi(this);
  /** Agent calls held for the person's decision (owner: all; an agent: its own). */
  readonly approvals = new ApprovalsApi(this);
  /** Anki packages: import into a new deck, export a deck. */
  readonly anki = new AnkiApi(this);
  /** Deck options: the presets decks share and which one a deck uses. */
  readonly deckOptions = new DeckOptionsApi(this);

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.token = opts.token;
  }

  /** The owner's client for the bridge serving `dataDir`, from its bridge.json and token file. */
  static fromDataDir(dataDir: string): BridgeClient {
    const info = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')) as { baseUrl: string };
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    return new BridgeClient({ baseUrl: info.baseUrl, token });
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** Any response, any status: for callers that inspect refusals themselves. */
  async raw(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.token && !opts.anonymous) headers.Authorization = `Bearer ${this.token}`;
    let body: string | Uint8Array | undefined;
    if (opts.bytes) {
      body = opts.bytes;
      headers['Content-Type'] ??= 'application/octet-stream';
    } else if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.url(path, opts.query), { method, headers, body: body as never, signal: opts.signal });
    const bytes = Buffer.from(await res.arrayBuffer());
    return {
      status: res.status,
      headers: res.headers,
      bytes,
      text: () => bytes.toString('utf8'),
      json: <T>() => JSON.parse(bytes.toString('utf8')) as T,
    };
  }

  /** A JSON route; a non-2xx answer throws BridgeClientError with the error body's code. */
  async request<T = Success>(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    if (res.status >= 200 && res.status < 300) return res.json<T>();
    let err: ErrorBody['error'] | undefined;
    try {
      err = res.json<ErrorBody>().error;
    } catch {
      /* not JSON */
    }
    throw new BridgeClientError(
      res.status,
      err?.code ?? 'HTTP_ERROR',
      err?.message ?? res.text().slice(0, 200),
      err?.details,
      err?.retryable,
    );
  }

  /** Route `key` ("GET /decks/{id}/stats"), typed by its declaration: params, query, body and answer. */
  call<K extends RouteKey>(key: K, opts?: CallOptions<K>): Promise<RouteAnswer<K>> {
    return callRoute(this, key, opts);
  }

  status() {
    return this.request<StatusResponse>('GET', '/status');
  }
  capabilities() {
    return this.request<CapabilitiesResponse>('GET', '/capabilities');
  }
  async guide(): Promise<string> {
    const res = await this.raw('GET', '/guide');
    if (res.status !== 200) throw new BridgeClientError(res.status, 'GUIDE_UNAVAILABLE', res.text().slice(0, 200));
    return res.text();
  }
  context() {
    return this.request<ContextResponse>('GET', '/context');
  }
  async listStudySets(query?: string): Promise<StudySet[]> {
    return (
      await this.request<RouteResponse<typeof studySetListResponse>>('GET', '/library/study-sets', { query: { query } })
    ).studySets;
  }
  createStudySet(title: string) {
    return this.request<RouteResponse<typeof studySetCreateResponse>>('POST', '/library/study-sets', {
      body: { title, confirm: true },
    });
  }
  async studySetDocuments(topicid: string): Promise<StudySetDocument[]> {
    return (
      await this.request<RouteResponse<typeof studySetDocumentsResponse>>(
        'GET',
        `/study-sets/${encodeURIComponent(topicid)}/documents`,
      )
    ).documents;
  }
  addDocumentToStudySet(topicid: string, bookmd5: string) {
    return this.request<RouteResponse<typeof studySetDocumentAddResponse>>(
      'POST',
      `/study-sets/${encodeURIComponent(topicid)}/documents`,
      {
        body: { bookmd5, confirm: true },
      },
    );
  }
  removeDocumentFromStudySet(topicid: string, bookmd5: string) {
    return this.request<RouteResponse<typeof studySetDocumentRemoveResponse>>(
      'POST',
      `/study-sets/${encodeURIComponent(topicid)}/documents/${bookmd5}/delete`,
      { body: { confirm: true } },
    );
  }
  /** Uploads PDF bytes into the library (confirm=1 is part of the call). */
  uploadDocument(bytes: Uint8Array, opts: { filename: string; folder?: string; topicid?: string }) {
    return this.request<UploadResult>('POST', '/library/documents/upload', { bytes, query: { ...opts, confirm: 1 } });
  }
  outline(bookmd5: string) {
    return this.request<OutlineResult>('GET', `/documents/${bookmd5}/outline`);
  }
  pages(bookmd5: string, start: number, end = start, opts: { blocks?: boolean } = {}) {
    return this.request<PagesResult>('GET', `/documents/${bookmd5}/pages`, {
      query: { start, end, blocks: opts.blocks ? 1 : undefined },
    });
  }
  search(q: string, opts: { scope?: 'all' | 'notes' | 'studysets' | 'documents'; limit?: number } = {}) {
    return this.request<RouteResponse<typeof searchResponse>>('GET', '/search', { query: { q, ...opts } });
  }
  async listDecks(query?: string): Promise<Deck[]> {
    return (await this.request<RouteResponse<typeof deckListResponse>>('GET', '/decks', { query: { query } })).decks;
  }
  createDeck(title: string) {
    return this.request<RouteResponse<typeof deckCreateResponse>>('POST', '/decks', { body: { title, confirm: true } });
  }
  /** Owner only: a one-time code whose install script writes a new agent token named `name` with `scope`. */
  createInstallCode(grant: { name?: string; scope?: AgentScope } = {}) {
    return this.request<InstallCode>('POST', '/install/code', { body: { kind: 'install', ...grant } });
  }
  createPairCode(grant: { name?: string; scope?: AgentScope } = {}) {
    return this.request<PairCode>('POST', '/install/code', { body: { kind: 'pair', ...grant } });
  }
  pair(code: string, deviceName: string) {
    return this.request<Success & { token: string; tokenId: string; scope: AgentScope; deviceName: string }>(
      'POST',
      '/pair',
      { body: { code, deviceName }, anonymous: true },
    );
  }
}
