/**
 * What the result.md preview page shows: built by the host
 * (editors/resultPreviewModel.ts) from the bridge's check and submit answers,
 * rendered by the page (main.ts). Beside the page so the page imports nothing
 * from the extension's layers.
 */

export type AnchorReason = 'no_match' | 'below_threshold' | 'missing_info' | 'invalid_excerpt' | 'no_coordinates';

export interface PreviewExcerpt {
  line: number;
  text: string;
  anchored: boolean;
  page: number | null;
  /** Why it did not anchor (absent when anchored). */
  reason?: string;
  reasonText?: string;
}

export interface PreviewNode {
  key: string;
  depth: number;
  /** An excerpt card (child mode): shown as its excerpt, not as a titled card. */
  excerptCard: boolean;
  title: string;
  line: number;
  colorIndex: number | null;
  excerpts: PreviewExcerpt[];
}

export interface PreviewProblem {
  /** 1-based line of result.md. */
  line: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

export interface Counts {
  headings: number;
  importedCards: number;
  /** Headings that will not become cards (too deep…). */
  lostCards: number;
  excerptsTotal: number;
  excerptsAnchored: number;
}

export interface PreviewModel {
  ok: boolean;
  bundleState: string;
  counts: Counts;
  nodes: PreviewNode[];
  /** Parser problems and unanchored excerpts, by line: also the Problems panel's entries. */
  problems: PreviewProblem[];
  warnings: string[];
}

export interface ReceiptModel {
  version: number;
  replaced: boolean;
  rootNoteId: string;
  preImportSnapshotId: string;
  counts: Counts;
  /** Lines of headings that were not imported. */
  lostCardLines: number[];
  failedExcerpts: PreviewExcerpt[];
  /** More excerpts failed than the receipt lists. */
  truncated: boolean;
  warnings: string[];
}
