import type { BundleCheck, BundleReceipt } from '../client/bundlesApi';

/**
 * Pure: what the result.md editor shows, computed from the bridge's answers
 * (POST /bundles/{id}/check and /submit). No VS Code here, so it is unit-tested
 * on its own; the editor only turns `problems` into Diagnostics and posts the
 * models to the webview.
 */

import type {
  AnchorReason,
  Counts,
  PreviewExcerpt,
  PreviewModel,
  PreviewNode,
  PreviewProblem,
  ReceiptModel,
} from '../webviews/resultEditor/previewTypes';

export type { AnchorReason, Counts, PreviewExcerpt, PreviewModel, PreviewNode, PreviewProblem, ReceiptModel };

const REASONS: Record<AnchorReason, string> = {
  no_match: "not found in the bundle's pages",
  below_threshold: 'only a loosely similar passage was found (quote the page verbatim)',
  missing_info: 'its page is not part of this bundle',
  invalid_excerpt: 'the marker is malformed (unclosed or empty)',
  no_coordinates: 'found, but the page has no text positions to anchor to',
};

export const reasonText = (reason: string | undefined): string | undefined =>
  reason === undefined ? undefined : (REASONS[reason as AnchorReason] ?? reason.replace(/_/g, ' '));

/** Problem codes that mean a heading is lost (not imported as a card). */
const LOST_CODES = new Set(['TOO_DEEP']);

const countsOf = (p: {
  headings: number;
  importedCards: number;
  excerptsTotal: number;
  excerptsAnchored: number;
}): Counts => ({
  headings: p.headings,
  importedCards: p.importedCards,
  lostCards: Math.max(0, p.headings - p.importedCards),
  excerptsTotal: p.excerptsTotal,
  excerptsAnchored: p.excerptsAnchored,
});

const excerptOf = (e: {
  line: number;
  excerpt: string;
  anchored?: boolean;
  page?: number;
  reason?: string;
}): PreviewExcerpt => ({
  line: e.line,
  text: e.excerpt,
  anchored: e.anchored ?? false,
  page: e.page ?? null,
  ...(e.anchored ? {} : { reason: e.reason ?? 'no_match', reasonText: reasonText(e.reason ?? 'no_match') }),
});

const unanchoredProblem = (e: PreviewExcerpt): PreviewProblem => ({
  line: e.line,
  severity: 'error',
  code: `EXCERPT_${(e.reason ?? 'no_match').toUpperCase()}`,
  message: `Excerpt not anchored: ${e.reasonText} — "${e.text.length > 80 ? `${e.text.slice(0, 79)}…` : e.text}"`,
});

export function previewModel(check: BundleCheck): PreviewModel {
  const byCard = new Map<string, PreviewExcerpt[]>();
  for (const e of check.excerpts) byCard.set(e.cardKey, [...(byCard.get(e.cardKey) ?? []), excerptOf(e)]);
  const nodes: PreviewNode[] = check.tree.map((n) => {
    const excerpts = byCard.get(n.key) ?? [];
    // child mode: an excerpt becomes an untitled child card made from that excerpt's line.
    const excerptCard = n.parent !== null && n.title === '' && excerpts.length === 1 && excerpts[0].line === n.line;
    return {
      key: n.key,
      depth: n.depth,
      excerptCard,
      title: n.title,
      line: n.line,
      colorIndex: n.colorIndex,
      excerpts,
    };
  });
  const unanchored = check.excerpts.filter((e) => !e.anchored).map((e) => unanchoredProblem(excerptOf(e)));
  const problems = [...check.problems, ...unanchored].sort(
    (a, b) => a.line - b.line || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1),
  );
  return {
    ok: check.ok,
    bundleState: check.state,
    counts: countsOf(check.parsed),
    nodes,
    problems,
    warnings: check.warnings,
  };
}

export function receiptModel(r: BundleReceipt): ReceiptModel {
  return {
    version: r.version,
    replaced: r.replaced,
    rootNoteId: r.rootNoteId,
    preImportSnapshotId: r.preImportSnapshotId,
    counts: countsOf(r.parsed),
    lostCardLines: r.problems.filter((p) => LOST_CODES.has(p.code)).map((p) => p.line),
    failedExcerpts: r.parsed.failedExcerpts.map((e) => excerptOf({ ...e, anchored: false })),
    truncated: r.excerptStatsTruncated,
    warnings: r.warnings,
  };
}

/** `<…>/bundles/<bundleId>/result.md` → bundleId (the folder's name), else undefined. */
export function bundleIdOfPath(fsPath: string): string | undefined {
  const m = /[\\/]bundles[\\/]([^\\/]+)[\\/]result\.md$/i.exec(fsPath);
  return m && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(m[1]) ? m[1] : undefined;
}
