import { readFileSync } from 'node:fs';
import { writePrivateFile } from '../../ground/store/privateFiles';
import * as path from 'node:path';
import { conflict, invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import { descendantIds, purgeNotes, recordOperation } from '../cards/noteRows';
import { SnapshotFiles } from '../cards/snapshotFiles';
import { takeSnapshotTx } from '../cards/snapshots';
import { nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import { RECEIPT_FILE } from './bundleFiles';
import { requestOf, type BundleRow } from './bundleRecords';
import type { BundleService } from './bundleService';
import { sha256 } from './bundleFiles';
import { buildPlan, type ImportPlan } from './importPlan';
import { ambiguityLines, checkExcerpts, MAX_FAILED_EXCERPTS, problemLines, stats } from './bundleReport';
import type { BundleSource } from './bundleSource';
import { parseResult } from './resultParser';
import { readResultFile } from './resultFile';
import { writeTree } from './bundleTreeWrite';
import { type SubmitTarget, submitTarget } from './submitTarget';

export { MAX_FAILED_EXCERPTS } from './bundleReport';

export interface SubmitOptions {
  resultMarkdown?: string;
  targetParentNoteId?: string;
  withBlank?: boolean;
  excerptMode?: 'child' | 'link';
}

/** Dictionary and block bundles always merge excerpts into their cards (docs/CONTRACT-CHOICES.md, "Agents' vocabulary"). */
const forcedMerge = (row: BundleRow) => row.anchor_mode === 'block' || row.preset === 'dictionary';

async function resultText(svc: BundleService, row: BundleRow, given: string | undefined): Promise<string> {
  return given ?? readResultFile(svc.folderOf(row.bundle_id), row.bundle_id);
}

function plan(
  svc: BundleService,
  row: BundleRow,
  markdown: string,
  opts: SubmitOptions,
  rootNoteId: string,
  source: BundleSource,
) {
  const parsed = parseResult(markdown, { stripWikilinks: row.preset === 'dictionary' });
  const req = requestOf(row);
  const merge = forcedMerge(row) || opts.excerptMode === 'link';
  const p = buildPlan(parsed, source, {
    title: req.title,
    bookmd5: row.bookmd5,
    excerptMode: merge ? 'merge' : 'child',
    withBlank: !!opts.withBlank,
    defaultFillIndex: req.defaultFillIndex,
    rootNoteId,
  });
  const warnings: string[] = [];
  if (forcedMerge(row) && opts.excerptMode === 'child')
    warnings.push(
      `excerptMode "child" does not apply: ${row.preset === 'dictionary' ? 'dictionary' : 'block'} bundles always merge excerpts into their cards.`,
    );
  warnings.push(...ambiguityLines(p));
  return { parsed, plan: p, warnings };
}

/** POST /bundles/{id}/check: the same parser and anchorer as submit, nothing written. */
export async function checkBundle(
  svc: BundleService,
  bundleId: string,
  markdown: string | undefined,
  opts: SubmitOptions = {},
) {
  const row = svc.readyBundle(bundleId);
  const text = await resultText(svc, row, markdown);
  const { parsed, plan: p, warnings } = plan(svc, row, text, opts, row.root_note_id ?? 'ROOT', await svc.source(row));
  const failedTotal = p.excerpts.filter((e) => !e.anchored).length;
  return {
    bundleId,
    state: row.state,
    ok: !parsed.problems.some((x) => x.severity === 'error') && failedTotal === 0 && p.headings === p.importedCards,
    cardsCreated: p.cards.length,
    parsed: { ...stats(p), failedExcerpts: undefined, ambiguousExcerpts: undefined },
    excerpts: checkExcerpts(p),
    tree: p.cards.map((c) => ({
      key: c.noteid,
      parent: c.parent,
      depth: c.depth,
      title: c.title,
      kind: c.kind,
      line: c.line,
      hasExcerpt: !!c.source,
      page: c.source?.page ?? null,
      texts: c.texts.length,
      colorIndex: c.colorIndex,
      fillIndex: c.fillIndex,
    })),
    problems: parsed.problems,
    warnings,
  };
}

/** POST /bundles/{id}/submit: parse, anchor, snapshot, then import or replace the whole tree in one transaction. */
export async function submitBundle(svc: BundleService, bundleId: string, opts: SubmitOptions, actor: Actor) {
  if (svc.submitting.has(bundleId)) {
    throw conflict(
      'SUBMIT_IN_FLIGHT',
      'A submit of this bundle is already running. Do not retry: read GET /bundles (state "imported", version) — the import is usually finished.',
      { bundleId, retryAfterSeconds: 5 },
      true,
    );
  }
  if (svc.discarding.has(bundleId))
    throw conflict('BUNDLE_DISCARDING', 'This bundle is being discarded; nothing was imported.', { bundleId });
  const row = svc.readyBundle(bundleId);
  svc.submitting.add(bundleId);
  try {
    assertStudySet(svc.store, row.topicid);
    const { text, source, marker } = await submittedResult(svc, row, opts);
    const target = submitTarget(svc, row, opts.targetParentNoteId);
    const { parsed, plan: p, warnings } = plan(svc, row, text, opts, target.rootNoteId, source);
    const now = nowIso();
    const version = row.version + 1;
    const snapshotId = await replaceTree(svc, row, p, target, actor, now, version);
    const persisted = descendantIds(svc.store, target.rootNoteId).length + 1 === p.cards.length;
    const receipt = receiptOf(row, opts, target, { parsed, plan: p, warnings }, { version, snapshotId, persisted });
    writeMarker(svc, row, {
      ...marker,
      state: 'imported',
      version,
      rootNoteId: target.rootNoteId,
      importedAt: now,
      preImportSnapshotId: snapshotId,
      parsed: { ...receipt.parsed, failedExcerpts: undefined, ambiguousExcerpts: undefined },
    });
    return receipt;
  } finally {
    svc.submitting.delete(bundleId);
  }
}

/** The result.md to import, its source, and the prepare's marker; an empty file or the untouched draft is refused. */
async function submittedResult(svc: BundleService, row: BundleRow, opts: SubmitOptions) {
  const bundleId = row.bundle_id;
  const text = await resultText(svc, row, opts.resultMarkdown);
  const source = await svc.source(row); // read before the checks below, so nothing awaits between them and the write
  if (!text.trim())
    throw invalidInput(
      'result.md is empty; nothing was imported. OUTPUT-CONTRACT.md gives the grammar.',
      { bundleId },
      'RESULT_EMPTY',
    );
  const marker = readMarker(svc, row);
  if (marker?.draftSha256 === sha256(text)) {
    throw invalidInput(
      'result.md is still the untouched draft; nothing was imported. Write the cards first (TASK.md), and use POST /bundles/{id}/check to test — submit is not a test.',
      { bundleId },
      'RESULT_IS_DRAFT',
    );
  }
  return { text, source, marker };
}

/** One transaction: snapshot the set, drop the old tree, write the planned one, mark the bundle imported. */
async function replaceTree(
  svc: BundleService,
  row: BundleRow,
  p: ImportPlan,
  target: SubmitTarget,
  actor: Actor,
  now: string,
  version: number,
): Promise<string> {
  const { existing, oldTree, parentId } = target;
  const req = requestOf(row);
  let snapshotId = '';
  await svc.store.write((tx) => {
    snapshotId = takeSnapshotTx(
      tx,
      SnapshotFiles.of(svc.config.dataDir),
      row.topicid,
      `Before importing bundle "${req.title}" (version ${version})`,
      now,
      'pre_import',
    );
    purgeNotes(tx, oldTree);
    const position = existing && parentId === existing.parent_id ? existing.position : undefined;
    writeTree(tx, p, row.topicid, parentId, position, now);
    recordOperation(tx, {
      topicid: row.topicid,
      kind: 'import',
      actor,
      noteIds: [...oldTree, ...p.cards.map((c) => c.noteid)],
      now,
    });
    tx.run(`UPDATE bundles SET state = 'imported', version = ?, updated_at = ? WHERE bundle_id = ?`, [
      version,
      now,
      row.bundle_id,
    ]);
  });
  return snapshotId;
}

/** What submit answers: the cards written, the parse and anchoring stats, and every warning. */
function receiptOf(
  row: BundleRow,
  opts: SubmitOptions,
  target: SubmitTarget,
  { parsed, plan: p, warnings }: ReturnType<typeof plan>,
  done: { version: number; snapshotId: string; persisted: boolean },
) {
  const s = stats(p);
  const failedTotal = s.excerptsTotal - s.excerptsAnchored;
  if (s.headings !== s.importedCards)
    warnings.push(`${s.headings - s.importedCards} heading(s) were not imported (lost cards): see problems.`);
  if (failedTotal)
    warnings.push(
      `${failedTotal} of ${s.excerptsTotal} excerpts did not anchor: see parsed.failedExcerpts (line and reason).`,
    );
  return {
    bundleId: row.bundle_id,
    rootNoteId: target.rootNoteId,
    version: done.version,
    replaced: target.oldTree.length > 0,
    preImportSnapshotId: done.snapshotId,
    persisted: done.persisted,
    cardsCreated: p.cards.length,
    receipt: p.cards.map((c) => ({
      noteid: c.noteid,
      title: c.title,
      parent: c.parent ?? target.parentId,
      depth: c.depth,
    })),
    parsed: s,
    excerptStatsTruncated: failedTotal > MAX_FAILED_EXCERPTS,
    ...(opts.withBlank
      ? {
          blankInsertion: { requested: s.excerptsAnchored, created: p.blanks, failed: s.excerptsAnchored - p.blanks },
        }
      : {}),
    problems: parsed.problems,
    warnings: [...warnings, ...problemLines(parsed.problems)],
  };
}

function readMarker(svc: BundleService, row: BundleRow): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path.join(svc.folderOf(row.bundle_id), RECEIPT_FILE), 'utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    return undefined;
  }
}

function writeMarker(svc: BundleService, row: BundleRow, data: Record<string, unknown>): void {
  try {
    writePrivateFile(path.join(svc.folderOf(row.bundle_id), RECEIPT_FILE), JSON.stringify(data, null, 2));
  } catch {
    /* the folder may be gone (cross-device submit after a discard race); the store holds the truth */
  }
}
