import type { z } from 'zod';
import type { RouteResponse, RouteResponseItem } from '../server/api/http/routeTable';
import type {
  bundleCheckResponse,
  bundleDiscardResponse,
  bundleFilesResponse,
  bundleFocusResponse,
  bundleListResponse,
  bundleReceiptResponse,
  prepareRequest,
  prepareResponse,
  resultRequest,
} from '../server/api/routes/bundleShapes';
import type { BundleManifest } from '../server/domain/bundles/bundleFiles';
import type { RawResponse, Requester } from './requester';

/**
 * Bundles (splitting a book into cards) through the typed client: list,
 * files, focus, discard, check and submit. Result types come from the routes'
 * declared response schemas (`import type` only; the API tests check every
 * real answer against them), so a change there breaks the build here.
 */

export type BundleList = RouteResponse<typeof bundleListResponse>;
export type BundleEntry = RouteResponseItem<typeof bundleListResponse, 'bundles'>;
export type BundleState = BundleEntry['state'];
/** POST /bundles/{id}/check: the would-be tree, each excerpt anchored or not, problems with lines. */
export type BundleCheck = RouteResponse<typeof bundleCheckResponse>;
/** POST /bundles/{id}/submit: the receipt. */
export type BundleReceipt = RouteResponse<typeof bundleReceiptResponse>;
export type BundleDiscard = RouteResponse<typeof bundleDiscardResponse>;
export type BundleFiles = RouteResponse<typeof bundleFilesResponse>;
export type BundleFileEntry = RouteResponseItem<typeof bundleFilesResponse, 'files'>;
export type BundleFocus = RouteResponse<typeof bundleFocusResponse>;

/** manifest.json of a bundle folder, as the bridge writes it. */
export type { BundleManifest } from '../server/domain/bundles/bundleFiles';

/** POST /bundles/prepare's body, from the route's schema. */
export type PrepareRequest = z.input<typeof prepareRequest>;

/** 200 (prepared at once: version, rootNoteId, files) or 202 (async: state "preparing"). */
export type PrepareResult = RouteResponse<typeof prepareResponse>;

/** The result options of check and submit, from the routes' schema. */
export type ResultOptions = z.input<typeof resultRequest>;

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
    return this.http.request<BundleFiles>('GET', `/bundles/${seg(bundleId)}/files`);
  }
  /** One file of the bundle folder, raw (non-2xx answers are returned, not thrown). */
  file(bundleId: string, path: string): Promise<RawResponse> {
    return this.http.raw('GET', `/bundles/${seg(bundleId)}/files`, { query: { path } });
  }
  async manifest(bundleId: string): Promise<BundleManifest> {
    const res = await this.file(bundleId, 'manifest.json');
    if (res.status !== 200) {
      // Same error surface as request(): let the client build the error from the body.
      return this.http.request<BundleManifest>('GET', `/bundles/${seg(bundleId)}/files`, {
        query: { path: 'manifest.json' },
      });
    }
    return res.json<BundleManifest>();
  }
  /** Asynchronous by contract: the UI shows the pages; GET /context tells what is shown. */
  focus(bundleId: string) {
    return this.http.request<BundleFocus>('POST', `/bundles/${seg(bundleId)}/focus`);
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
