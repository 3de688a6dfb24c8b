import { randomBytes, randomInt } from 'node:crypto';
import type { BridgeLimits } from '../config';
import type { Store } from '../store/store';
import { sha256Hex } from './tokens';

type Kind = 'install' | 'pair';

interface CodeRow {
  code_hash: string;
  expires_at: number;
  used: number;
  failed_attempts: number;
}

/**
 * One-time codes: install codes (10 min, once) are the credential of
 * GET /install; pairing codes (6 digits, 5 min, once, dead after three wrong
 * tries) are the credential of POST /pair. Only hashes are stored.
 */
export class AccessCodes {
  constructor(private readonly store: Store, private readonly limits: BridgeLimits) {}

  async issue(kind: Kind): Promise<{ code: string; expiresAt: string }> {
    const code = kind === 'install' ? randomBytes(18).toString('base64url') : String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = Date.now();
    const expires = now + (kind === 'install' ? this.limits.installCodeMs : this.limits.pairCodeMs);
    await this.store.write((tx) => {
      // Expired codes are swept; a new pairing code replaces any pending one.
      tx.run('DELETE FROM access_codes WHERE expires_at < ?', [now]);
      if (kind === 'pair') tx.run(`DELETE FROM access_codes WHERE kind = 'pair'`);
      tx.run('INSERT INTO access_codes(code_hash, kind, expires_at, created_at) VALUES (?, ?, ?, ?)', [
        sha256Hex(`${kind}:${code}`),
        kind,
        expires,
        new Date(now).toISOString(),
      ]);
    });
    return { code, expiresAt: new Date(expires).toISOString() };
  }

  /** True once per valid code; false for unknown, used, expired or dead codes. */
  async redeem(kind: Kind, code: string): Promise<boolean> {
    const now = Date.now();
    const hash = sha256Hex(`${kind}:${code}`);
    return this.store.write((tx) => {
      const live = tx.all<CodeRow>(
        'SELECT code_hash, expires_at, used, failed_attempts FROM access_codes WHERE kind = ? AND used = 0 AND expires_at >= ? AND failed_attempts < ?',
        [kind, now, kind === 'pair' ? this.limits.pairAttempts : Number.MAX_SAFE_INTEGER],
      );
      if (live.some((r) => r.code_hash === hash)) {
        tx.run('UPDATE access_codes SET used = 1 WHERE code_hash = ?', [hash]);
        return true;
      }
      // A wrong pairing code counts against every pending one.
      if (kind === 'pair' && live.length) {
        tx.run('UPDATE access_codes SET failed_attempts = failed_attempts + 1 WHERE kind = ? AND used = 0', [kind]);
      }
      return false;
    });
  }
}
