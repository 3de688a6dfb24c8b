/**
 * The result.md preview's protocol (host: editors/resultPreviewSession.ts;
 * page: main.ts), carried by the webview channel (../channel). The page renders
 * and asks; it owns no state (the text document is the model). Once the page
 * is ready the host sends the current preview and the state of the last
 * submit. A submit is a request: its reply (the receipt, or an error) shows
 * where it happened; the host also sends every step of it as `submit`, so a
 * page that reloads meanwhile (a hidden webview is not kept) shows the submit
 * still running, or its receipt.
 */
import type { PreviewModel, ReceiptModel } from './previewTypes';
import { anything, fields, isInt, type RequestType } from '../channel/protocol';

/** What the preview shows for the document's current text. */
export type PreviewState =
  /** The file is not in a bundle the bridge knows (or no bundle folder at all). */
  | { status: 'noBundle'; message: string }
  /** The bridge is not running, or the bundle cannot be checked now (preparing, failed…). */
  | { status: 'unavailable'; message: string; bundleId?: string }
  | { status: 'checking'; bundleId: string }
  | { status: 'checked'; bundleId: string; documentVersion: number; model: PreviewModel };

/** Where the preview's last submit is; the host owns it. */
export type SubmitState =
  | { status: 'idle' }
  | { status: 'running'; message: string }
  | { status: 'done'; receipt: ReceiptModel }
  | { status: 'failed'; code: string; message: string };

export interface ResultEditorProtocol {
  hostEvents: {
    preview: PreviewState;
    /** The last submit of this preview: running (with its step), its receipt, or why it failed. */
    submit: SubmitState;
  };
  pageEvents: {
    /** 1-based line of result.md: reveal it in the text editor. */
    revealLine: { line: number };
    openAsText: void;
  };
  hostRequests: object;
  pageRequests: {
    /** Save result.md and import its cards; errors carry the bridge's code. */
    submit: RequestType<void, ReceiptModel>;
  };
}

export const resultEditorGuards = {
  revealLine: fields({ line: isInt }),
  openAsText: anything,
  submit: anything,
};
