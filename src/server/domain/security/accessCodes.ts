import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { BridgeLimits } from '../../config';
import type { Store } from '../../ground/store/store';
import type { AgentScope } from './scopes';

type Kind = 'install' | 'pair';

/** What redeeming a code gives: an agent token with this name and scope. */
export interface CodeGrant {
  name: string;
  scope: AgentScope;
}

interface CodeRow {
  code_hash: string;
  expires_at: number;
  used: number;
  failed_attempts: number;
  grant_json: string | null;
}

/**
 * One-time codes: install codes (10 min, once) are the credential of
 * GET /install; pairing codes (6 digits, 5 min, once, dead after three wrong
 * tries) are the credential of POST /pair. Only HMAC-SHA-256 digests keyed by
 * the data dir's secret (codeKey.ts) are stored: a bare hash of a 6-digit
 * code, read from the journal, gives the code back in a second. Rows hashed
 * the older way (plain SHA-256) never match and simply expire.
 */
export class AccessCodes {
  constructor(
    private readonly store: Store,
    private readonly limits: BridgeLimits,
    private readonly key: Buffer,
  ) {}

  private digest(kind: Kind, code: string): Buffer {
    return createHmac('sha256', this.key).update(`${kind}:${code}`).digest();
  }

  async issue(kind: Kind, grant: CodeGrant): Promise<{ code: string; expiresAt: string }> {
    const code =
      kind === 'install' ? randomBytes(18).toString('base64url') : String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = Date.now();
    const expires = now + (kind === 'install' ? this.limits.installCodeMs : this.limits.pairCodeMs);
    await this.store.write((tx) => {
      // Expired codes are swept; a new pairing code replaces any pending one.
      tx.run('DELETE FROM access_codes WHERE expires_at < ?', [now]);
      if (kind === 'pair') tx.run(`DELETE FROM access_codes WHERE kind = 'pair'`);
      tx.run('INSERT INTO access_codes(code_hash, kind, expires_at, created_at, grant_json) VALUES (?, ?, ?, ?, ?)', [
        this.digest(kind, code).toString('hex'),
        kind,
        expires,
        new Date(now).toISOString(),
        JSON.stringify(grant),
      ]);
    });
    return { code, expiresAt: new Date(expires).toISOString() };
  }

  /** The code's grant, once per valid code; undefined for unknown, used, expired or dead codes. */
  async redeem(kind: Kind, code: string): Promise<CodeGrant | undefined> {
    const now = Date.now();
    const presented = this.digest(kind, code);
    return this.store.write((tx) => {
      const live = tx.all<CodeRow>(
        'SELECT code_hash, expires_at, used, failed_attempts, grant_json FROM access_codes WHERE kind = ? AND used = 0 AND expires_at >= ? AND failed_attempts < ?',
        [kind, now, kind === 'pair' ? this.limits.pairAttempts : Number.MAX_SAFE_INTEGER],
      );
      // Every live row is compared in constant time, matched or not.
      let match: CodeRow | undefined;
      for (const r of live) {
        const stored = Buffer.from(r.code_hash, 'hex');
        if (stored.length === presented.length && timingSafeEqual(stored, presented)) match = r;
      }
      if (match !== undefined) {
        tx.run('UPDATE access_codes SET used = 1 WHERE code_hash = ?', [match.code_hash]);
        // Codes issued before scopes carry no grant: they made write tokens.
        return match.grant_json
          ? (JSON.parse(match.grant_json) as CodeGrant)
          : { name: kind === 'install' ? 'installed agent' : 'paired device', scope: 'write' };
      }
      // A wrong pairing code counts against every pending one.
      if (kind === 'pair' && live.length) {
        tx.run('UPDATE access_codes SET failed_attempts = failed_attempts + 1 WHERE kind = ? AND used = 0', [kind]);
      }
      return undefined;
    });
  }
}
