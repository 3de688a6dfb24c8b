import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from './tokens';

const KEY_BYTES = 32;

/**
 * The key of the access-code HMACs: 32 random bytes in `<dataDir>/secret`
 * (0600), never in the database or the journal. Without it a stored code
 * hash cannot be brute-forced, though a pairing code has only 10^6 values.
 * Not the main token: that one is also copied into agents' config files.
 * A lost or damaged file is replaced: only the codes pending then stop working.
 */
export function loadCodeKey(dataDir: string): Buffer {
  const path = join(dataDir, 'secret');
  const stored = existsSync(path) ? Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url') : Buffer.alloc(0);
  if (stored.length === KEY_BYTES) return stored;
  const key = randomBytes(KEY_BYTES);
  writeSecretFile(path, key.toString('base64url') + '\n');
  return key;
}
