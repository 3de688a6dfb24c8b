import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, crc32, inflateRawSync } from 'node:zlib';
import { fsyncDir, replaceDurably } from '../../ground/store/durableFiles';
import { type ContentData, contentHash } from './snapshotContent';
import { decodeIndex, encodeIndex, type RowIndex } from './snapshotIndex';

/**
 * Snapshot contents live outside library.db, one file per distinct content:
 * `<dataDir>/snapshots/<h0h1>/<sha256>.snap`, where the hash is the
 * snapshot row's `content_hash` (sha256 of the content JSON). Equal content
 * shares one file. These are user data, not cache: nothing can rebuild them.
 *
 * File: magic (8 bytes) | sha256 of the JSON (32 bytes) | payload length
 * (u32 LE) | crc32 of the payload (u32 LE) | payload. 'SBSNAP03': the payload
 * is the Brotli stream's length (u32 LE), Brotli (quality 0) of the UTF-8
 * JSON, then Brotli of its row index (snapshotIndex.ts), so a restore parses
 * only the cards it compares. 'SBSNAP02' (a content without an index: moved
 * from library.db, or not built by readSnapshot): Brotli of the JSON alone.
 * 'SBSNAP01', the first format: raw deflate of the JSON. All three are read;
 * 01 and 02 are parsed whole. Brotli at quality 0 compresses 10k cards' 8.8
 * MB as small as deflate level 1 does (1.7 MB) in 14 ms instead of 53: a
 * restore writes a protection snapshot, so a snapshot and its restore pay it
 * twice. The crc catches damage cheaply (checked before reusing a file); a
 * read also checks the decompressed JSON against the hash, and the index
 * against the JSON, so a damaged file is never parsed into wrong cards.
 */

const MAGIC = Buffer.from('SBSNAP02', 'latin1');
const MAGIC_INDEXED = Buffer.from('SBSNAP03', 'latin1');
/** The first format: the same header, the payload raw deflate. */
const MAGIC_DEFLATE = Buffer.from('SBSNAP01', 'latin1');
const HEADER = MAGIC.length + 32 + 4 + 4;
const HASH = /^[0-9a-f]{64}$/;
const brotli = (bytes: Buffer) =>
  brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });

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

/** A content as read from its file: the JSON's bytes (checked against the hash) and its row index if the file has one. */
export interface StoredContent {
  bytes: Buffer;
  index?: RowIndex;
}

export class SnapshotFiles {
  private last: { hash: string; bytes: Buffer; index?: RowIndex } | undefined;

  constructor(readonly dir: string) {}

