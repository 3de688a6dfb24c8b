import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { renameReplacing } from '../../ground/store/renameReplacing';
import { FILE_MODE, mkdirPrivateAsync } from '../../ground/store/privateFiles';
import * as path from 'node:path';
import { conflict, invalidInput } from '../../errors';
import { asNoSpace } from '../../ground/store/diskSpace';
import type { Store } from '../../ground/store/store';
import type { BridgeConfig } from '../../config';
import type { ExportSlot } from '../library/exportSlot';
import type { PrintMode } from './printPagination';
import { drawPlan } from './printPdf';
import { buildPlan, planFingerprint, type PrintPlan } from './printPlan';
import { loadPrintTree } from './printTree';
import { assertStudySet } from '../library/studySets';
import { cjkPrintFontFile, needsCjkFont } from '../cards/cjkFontFile';

export const EXPORT_FOLDER = 'MindMapExports';

/** What a print reads and holds; `tokens.mainToken` keys the plan fingerprint. */
interface Services {
  store: Store;
  config: Pick<BridgeConfig, 'exportFolder'>;
  exportSlot: ExportSlot;
  tokens: { readonly mainToken: string };
}

/** POST …/mind-map-print/preview: plans the pages; writes nothing. */
export function previewPrint(
  services: Services,
  topicid: string,
  mode: PrintMode,
  densityValue: number,
  rootNoteId?: string,
) {
  const tree = loadPrintTree(services.store, topicid, rootNoteId);
  const { plan, warnings } = buildPlan(tree, mode, densityValue, services.tokens.mainToken);
  return { ...plan, ...(warnings.length ? { warnings } : {}) };
}

/** A plain file stem: no "/", "..", leading "." or control characters; ".pdf" is added. */
function fileStem(name: string): string {
  const stem = name.normalize('NFC').replace(/\.pdf$/i, '');
  if (
    !stem ||
    stem.includes('/') ||
    stem.includes('\\') ||
    stem.includes('..') ||
    stem.startsWith('.') ||
    /[\u0000-\u001f:*?"<>|]/.test(stem) ||
    Buffer.byteLength(stem) > 200 ||
    stem.trim() !== stem
  ) {
    throw invalidInput(
      `fileName "${name.slice(0, 80)}" must be a plain file name: no "/", "..", leading "." or control characters.`,
      { field: 'fileName' },
      'INVALID_FILENAME',
    );
  }
  return stem;
}

const safeStem = (title: string) =>
  title
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 80) || 'mind-map';

/**
 * POST …/mind-map-print/export: draws a saved plan as it is (never
 * re-planned). A plan not made by this bridge → 422 PLAN_FINGERPRINT_MISMATCH;
 * the cards changed since → 409 PLAN_STALE; another export running → 429
 * EXPORT_BUSY (the slot document export uses). Never overwrites a file.
 */
export async function exportPrint(services: Services, topicid: string, plan: PrintPlan, fileName: string | undefined) {
  assertStudySet(services.store, topicid);
  if (planFingerprint(plan, services.tokens.mainToken) !== plan.planFingerprint) {
    throw invalidInput(
      'The plan does not match its planFingerprint: it was edited or not made by this bridge. Run preview again and send its answer unchanged.',
      undefined,
      'PLAN_FINGERPRINT_MISMATCH',
    );
  }
  if (plan.topicid !== topicid)
    throw invalidInput(
      `The plan was made for study set ${plan.topicid}, not ${topicid}.`,
      { planTopicid: plan.topicid, topicid },
      'PLAN_FOR_OTHER_SET',
    );
  const stem = fileName !== undefined ? fileStem(fileName) : undefined;
  const tree = unchangedTree(services.store, topicid, plan);
  const cards = new Map(tree.cards.map((c) => [c.noteid, c]));
  return services.exportSlot.run(async () => {
    const wantsCjk = [tree.setTitle, ...tree.cards.map((c) => c.label)].some(needsCjkFont);
    const cjkFile = wantsCjk ? cjkPrintFontFile() : null;
    const { bytes, replacedChars } = await drawPlan(
      plan,
      tree.setTitle,
      cards,
      cjkFile ? await readFile(cjkFile) : undefined,
    );
    const folder = path.join(services.config.exportFolder, EXPORT_FOLDER);
    await mkdirPrivateAsync(folder);
    const base = stem ?? `${safeStem(tree.setTitle)}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    let name = `${base}.pdf`;
    for (let i = 2; existsSync(path.join(folder, name)); i++) name = `${base} (${i}).pdf`;
    const out = path.join(folder, name);
    const tmp = `${out}.${process.pid}.tmp`;
    try {
      await writeFile(tmp, bytes, { mode: FILE_MODE });
      await renameReplacing(tmp, out); // a PDF viewer on Windows may hold the old file
    } catch (e) {
      await rm(tmp, { force: true }); // a full disk leaves no half-written file
      throw asNoSpace(e, 'The mind-map print', folder);
    }
    const warnings = [
      ...(name !== `${base}.pdf`
        ? [`${base}.pdf already exists in ${EXPORT_FOLDER}; written as ${name} (never overwritten).`]
        : []),
      ...(replacedChars ? [`${replacedChars} character(s) outside the PDF font's Latin range print as "?".`] : []),
      ...(wantsCjk && !cjkFile
        ? [
            'Chinese, Japanese and Korean characters print as "?": no CJK font with TrueType outlines was found to embed (for example WenQuanYi Micro Hei: fonts-wqy-microhei on Debian/Ubuntu; Microsoft YaHei on Windows). Set STUDY_BRIDGE_CJK_FONT to one and restart the bridge. Card renders (GET /notes/{id}/render) draw them with any CJK font.',
          ]
        : []),
    ];
    return {
      exported: true,
      topicid,
      path: out,
      folder: EXPORT_FOLDER,
      fileName: name,
      pageCount: plan.pages.length,
      bytes: bytes.byteLength,
      planFingerprint: plan.planFingerprint,
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

/** The branch the plan prints, as it is now: 409 PLAN_STALE when it is gone or its cards changed since the plan. */
function unchangedTree(store: Store, topicid: string, plan: PrintPlan) {
  let tree;
  try {
    tree = loadPrintTree(store, topicid, plan.rootNoteId);
  } catch (e) {
    // The printed branch itself is gone (deleted or moved out of reach): the plan is stale.
    const code = (e as { code?: string }).code;
    if (code === 'NOTE_NOT_FOUND' || code === 'NOTE_NOT_IN_TREE' || code === 'NOTES_IN_DIFFERENT_SETS') {
      throw conflict(
        'PLAN_STALE',
        `The plan's root card ${plan.rootNoteId} is no longer in this set's tree; preview again.`,
        { rootNoteId: plan.rootNoteId },
      );
    }
    throw e;
  }
  if (tree.fingerprint !== plan.treeFingerprint) {
    throw conflict(
      'PLAN_STALE',
      'The cards changed since this plan was made (structure, order, titles or colours); preview again and export the new plan.',
      {
        planTreeFingerprint: plan.treeFingerprint,
        currentTreeFingerprint: tree.fingerprint,
      },
    );
  }
  return tree;
}
