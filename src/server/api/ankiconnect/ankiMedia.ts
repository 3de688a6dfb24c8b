import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { BridgeConfig } from '../../config';
import { MAX_MEDIA_BYTES } from '../../domain/decks/anki/apkgPackage';
import { checkAllowedFile } from '../../domain/library/importPath';
import { portableNameProblem } from '../../domain/security/portableNames';
import { replaceDurablyAsync } from '../../ground/store/durableFiles';
import { AnkiError } from './ankiError';
import { compileGlob } from './ankiGlob';

/**
 * AnkiConnect's media folder: files a client stores (storeMediaFile) for a
 * later note to name in `<img src="…">`. Kept under <dataDir>/anki-media,
 * 0600 files written durably; a name is one plain file name, never a path.
 * Fetching a `url` is refused: the bridge makes no network requests.
 */

export const MEDIA_DIR = 'anki-media';
const MAX_NAME = 200;

export interface MediaRequest {
  filename?: unknown;
  data?: unknown;
  path?: unknown;
  url?: unknown;
  deleteExisting?: unknown;
}

/** A plain file name: no folder part, no leading dot, no control characters, at most 200 characters; portable to Windows. */
export function checkMediaName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw new AnkiError('storeMediaFile needs a filename');
  if (name.length > MAX_NAME || /[/\\\0-\x1f]/.test(name) || name.startsWith('.') || name.trim() !== name) {
    throw new AnkiError(
      `invalid media file name ${JSON.stringify(name.slice(0, 80))}: a plain file name (no folders, no leading dot, at most 200 characters)`,
    );
  }
  const windows = portableNameProblem(name);
  if (windows) throw new AnkiError(`invalid media file name ${JSON.stringify(name.slice(0, 80))}: ${windows}`);
  return name;
}

const IMAGE_TYPES: Array<[string, RegExp, (b: Buffer) => boolean]> = [
  ['image/png', /\.png$/i, (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47],
  ['image/jpeg', /\.(jpe?g|jfif)$/i, (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', /\.gif$/i, (b) => b.length > 6 && b.toString('latin1', 0, 4) === 'GIF8'],
  [
    'image/webp',
    /\.webp$/i,
    (b) => b.length > 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  ],
];

/** The image type of some bytes by their signature; undefined for anything else. */
export const imageTypeOf = (bytes: Buffer) => IMAGE_TYPES.find(([, , test]) => test(bytes))?.[0];

/** Names of pictures a card cannot show (as .apkg import counts pictures). */
const OTHER_PICTURE = /\.(bmp|svg|tiff?|ico|heic|avif)$/i;

/**
 * A file named as a picture is stored only when its bytes are that picture,
 * so nothing else is ever shown (or sent back) as one; other files (sound a
 * tool stores beside its notes) are kept as they are, within the same size.
 */
function checkContent(name: string, bytes: Buffer): void {
  const named = IMAGE_TYPES.find(([, ext]) => ext.test(name));
  if (named && !named[2](bytes)) {
    const found = imageTypeOf(bytes);
    throw new AnkiError(
      `media file ${name} is not a ${named[0].slice(6).toUpperCase()} picture (its bytes are ${found ? `a ${found.slice(6).toUpperCase()}` : 'no picture'}): nothing was stored; send the file under its real type`,
    );
  }
  if (OTHER_PICTURE.test(name))
    throw new AnkiError(`media file ${name}: cards here show PNG, JPEG, GIF and WebP pictures; convert it first`);
}

const tooBig = (bytes: number) =>
  new AnkiError(
    `media file of ${bytes} bytes: a file takes at most ${MAX_MEDIA_BYTES} bytes (${MAX_MEDIA_BYTES / 1024 / 1024} MiB, as a card picture in an .apkg); nothing was stored`,
  );

export class AnkiMedia {
  private readonly dir: string;

  constructor(private readonly config: Pick<BridgeConfig, 'dataDir' | 'libraryDir' | 'importFolders'>) {
    this.dir = join(config.dataDir, MEDIA_DIR);
  }

  /** Stores a file from base64 `data` or a confined `path`; answers the name it was stored under. */
  async store(req: MediaRequest): Promise<string> {
    let name = checkMediaName(req.filename);
    const bytes = this.bytesOf(req);
    checkContent(name, bytes);
    const file = join(this.dir, name);
    if (req.deleteExisting === false && existsSync(file) && !readFileSync(file).equals(bytes)) {
      // As Anki does: the file already there stays, the new one gets a name of its own.
      const ext = extname(name);
      name = `${name.slice(0, name.length - ext.length)}-${createHash('sha1').update(bytes).digest('hex').slice(0, 8)}${ext}`;
    }
    await replaceDurablyAsync(join(this.dir, name), bytes);
    return name;
  }

  /** The stored files' names matching an Anki glob (`*` any run, `?` one character), sorted. */
  names(pattern: string): string[] {
    if (pattern.length > MAX_NAME) throw new AnkiError(`pattern: at most ${MAX_NAME} characters, as a file name`);
    const matches = compileGlob(pattern, '?');
    try {
      return readdirSync(this.dir).filter(matches).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }

  /** Removes a stored file; none by that name is no error (as Anki). */
  async remove(name: string): Promise<void> {
    await rm(join(this.dir, checkMediaName(name)), { force: true });
  }

  /** A stored file's bytes; undefined when there is none by that name. */
  read(name: string): Buffer | undefined {
    try {
      return readFileSync(join(this.dir, checkMediaName(name)));
    } catch (e) {
      if (e instanceof AnkiError || (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  private bytesOf(req: MediaRequest): Buffer {
    const sources = (['data', 'path', 'url'] as const).filter((k) => req[k] !== undefined && req[k] !== null);
    if (sources.length !== 1) throw new AnkiError('storeMediaFile needs exactly one of data (base64), path or url');
    if (sources[0] === 'url') {
      throw new AnkiError(
        'storeMediaFile with url is not served: this bridge makes no network requests. Send the file as data (base64) or a path in an import folder.',
      );
    }
    if (sources[0] === 'path') {
      if (typeof req.path !== 'string') throw new AnkiError('path must be a string');
      const file = checkAllowedFile(this.config, req.path, 'media files');
      const size = statSync(file).size;
      if (size > MAX_MEDIA_BYTES) throw tooBig(size);
      return readFileSync(file);
    }
    if (typeof req.data !== 'string') throw new AnkiError('data must be base64');
    // The decoded size from the length alone (line breaks counted as data: a bound from above), before decoding.
    const declared = Buffer.byteLength(req.data, 'base64');
    if (declared > MAX_MEDIA_BYTES * 1.05) throw tooBig(declared);
    if (!/^[A-Za-z0-9+/=\s_-]*$/.test(req.data)) throw new AnkiError('data must be base64');
    const bytes = Buffer.from(req.data, 'base64');
    if (bytes.length > MAX_MEDIA_BYTES) throw tooBig(bytes.length);
    return bytes;
  }
}
