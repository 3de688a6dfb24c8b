import { BridgeError, invalidInput } from '../../../errors';

/** What the zip reader knows of an entry, and the two ways it refuses a package. */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  localOffset: number;
}

export interface ZipLimits {
  /** Largest inflated size of any one entry. */
  entryBytes: number;
  /** Largest sum of the inflated sizes of the entries read. */
  totalBytes: number;
}

export const apkgDamaged = (why: string) =>
  invalidInput(`The file is not a readable Anki package: ${why}. Nothing was stored.`, { reason: why }, 'APKG_DAMAGED');

export const apkgTooLarge = (why: string, limitBytes: number) =>
  new BridgeError(
    'APKG_TOO_LARGE',
    413,
    `The Anki package inflates beyond what the bridge reads safely: ${why}. Nothing was stored.`,
    { limitBytes },
  );
