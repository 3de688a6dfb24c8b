import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, crc32, inflateRawSync } from 'node:zlib';
import { fsyncDir, replaceDurably } from '../store/durableFiles';
import { contentHash } from './snapshotContent';

/**
 * Snapshot contents live outside library.db, one file per distinct content:
 * `<dataDir>/snapshots/<h0h1>/<sha256>.snap`, where the hash is the
 * snapshot row's `content_hash` (sha256 of the content JSON). Equal content
 * shares one file. These are user data, not cache: nothing can rebuild them.
 *
 * File: 'SBSNAP02' | sha256 of the JSON (32 bytes) | payload length (u32 LE)
 * | crc32 of the payload (u32 LE) | payload = Brotli (quality 0) of the UTF-8
 * JSON. Files of the first format, 'SBSNAP01' with a raw deflate payload, are
 * read as they are. Brotli at quality 0 compresses 10k cards' 8.8 MB as small
 * as deflate level 1 does (1.7 MB) in 14 ms instead of 53: a restore writes a
 * protection snapshot, so a snapshot and its restore pay it twice.
 * The crc catches damage cheaply (checked before reusing a file); a read also
 * checks the inflated JSON against the hash, so a damaged file is never
 * parsed into wrong cards.
 */

const MAGIC = Buffer.from('SBSNAP02', 'latin1');
/** The first format: the same header, the payload raw deflate. */
const MAGIC_DEFLATE = Buffer.from('SBSNAP01', 'latin1');
const HEADER = MAGIC.length + 32 + 4 + 4;
const HASH = /^[0-9a-f]{64}$/;

/** Why a snapshot's content cannot be read: `missing` (no file) or `corrupt` (with what was wrong). */
export class SnapshotFileError extends Error {
  constructor(
    readonly reason: 'missing' | 'corrupt',
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'SnapshotFileError';
  }
}

/** The last content written or read is kept (up to this many bytes): a restore of the snapshot just taken skips inflating and hashing it again. */
const KEEP_BYTES = 32 * 1024 * 1024;

export class SnapshotFiles {
  private last: { hash: string; bytes: Buffer } | undefined;

  constructor(readonly dir: string) {}

  private keep(hash: string, bytes: Buffer): void {
    this.last = bytes.length <= KEEP_BYTES ? { hash, bytes } : undefined;
  }

  static of(dataDir: string): SnapshotFiles {
    return new SnapshotFiles(join(dataDir, 'snapshots'));
  }

  pathOf(hash: string): string {
    if (!HASH.test(hash)) throw new SnapshotFileError('corrupt', `not a content hash: ${JSON.stringify(hash)}`);
    return join(this.dir, hash.slice(0, 2), `${hash}.snap`);
  }

  /** Where the file sits under the data dir, for messages. */
  displayPath(hash: string): string {
    return relative(dirname(this.dir), this.pathOf(hash));
  }

  /**
   * Makes the content durable (temp name, fsync, rename, fsync the folder)
   * unless an intact file for it is there already. Synchronous, so it can run
   * inside a store.write before the row that references it is journaled.
   */
  put(json: string | Buffer, hash = contentHash(json)): string {
    const path = this.pathOf(hash);
    const bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
    if (intact(path, hash)) {
      this.keep(hash, bytes);
      return hash;
    }
    const payload = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    const file = Buffer.allocUnsafe(HEADER + payload.length);
    MAGIC.copy(file, 0);
    Buffer.from(hash, 'hex').copy(file, MAGIC.length);
    file.writeUInt32LE(payload.length, MAGIC.length + 32);
    file.writeUInt32LE(crc32(payload) >>> 0, MAGIC.length + 36);
    payload.copy(file, HEADER);
    const made = this.ensureFolder(dirname(path));
    try {
      replaceDurably(path, file);
    } catch (e) {
      if (made) rmdirQuiet(dirname(path)); // a full disk leaves no trace, not even the new folder
      throw e;
    }
    this.keep(hash, bytes);
    return hash;
  }