  private keep(hash: string, bytes: Buffer, index: RowIndex | undefined): void {
    this.last = bytes.length <= KEEP_BYTES ? { hash, bytes, index } : undefined;
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
   * unless an intact file for it is there already (one without a row index
   * is written again when this content has one). Synchronous, so it can run
   * inside a store.write before the row that references it is journaled.
   * `json`: the JSON, or readSnapshot's bytes and index.
   */
  put(json: string | Buffer | ContentData, hash?: string): string {
    const data =
      typeof json === 'string' ? { bytes: Buffer.from(json, 'utf8') } : Buffer.isBuffer(json) ? { bytes: json } : json;
    const { bytes, index } = data;
    hash ??= contentHash(bytes);
    const path = this.pathOf(hash);
    const there = intact(path, hash);
    if (there && (there === 'indexed' || !index)) {
      this.keep(hash, bytes, there === 'indexed' ? index : undefined);
      return hash;
    }
    const json0 = brotli(bytes);
    const ix = index ? brotli(encodeIndex(index)) : undefined;
    const payloadLength = ix ? 4 + json0.length + ix.length : json0.length;
    const file = Buffer.allocUnsafe(HEADER + payloadLength);
    (ix ? MAGIC_INDEXED : MAGIC).copy(file, 0);
    Buffer.from(hash, 'hex').copy(file, MAGIC.length);
    file.writeUInt32LE(payloadLength, MAGIC.length + 32);
    if (ix) {
      file.writeUInt32LE(json0.length, HEADER);
      json0.copy(file, HEADER + 4);
      ix.copy(file, HEADER + 4 + json0.length);
    } else json0.copy(file, HEADER);
    file.writeUInt32LE(crc32(file.subarray(HEADER)) >>> 0, MAGIC.length + 36);
    const made = this.ensureFolder(dirname(path));
    try {
      replaceDurably(path, file);
    } catch (e) {
      if (made) rmdirQuiet(dirname(path)); // a full disk leaves no trace, not even the new folder
      throw e;
    }
    this.keep(hash, bytes, index);
    return hash;
  }

  /** The content's JSON, checked against its hash. Throws SnapshotFileError. */
  read(hash: string): string {
    return this.open(hash).bytes.toString('utf8');
  }

  /** The content's JSON bytes, checked against its hash, and its row index (SBSNAP03), checked against them. Throws SnapshotFileError. */
  open(hash: string): StoredContent {
    const path = this.pathOf(hash);
    let file: Buffer;
    try {
      file = readFileSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new SnapshotFileError('missing', 'the content file does not exist');
      throw new SnapshotFileError('corrupt', `the content file cannot be read (${(e as Error).message})`);
    }
    const payload = checkedPayload(file, hash);
    const magic = file.subarray(0, MAGIC.length);
    const indexed = magic.equals(MAGIC_INDEXED);
    // The file still holds this content intact (header, length, checksum): the kept copy is what it decompresses to.
    if (this.last?.hash === hash && (this.last.index !== undefined) === indexed)
      return { bytes: this.last.bytes, index: this.last.index };
    let bytes: Buffer;
    let indexBytes: Buffer | undefined;
    try {
      if (magic.equals(MAGIC_DEFLATE)) bytes = inflateRawSync(payload);
      else if (!indexed) bytes = brotliDecompressSync(payload);
      else {
        const jsonLength = payload.length >= 4 ? payload.readUInt32LE(0) : -1;
        if (jsonLength < 0 || 4 + jsonLength > payload.length)
          throw new Error("the content's length is past the payload");
        bytes = brotliDecompressSync(payload.subarray(4, 4 + jsonLength));
        indexBytes = brotliDecompressSync(payload.subarray(4 + jsonLength));
      }
    } catch (e) {
      throw new SnapshotFileError('corrupt', `the content does not decompress (${(e as Error).message})`);
    }
    if (contentHash(bytes) !== hash)
      throw new SnapshotFileError('corrupt', 'the decompressed content does not match its hash');
    let index: RowIndex | undefined;
    try {
      index = indexBytes && decodeIndex(indexBytes, bytes);
    } catch (e) {
      throw new SnapshotFileError('corrupt', (e as Error).message);
    }
    this.keep(hash, bytes, index);
    return { bytes, index };
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
  if (file.length < HEADER || ![MAGIC, MAGIC_INDEXED, MAGIC_DEFLATE].some((m) => magic.equals(m)))
    throw new SnapshotFileError('corrupt', 'not a snapshot file (bad header)');
  if (file.subarray(MAGIC.length, MAGIC.length + 32).toString('hex') !== hash)
    throw new SnapshotFileError('corrupt', 'the file holds another content hash');
  const length = file.readUInt32LE(MAGIC.length + 32);
  if (file.length !== HEADER + length)
    throw new SnapshotFileError(
      'corrupt',
      `the file is ${file.length - HEADER} bytes of content, its header says ${length} (truncated or extended)`,
    );
  const payload = file.subarray(HEADER);
  if (crc32(payload) >>> 0 !== file.readUInt32LE(MAGIC.length + 36))
    throw new SnapshotFileError('corrupt', 'checksum mismatch');
  return payload;
}

/** An existing file for this hash whose header and checksum hold (cheap: no inflate): 'indexed' if it has a row index. */
function intact(path: string, hash: string): 'indexed' | 'whole' | false {
  try {
    const file = readFileSync(path);
    checkedPayload(file, hash);
    return file.subarray(0, MAGIC.length).equals(MAGIC_INDEXED) ? 'indexed' : 'whole';
  } catch {
    return false;
  }
}
