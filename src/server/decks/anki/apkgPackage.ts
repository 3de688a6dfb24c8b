import { strFromU8 } from 'fflate';
import { invalidInput } from '../../errors';
import { readCollection, type AnkiCollection } from './ankiCollection';
import { apkgDamaged, ZipFile, type ZipLimits } from './apkgZip';

/**
 * An opened .apkg: its collection read, its media map (file name → zip
 * entry), and the zip kept open to read the media a note uses, one at a time.
 */

/** What an import reads at most: the collection or any one file, and everything it inflates. */
export const APKG_LIMITS: ZipLimits = { entryBytes: 256 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024 };
/** An image bigger than this is left out (skipped[]): a card picture, not a poster. */
export const MAX_MEDIA_BYTES = 32 * 1024 * 1024;

export interface ApkgPackage {
  collection: AnkiCollection;
  /** Media file name → zip entry name. */
  media: Map<string, string>;
  zip: ZipFile;
  /** Declared inflated size of a media file, undefined when the package lacks it. */
  mediaSize(name: string): number | undefined;
  readMedia(name: string): Promise<Uint8Array | undefined>;
  close(): Promise<void>;
}

export const formatUnsupported = () =>
  invalidInput(
    'This Anki package holds only the newer collection format (collection.anki21b), which the bridge does not read. In Anki, export again with File → Export… → "Anki Deck Package" and tick "Support older Anki versions". Nothing was stored.',
    { entry: 'collection.anki21b', fix: 'Support older Anki versions' },
    'APKG_FORMAT_UNSUPPORTED',
  );

export async function openApkg(path: string, limits: ZipLimits = APKG_LIMITS): Promise<ApkgPackage> {
  const zip = await ZipFile.open(path, limits);
  try {
    const names = zip.entries;
    // Anki writes collection.anki21 beside a stub collection.anki2 ("please update") when both exist: the newer one is the real one.
    const colName = names.has('collection.anki21') ? 'collection.anki21' : names.has('collection.anki2') ? 'collection.anki2' : undefined;
    if (names.has('collection.anki21b') && (!colName || isStubExport(names))) throw formatUnsupported();
    if (!colName) throw apkgDamaged('it holds no collection.anki2 or collection.anki21');
    const collection = await readCollection((await zip.read(colName))!);
    const media = new Map<string, string>();
    const mapBytes = await zip.read('media');
    if (mapBytes && mapBytes.length) {
      let map: unknown;
      try {
        map = JSON.parse(strFromU8(mapBytes));
      } catch {
        throw apkgDamaged('its media list is not JSON (a newer package: export with "Support older Anki versions")');
      }
      if (map && typeof map === 'object') for (const [entry, name] of Object.entries(map as Record<string, unknown>)) if (typeof name === 'string' && names.has(entry)) media.set(name, entry);
    }
    return {
      collection,
      media,
      zip,
      mediaSize: (name) => {
        const entry = media.get(name);
        return entry === undefined ? undefined : names.get(entry)?.size;
      },
      readMedia: async (name) => {
        const entry = media.get(name);
        return entry === undefined ? undefined : zip.read(entry);
      },
      close: () => zip.close(),
    };
  } catch (e) {
    await zip.close();
    throw e;
  }
}

/** A package with collection.anki21b whose legacy collection is the stub newer Anki writes (no .anki21, a tiny .anki2). */
function isStubExport(names: ReadonlyMap<string, { size: number }>): boolean {
  return !names.has('collection.anki21');
}
