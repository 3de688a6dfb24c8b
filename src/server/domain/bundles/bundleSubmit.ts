import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writePrivateFile } from '../../ground/store/privateFiles';
import * as path from 'node:path';
import { conflict, invalidInput, notFound } from '../../errors';
import type { Actor } from '../../actor';
import { descendantIds, getNote, purgeNotes, recordOperation } from '../cards/noteRows';
import { SnapshotFiles } from '../cards/snapshotFiles';
import { takeSnapshotTx } from '../cards/snapshots';
import { nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import { RECEIPT_FILE } from './bundleFiles';
import { requestOf, type BundleRow } from './bundleRecords';
import type { BundleService } from './bundleService';
import { sha256 } from './bundleFiles';
import { buildPlan } from './importPlan';
import { ambiguityLines, checkExcerpts, MAX_FAILED_EXCERPTS, problemLines, stats } from './bundleReport';
import type { BundleSource } from './bundleSource';
import { parseResult } from './resultParser';
import { writeTree } from './bundleTreeWrite';

export { MAX_FAILED_EXCERPTS } from './bundleReport';

export interface SubmitOptions {
  resultMarkdown?: string;
  targetParentNoteId?: string;
  withBlank?: boolean;
  excerptMode?: 'child' | 'link';
}

/** Dictionary and block bundles always merge excerpts into their cards (docs/ARCHITECTURE.md, "Agents' vocabulary"). */
const forcedMerge = (row: BundleRow) => row.anchor_mode === 'block' || row.preset === 'dictionary';

async function resultText(svc: BundleService, row: BundleRow, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  const file = path.join(svc.folderOf(row.bundle_id), 'result.md');
  if (!existsSync(file))
    throw notFound(
      'RESULT_MISSING',
      `result.md is missing from ${svc.folderOf(row.bundle_id)}; write it (or send resultMarkdown).`,
      { bundleId: row.bundle_id },
    );
  return readFile(file, 'utf8');
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
    const rootNoteId = row.root_note_id!;
    const existing = svc.store.get<{ parent_id: string | null; position: number; hidden: number }>(
      'SELECT parent_id, position, hidden FROM notes WHERE noteid = ?',
      [rootNoteId],
    );
    const setRoot = svc.store.get<{ root_note_id: string }>('SELECT root_note_id FROM topics WHERE topicid = ?', [
      row.topicid,
    ])!.root_note_id;
    const oldTree = existing ? [rootNoteId, ...allDescendants(svc, rootNoteId)] : [];
    let parentId = existing && !existing.hidden && existing.parent_id ? existing.parent_id : setRoot;
    if (opts.targetParentNoteId) {
      const target = getNote(svc.store, opts.targetParentNoteId);
      if (target.topicid !== row.topicid) {
        throw invalidInput(
          `targetParentNoteId ${target.noteid} belongs to another study set than this bundle's (${row.topicid}). Nothing was imported.`,
          { targetParentNoteId: target.noteid },
          'TARGET_IN_OTHER_SET',
        );
      }
      if (oldTree.includes(target.noteid)) {
        throw invalidInput(
          'targetParentNoteId lies inside the tree this submit replaces. Nothing was imported.',
          { targetParentNoteId: target.noteid },
          'TARGET_INSIDE_IMPORT',
        );
      }
      parentId = target.noteid;
    }
    const { parsed, plan: p, warnings } = plan(svc, row, text, opts, rootNoteId, source);
    const now = nowIso();
    const version = row.version + 1;
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
        bundleId,
      ]);
    });
    const persisted = descendantIds(svc.store, rootNoteId).length + 1 === p.cards.length;
    const s = stats(p);
    const failedTotal = s.excerptsTotal - s.excerptsAnchored;
    if (s.headings !== s.importedCards)
      warnings.push(`${s.headings - s.importedCards} heading(s) were not imported (lost cards): see problems.`);
    if (failedTotal)
      warnings.push(
        `${failedTotal} of ${s.excerptsTotal} excerpts did not anchor: see parsed.failedExcerpts (line and reason).`,
      );
    const receipt = {
      bundleId,
      rootNoteId,
      version,
      replaced: oldTree.length > 0,
      preImportSnapshotId: snapshotId,
      persisted,
      cardsCreated: p.cards.length,
      receipt: p.cards.map((c) => ({ noteid: c.noteid, title: c.title, parent: c.parent ?? parentId, depth: c.depth })),
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
    writeMarker(svc, row, {
      ...marker,
      state: 'imported',
      version,
      rootNoteId,
      importedAt: now,
      preImportSnapshotId: snapshotId,
      parsed: { ...s, failedExcerpts: undefined, ambiguousExcerpts: undefined },
    });
    return receipt;
  } finally {
    svc.submitting.delete(bundleId);
  }
}

/** Every descendant, hidden ones too: a replace removes the whole old tree. */
function allDescendants(svc: BundleService, rootId: string): string[] {
  return svc.store
    .all<{ noteid: string }>(
      `WITH RECURSIVE sub(noteid) AS (SELECT noteid FROM notes WHERE parent_id = ? UNION ALL SELECT n.noteid FROM notes n JOIN sub ON n.parent_id = sub.noteid) SELECT noteid FROM sub`,
      [rootId],
    )
    .map((r) => r.noteid);
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
