import type { Store, WriteTx } from '../../ground/store/store';

/**
 * When each agent token was last used. Kept exact in memory (GET /tokens
 * reads it) and written to library.db only along with the registry's own
 * writes (issue, revoke, rekey) and at a clean close: a request never writes
 * the journal, and never moves the library's revision (which wakes every
 * long poll). A kill -9 loses the last uses since then; they are coarse
 * information, not library data.
 */
export class TokenUsage {
  private readonly dirty = new Map<string, string>();

  constructor(private readonly store: Store) {}

  /** Now, as the token's last use. */
  touch(tokenId: string): string {
    const at = new Date().toISOString();
    this.dirty.set(tokenId, at);
    return at;
  }

  forget(tokenId: string): void {
    this.dirty.delete(tokenId);
  }

  /** Writes the pending last uses inside a write the registry makes anyway. */
  writeIn(tx: WriteTx): void {
    for (const [id, at] of this.dirty) tx.run('UPDATE agent_tokens SET last_used_at = ? WHERE token_id = ?', [at, id]);
    this.dirty.clear();
  }

  /** At close: one write for whatever is pending (none when no agent called). */
  async flush(): Promise<void> {
    if (!this.dirty.size) return;
    await this.store.write((tx) => this.writeIn(tx)).catch(() => undefined); // a full disk: the last uses are lost, nothing else
  }
}
