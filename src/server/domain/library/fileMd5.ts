import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** MD5 of a file read in chunks: a library PDF (up to the upload limit) is never held whole. */
export const md5OfFile = (file: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash('md5');
    createReadStream(file)
      .on('data', (c) => hash.update(c))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
