import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Actor } from '../../../actor';
import type { BridgeConfig } from '../../../config';
import { invalidInput } from '../../../errors';
import { nowIso } from '../../library/ids';
import { spoolUpload } from '../../library/uploadSpool';
import type { Store } from '../../../ground/store/store';
import { openApkg, MAX_MEDIA_BYTES, type ApkgPackage } from './apkgPackage';
import { planImportSliced, type ImportPlan, type ImportSkip } from './ankiImportPlan';
import { writeImport } from './ankiImportWrite';
import { portableNameProblem } from '../../security/portableNames';

/**
 * POST /decks/import: an .apkg written to a spool file as it arrives (the
 * upload limit holds), opened entry by entry, mapped, and written in one
 * journaled transaction: a new study set and deck, or, when the package's
 * note guids were imported before, the same set and deck updated.
 */

export interface AnkiImportDeps {
  store: Store;
  config: BridgeConfig;
}

export interface AnkiImportInput {
  body: Readable;
  filename: string;
}

const notAZip = () =>
  invalidInput(
    'The uploaded bytes are not an Anki package (.apkg is a zip; no "PK" header). Nothing was stored.',
    undefined,
    'APKG_NOT_A_ZIP',
  );

/** Spools the body, opens it, runs `fn` (`onEmpty` when no byte came), and always removes the spool file. */
async function withPackage<T>(
  deps: AnkiImportDeps,
  input: AnkiImportInput,
  fn: (pkg: ApkgPackage) => Promise<T>,
  onEmpty: () => T = () => {
    throw notAZip();
  },
): Promise<T> {
  if (!/\.(apkg|colpkg|zip)$/i.test(input.filename))
    throw invalidInput(
      `filename "${input.filename}" must end in .apkg (an Anki package). Nothing was stored.`,
      { field: 'filename' },
      'APKG_NOT_A_ZIP',
    );
  mkdirSync(deps.config.libraryDir, { recursive: true });
  const spooled = await spoolUpload(input.body, deps.config.libraryDir, deps.config.limits.uploadBytes, (head) => {
    if (head.length > 0 && (head.length < 4 || head[0] !== 0x50 || head[1] !== 0x4b)) throw notAZip();
  });
  try {
    if (spooled.size === 0) return onEmpty();
    const pkg = await openApkg(spooled.path);
    try {
      return await fn(pkg);
    } finally {
      await pkg.close();
    }
  } finally {
    await rm(spooled.path, { force: true });
  }
}

/** The pictures a plan uses, read from the package; missing or oversized ones become skips. */
async function loadMedia(
  pkg: ApkgPackage,
  plan: ImportPlan,
): Promise<{ media: Map<string, Uint8Array>; skipped: ImportSkip[] }> {
  const media = new Map<string, Uint8Array>();
  const skipped: ImportSkip[] = [];
  const wanted = new Set(plan.notes.flatMap((n) => n.images));
  for (const name of wanted) {
    const size = pkg.mediaSize(name);
    const notPortable = portableNameProblem(name);
    // Such a name is never stored: AnkiConnect clients write media under the name they are given.
    if (notPortable) skipped.push({ kind: 'media', ref: name, reason: `not a plain file name: ${notPortable}` });
    else if (size === undefined)
      skipped.push({ kind: 'media', ref: name, reason: 'named by a note but not in the package' });
    else if (size > MAX_MEDIA_BYTES)
      skipped.push({
        kind: 'media',
        ref: name,
        reason: `${size} bytes, over the ${MAX_MEDIA_BYTES}-byte limit of a card picture`,
      });
    else media.set(name, (await pkg.readMedia(name))!);
  }
  return { media, skipped };
}

/** What the package would create or update (the 422's details without confirm=1). */
export async function previewApkgImport(
  deps: AnkiImportDeps,
  input: AnkiImportInput,
): Promise<Record<string, unknown>> {
  return withPackage<Record<string, unknown>>(
    deps,
    input,
    async (pkg) => {
      const plan = await planImportSliced(pkg.collection, new Date());
      const wanted = new Set(plan.notes.flatMap((n) => n.images));
      const available = [...wanted].filter(
        (n) => !portableNameProblem(n) && (pkg.mediaSize(n) ?? Infinity) <= MAX_MEDIA_BYTES,
      ).length;
      const guids = plan.notes.map((n) => n.guid);
      const known = countKnown(deps.store, guids);
      return {
        wouldCreate: {
          studySetTitle: plan.deckName,
          deckTitle: plan.deckName,
          notes: plan.notes.length - known,
          cards: plan.notes.reduce((sum, n) => sum + n.reviews.length, 0),
          media: available,
        },
        wouldUpdate: known,
        notes: plan.notes.length,
        skipped: plan.skipped.slice(0, 50),
        skippedCount: plan.skipped.length + (wanted.size - available),
      };
    },
    () => ({ wouldCreate: null, reason: 'No bytes were sent: the body is the .apkg file itself.' }),
  );
}

export async function importApkg(deps: AnkiImportDeps, input: AnkiImportInput, actor: Actor) {
  return withPackage(deps, input, async (pkg) => {
    const now = nowIso();
    const plan = await planImportSliced(pkg.collection, new Date(now));
    const { media, skipped } = await loadMedia(pkg, plan);
    const result = await writeImport(deps.store, plan, media, actor, now);
    return { ...result, skipped: [...plan.skipped, ...skipped] };
  });
}

function countKnown(store: Store, guids: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < guids.length; i += 500) {
    const chunk = guids.slice(i, i + 500);
    n +=
      store.get<{ n: number }>(
        `SELECT count(*) AS n FROM anki_notes WHERE guid IN (${chunk.map(() => '?').join(',')})`,
        chunk,
      )?.n ?? 0;
  }
  return n;
}
