import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import * as path from 'node:path';
import { BridgeError, invalidInput, notFound } from '../../errors';

/** result.md of a whole book part can be large: 2,000 cards are well under this. Also the body limit of check/submit. */
export const RESULT_LIMIT_BYTES = 16 * 1024 * 1024;

const MB = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

/**
 * The bundle folder's result.md, as text. Only a plain file is read, and only up to RESULT_LIMIT_BYTES: a link (to
 * /dev/zero, to a file outside the folder), a pipe or a folder under that name would hang or flood the bridge, so
 * each is refused with a clear code and nothing is imported. The checks are made again on the opened handle (opened
 * without blocking, so a pipe cannot hold the open), so a file swapped after the first look is refused too.
 */
export async function readResultFile(folder: string, bundleId: string): Promise<string> {
  const file = path.join(folder, 'result.md');
  const seen = await lstat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!seen)
    throw notFound('RESULT_MISSING', `result.md is missing from ${folder}; write it (or send resultMarkdown).`, {
      bundleId,
    });
  refuseOdd(seen, folder, bundleId);
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  try {
    const opened = await handle.stat();
    refuseOdd(opened, folder, bundleId);
    const bytes = Buffer.alloc(Math.min(opened.size, RESULT_LIMIT_BYTES) + 1);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead > RESULT_LIMIT_BYTES) throw tooLarge(bytesRead, bundleId);
    return bytes.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

function refuseOdd(st: { isFile(): boolean; size: number }, folder: string, bundleId: string): void {
  if (!st.isFile())
    throw invalidInput(
      `result.md in ${folder} is not a plain file (a link, a pipe or a folder); nothing was read or imported. Write the cards into a regular file named result.md.`,
      { bundleId },
      'RESULT_NOT_A_FILE',
    );
  if (st.size > RESULT_LIMIT_BYTES) throw tooLarge(st.size, bundleId);
}

const tooLarge = (bytes: number, bundleId: string) =>
  new BridgeError(
    'RESULT_TOO_LARGE',
    413,
    `result.md is ${MB(bytes)}, over the ${MB(RESULT_LIMIT_BYTES)} a result may hold; nothing was imported. Split the part into smaller bundles.`,
    { bundleId, bytes, limitBytes: RESULT_LIMIT_BYTES },
  );
