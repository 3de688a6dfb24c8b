import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceDurably } from '../store/durableFiles';
import type { Store } from '../store/store';

export const TOKEN_PREFIX = 'sbt0.';

export const newToken = () => TOKEN_PREFIX + randomBytes(32).toString('base64url');
export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest();
export const sha256Hex = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Writes a secret file readable by its owner only, whatever the umask: never, even briefly, with a looser mode. */
export function writeSecretFile(path: string, content: string): void {
  replaceDurably(path, Buffer.from(content));
}

/**
 * The bearer tokens this bridge accepts: the data dir's own token (kept
 * across restarts so installed agents keep working) and device tokens issued
 * by pairing (stored as hashes).
 */
export class TokenRegistry {
  private readonly mainDigest: Buffer;

  private constructor(readonly mainToken: string, private readonly store: Store) {
    this.mainDigest = sha256(mainToken);
  }

  static load(dataDir: string, store: Store): TokenRegistry {
    const path = join(dataDir, 'token');
    let token = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
    if (!token.startsWith(TOKEN_PREFIX)) {
      token = newToken();
      writeSecretFile(path, token + '\n');
    } else {
      try {
        chmodSync(path, 0o600);
      } catch {
        /* a file system without modes: start-up already warned (privateDataDir.ts) */
      }
    }
    return new TokenRegistry(token, store);
  }

  /** Constant time for the main token: digests of equal length are compared. */
  verify(presented: string | undefined): boolean {
    if (!presented) return false;
    const digest = sha256(presented);
    if (timingSafeEqual(digest, this.mainDigest)) return true;
    // Device tokens are looked up by their hash: the lookup reveals nothing about a secret.
    return !!this.store.get('SELECT 1 AS ok FROM tokens WHERE token_hash = ?', [digest.toString('hex')]);
  }

  async issueDeviceToken(deviceName: string): Promise<string> {
    const token = newToken();
    await this.store.write((tx) =>
      tx.run('INSERT INTO tokens(token_hash, device_name, created_at) VALUES (?, ?, ?)', [
        sha256Hex(token),
        deviceName,
        new Date().toISOString(),
      ]),
    );
    return token;
  }
}
