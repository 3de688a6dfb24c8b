import { statfs } from 'node:fs/promises';
import { BridgeError, insufficientStorage, isNoSpace } from '../../errors';

/** What the writes of a batch the journal could not take are answered with. Nothing of them was kept. */
export async function journalFailure(cause: unknown, dir: string): Promise<BridgeError> {
  const errno = (cause as { code?: string })?.code;
  if (isNoSpace(cause)) {
    const free = await statfs(dir).then(
      (s) => s.bavail * s.bsize,
      () => undefined,
    );
    return insufficientStorage('Saving to the library', free, { errno });
  }
  return new BridgeError(
    'STORE_UNAVAILABLE',
    503,
    `The library journal could not be written (${(cause as Error)?.message ?? cause}). Nothing was saved; retry: the next write tries the journal again. Reads still work.`,
    errno ? { errno } : undefined,
    true,
  );
}