  /** The content's JSON, checked against its hash. Throws SnapshotFileError. */
  read(hash: string): string {
    const path = this.pathOf(hash);
    let file: Buffer;
    try {
      file = readFileSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new SnapshotFileError('missing', 'the content file does not exist');
      throw new SnapshotFileError('corrupt', `the content file cannot be read (${(e as Error).message})`);
    }
    const payload = checkedPayload(file, hash);
    const deflated = file.subarray(0, MAGIC.length).equals(MAGIC_DEFLATE);
    // The file still holds this content intact (header, length, checksum): the kept copy is what it inflates to.
    if (this.last?.hash === hash) return this.last.bytes.toString('utf8');
    let bytes: Buffer;
    try {
      bytes = deflated ? inflateRawSync(payload) : brotliDecompressSync(payload);
    } catch (e) {
      throw new SnapshotFileError('corrupt', `the content does not decompress (${(e as Error).message})`);
    }
    if (contentHash(bytes) !== hash) throw new SnapshotFileError('corrupt', 'the decompressed content does not match its hash');
    this.keep(hash, bytes);
    return bytes.toString('utf8');
  }

  /**
   * Removes the files no row references, and temp files a crash left. Only
   * safe where no snapshot is being written (at start, before listening).
   */
  sweep(referenced: ReadonlySet<string>): { removed: number } {
    if (!existsSync(this.dir)) return { removed: 0 };
    let removed = 0;
    for (const sub of readdirSync(this.dir, { withFileTypes: true })) {
      if (!sub.isDirectory()) continue;
      const folder = join(this.dir, sub.name);
      for (const name of readdirSync(folder)) {
        const hash = name.endsWith('.snap') ? name.slice(0, -5) : undefined;
        if (hash !== undefined && referenced.has(hash)) continue;
        if (hash === undefined && !name.endsWith('.tmp')) continue; // not ours
        rmSync(join(folder, name), { force: true });
        removed++;
      }
    }
    return { removed };
  }

  /** Removes the given contents' files (the caller checked, in the same synchronous step, that no row references them). */
  remove(hashes: Iterable<string>): void {
    for (const h of hashes) if (HASH.test(h)) rmSync(this.pathOf(h), { force: true });
  }

  /** Creates the folders a new file needs and makes their creation durable too. */
  private ensureFolder(folder: string): boolean {
    if (existsSync(folder)) return false;
    const topNew = !existsSync(this.dir);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (topNew) fsyncDir(dirname(this.dir));
    fsyncDir(this.dir);
    return true;
  }
}

function rmdirQuiet(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // not empty (another snapshot's file) or gone
  }
}

function checkedPayload(file: Buffer, hash: string): Buffer {
  const magic = file.subarray(0, MAGIC.length);
  if (file.length < HEADER || !(magic.equals(MAGIC) || magic.equals(MAGIC_DEFLATE))) throw new SnapshotFileError('corrupt', 'not a snapshot file (bad header)');
  if (file.subarray(MAGIC.length, MAGIC.length + 32).toString('hex') !== hash) throw new SnapshotFileError('corrupt', 'the file holds another content hash');
  const length = file.readUInt32LE(MAGIC.length + 32);
  if (file.length !== HEADER + length) throw new SnapshotFileError('corrupt', `the file is ${file.length - HEADER} bytes of content, its header says ${length} (truncated or extended)`);
  const payload = file.subarray(HEADER);
  if ((crc32(payload) >>> 0) !== file.readUInt32LE(MAGIC.length + 36)) throw new SnapshotFileError('corrupt', 'checksum mismatch');
  return payload;
}

/** An existing file for this hash whose header and checksum hold (cheap: no inflate). */
function intact(path: string, hash: string): boolean {
  try {
    checkedPayload(readFileSync(path), hash);
    return true;
  } catch {
    return false;
  }
}
