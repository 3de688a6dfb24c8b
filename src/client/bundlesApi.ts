import type { BundleService } from '../server/bundles/bundleService';
import type { checkBundle, submitBundle } from '../server/bundles/bundleSubmit';
import type { BridgeClient, RawResponse, Success } from './bridgeClient';

/**
 * Bundles (splitting a book into cards) through the typed client: list,
 * files, focus, discard, check and submit. Shapes come from the server's own
 * return types (`import type` only), so a change there breaks the build here.
 */

export type BundleList = Success & ReturnType<BundleService['list']>;
export type BundleEntry = BundleList['bundles'][number];
export type BundleState = BundleEntry['state'];
/** POST /bundles/{id}/check: the would-be tree, each excerpt anchored or not, problems with lines. */
export type BundleCheck = Success & Awaited<ReturnType<typeof checkBundle>>;
/** POST /bundles/{id}/submit: the receipt. */
export type BundleReceipt = Success & Awaited<ReturnType<typeof submitBundle>>;
export type BundleDiscard = Success & Awaited<ReturnType<BundleService['discard']>>;

export interface BundleFileEntry {
  path: string;
  size: number;
  modifiedAt: string;
  hidden?: boolean;
}

/** manifest.json of a bundle folder (the fields the views read). */
export interface BundleManifest {
  bundleId: string;
  topicid: string;
  bookmd5: string;
  documentTitle: string;
  title: string;
  preset: string;
  anchorMode: string;
  pages: number[];
  pagesTotal: number;
}

export interface PrepareRequest {
  topicid: string;
  bookmd5: string;
  segments: Array<{ startPage: number; endPage?: number; title?: string }>;
  preset?: string;
  anchorMode?: string;
  title?: string;
  cardStyle?: { defaultFillIndex?: number };
  async?: boolean;
}

export interface PrepareResult extends Success {
  jobId: string;
  bundleId: string;
  bundlePath: string;
  pagesTotal: number;
  state: 'preparing' | 'prepared';
  version?: number;
  rootNoteId?: string;
  files?: string[];
}

export interface ResultOptions {
  /** The text to use instead of the folder's result.md (what the editor shows, saved or not). */
  resultMarkdown?: string;
  withBlank?: boolean;
  excerptMode?: 'child' | 'link';
}

type Requester = Pick<BridgeClient, 'request' | 'raw'>;
const seg = encodeURIComponent;

export class BundlesApi {
  constructor(private readonly http: Requester) {}

  list(query: { origin?: 'bridge'; since?: string } = {}) {
    return this.http.request<BundleList>('GET', '/bundles', { query });
  }
  prepare(body: PrepareRequest) {
    return this.http.request<PrepareResult>('POST', '/bundles/prepare', { body });
  }
  files(bundleId: string) {
    return this.http.request<Success & { bundleId: string; bundlePath: string; state: string; files: BundleFileEntry[]; count: number }>('GET', `/bundles/${seg(bundleId)}/files`);
  }
  /** One file of the bundle folder, raw (non-2xx answers are returned, not thrown). */
  file(bundleId: string, path: string): Promise<RawResponse> {
    return this.http.raw('GET', `/bundles/${seg(bundleId)}/files`, { query: { path } });
  }
  async manifest(bundleId: string): Promise<BundleManifest> {
    const res = await this.file(bundleId, 'manifest.json');
    if (res.status !== 200) {
      // Same error surface as request(): let the client build the error from the body.
      return this.http.request<BundleManifest>('GET', `/bundles/${seg(bundleId)}/files`, { query: { path: 'manifest.json' } });
    }
    return res.json<BundleManifest>();
  }
  /** Asynchronous by contract: the UI shows the pages; GET /context tells what is shown. */
  focus(bundleId: string) {
    return this.http.request<Success & { bundleId: string; accepted: boolean; state: string }>('POST', `/bundles/${seg(bundleId)}/focus`);
  }
  discard(bundleId: string) {
    return this.http.request<BundleDiscard>('POST', `/bundles/${seg(bundleId)}/discard`);
  }
  /** The same parser and anchorer as submit, nothing written. */
  check(bundleId: string, opts: ResultOptions = {}) {
    return this.http.request<BundleCheck>('POST', `/bundles/${seg(bundleId)}/check`, { body: opts });
  }
  /** Imports (or replaces) the card tree at once: premium, no confirm. */
  submit(bundleId: string, opts: ResultOptions & { targetParentNoteId?: string } = {}) {
    return this.http.request<BundleReceipt>('POST', `/bundles/${seg(bundleId)}/submit`, { body: opts });
  }
}
