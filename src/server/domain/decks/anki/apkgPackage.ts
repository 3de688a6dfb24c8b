import { strFromU8 } from 'fflate';
import { invalidInput } from '../../../errors';
import { readCollection, type AnkiCollection } from './ankiCollection';
import { apkgDamaged, ZipFile, type ZipLimits } from './apkgZip';
import { isZstd, mediaEntries, unzstd } from './ankiNewFormat';

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
    'This Anki package holds the newer collection format (collection.anki21b) in a form the bridge cannot read. In Anki, export again with File → Export… → "Anki Deck Package" and tick "Support older Anki versions". Nothing was stored.',
    { entry: 'collection.anki21b', fix: 'Support older Anki versions' },
    'APKG_FORMAT_UNSUPPORTED',
  );

export async function openApkg(path: string, limits: ZipLimits = APKG_LIMITS): Promise<ApkgPackage> {
  const zip = await ZipFile.open(path, limits);
  try {
    const names = zip.entries;
    // Newest first: collection.anki21b (zstd) is the real one where it exists; beside it .anki2 is a "please update" stub.
    const colName = ['collection.anki21b', 'collection.anki21', 'collection.anki2'].find((n) => names.has(n));
    if (!colName) throw apkgDamaged('it holds no collection.anki2, .anki21 or .anki21b');
    const newer = colName === 'collection.anki21b';
    const collection = newer ? await readNewer(zip, limits) : await readCollection((await zip.read(colName))!);
    const media = new Map<string, string>();
    const mapBytes = await zip.read('media');
    if (mapBytes && mapBytes.length) {
      if (isZstd(mapBytes)) {
        for (const [name, entry] of mediaEntries(await unzstd(mapBytes, limits.entryBytes, 'the media list')))
          if (names.has(entry)) media.set(name, entry);
      } else {
        let map: unknown;
        try {
          map = JSON.parse(strFromU8(mapBytes));
        } catch {
          throw apkgDamaged('its media list is neither JSON nor a zstd protobuf');
        }
        if (map && typeof map === 'object')
          for (const [entry, name] of Object.entries(map as Record<string, unknown>))
            if (typeof name === 'string' && names.has(entry)) media.set(name, entry);
      }
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
        const bytes = entry === undefined ? undefined : await zip.read(entry);
        // Newer packages compress each media file with zstd too.
        return bytes && newer && isZstd(bytes) ? await unzstd(bytes, MAX_MEDIA_BYTES, `media file "${name}"`) : bytes;
      },
      close: () => zip.close(),
    };
  } catch (e) {
    await zip.close();
    throw e;
  }
}

/** collection.anki21b: a zstd-compressed schema-18 collection; one this reader cannot take → 422 APKG_FORMAT_UNSUPPORTED. */
async function readNewer(zip: ZipFile, limits: ZipLimits) {
  const packed = (await zip.read('collection.anki21b'))!;
  try {
    return await readCollection(
      isZstd(packed) ? await unzstd(packed, limits.entryBytes, 'collection.anki21b') : packed,
    );
  } catch (e) {
    if ((e as { code?: string }).code === 'APKG_DAMAGED') throw formatUnsupported();
    throw e;
  }
}
