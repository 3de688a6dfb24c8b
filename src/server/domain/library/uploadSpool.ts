import { createHash, randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { BridgeError } from '../../errors';
import { uploadTooLarge } from './uploadLimits';

/** Where an upload is written while it arrives: a dot file at the library root (the start-up sweep removes leftovers). */
export const SPOOL_PREFIX = '.upload-';
export const SPOOL_SUFFIX = '.part';

/** How many leading bytes `checkHead` sees (a PDF header may follow some junk). */
export const HEAD_BYTES = 1024;

export interface Spooled {
  /** The `.part` file: fsynced, to be renamed into the library or removed. */
  path: string;
  size: number;
  md5: string;
}

/**
 * Writes a body to a `.part` file in `dir` as it arrives, hashing it on the
 * way: the bridge never holds more than a chunk of it. Over `limitBytes`, or
 * when `checkHead` refuses the first bytes, it stops writing, removes the
 * file and throws (the rest of the body is read and dropped, so the client
 * still gets the answer). A write error (ENOSPC…) is thrown as it is.
 */
export async function spoolUpload(
  body: Readable,
  dir: string,
  limitBytes: number,
  checkHead: (head: Buffer) => void,
): Promise<Spooled> {
  const file = path.join(dir, `${SPOOL_PREFIX}${randomBytes(8).toString('hex')}${SPOOL_SUFFIX}`);
  const fh = await open(file, 'wx', 0o600);
  const hash = createHash('md5');
  let size = 0;
  try {
    try {
      await new Promise<void>((resolve, reject) => {
        let head: Buffer | undefined = Buffer.alloc(0);
        let writing = Promise.resolve();
        let ended = false;
        let finished = false;
        const settle = (e?: unknown) => {
          if (finished) return;
          finished = true;
          body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
          if (e === undefined) return resolve();
          // Drain what is still coming, so the refusal can be answered on this connection.
          body.on('error', () => undefined);
          body.resume();
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the stream's or the check's error, passed on as it came
          reject(e);
        };
        const checkFirst = (final: boolean) => {
          if (head && (head.length >= HEAD_BYTES || final)) {
            const h = head;
            head = undefined;
            checkHead(h);
          }
        };
        const onData = (chunk: Buffer) => {
          if (finished) return;
          size += chunk.length;
          if (size > limitBytes) return settle(uploadTooLarge(limitBytes));
          try {
            if (head) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
            checkFirst(false);
          } catch (e) {
            return settle(e);
          }
          hash.update(chunk);
          body.pause();
          writing = writing.then(() => writeAll(fh, chunk));
          writing.then(() => !finished && !ended && body.resume(), settle);
        };
        // 'end' may come while the last chunk is still being written.
        const onEnd = () => {
          ended = true;
          writing.then(() => {
            try {
              checkFirst(true);
            } catch (e) {
              return settle(e);
            }
            settle();
          }, settle);
        };
        const onError = () => settle(uploadInterrupted());
        const onClose = () => !ended && settle(uploadInterrupted());
        body.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
        body.resume();
      });
      // Durable before the record that will point at it is acknowledged.
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    await rm(file, { force: true }).catch(() => undefined);
    throw e;
  }
  return { path: file, size, md5: hash.digest('hex') };
}

const uploadInterrupted = () =>
  new BridgeError(
    'UPLOAD_INTERRUPTED',
    400,
    'The upload ended before its last byte arrived. Nothing was stored; send it again.',
  );

async function writeAll(fh: import('node:fs/promises').FileHandle, chunk: Buffer): Promise<void> {
  let off = 0;
  while (off < chunk.length) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
}
