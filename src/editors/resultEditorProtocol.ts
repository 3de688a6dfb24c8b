/**
 * Messages between the result.md editor (extension host) and its webview.
 * The webview renders and asks; it owns no state. It says `ready` first; the
 * host then sends the current preview. Requests (submit) carry a requestId and
 * get exactly one `reply` with the same id, so an error shows where it happened.
 * media/resultEditor.js speaks this protocol; keep the two in step.
 */
import type { PreviewModel, ReceiptModel } from './resultPreviewModel';

/** What the preview shows for the document's current text. */
export type PreviewState =
  /** The file is not in a bundle the bridge knows (or no bundle folder at all). */
  | { status: 'noBundle'; message: string }
  /** The bridge is not running, or the bundle cannot be checked now (preparing, failed…). */
  | { status: 'unavailable'; message: string; bundleId?: string }
  | { status: 'checking'; bundleId: string }
  | { status: 'checked'; bundleId: string; documentVersion: number; model: PreviewModel };

export type HostToWebview =
  | { type: 'preview'; state: PreviewState }
  | { type: 'progress'; requestId: number; message: string }
  | { type: 'reply'; requestId: number; ok: true; receipt: ReceiptModel }
  | { type: 'reply'; requestId: number; ok: false; error: { code: string; message: string } };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'submit'; requestId: number }
  /** 1-based line of result.md: reveal it in the text editor. */
  | { type: 'revealLine'; line: number }
  | { type: 'openAsText' };

export const isWebviewMessage = (m: unknown): m is WebviewToHost => {
  const t = (m as { type?: unknown } | null)?.type;
  if (t === 'ready' || t === 'openAsText') return true;
  if (t === 'submit') return Number.isInteger((m as { requestId?: unknown }).requestId);
  if (t === 'revealLine') return Number.isInteger((m as { line?: unknown }).line);
  return false;
};
