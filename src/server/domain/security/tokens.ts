import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PERSON, type Actor } from '../../actor';
import { replaceDurably } from '../../ground/store/durableFiles';
import type { Store } from '../../ground/store/store';
import type { AgentScope, Scope } from './scopes';
import { TokenUsage } from './tokenUsage';

export const TOKEN_PREFIX = 'sbt0.';

export const newToken = () => TOKEN_PREFIX + randomBytes(32).toString('base64url');
export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest();

/** Writes a secret file readable by its owner only, whatever the umask: never, even briefly, with a looser mode. */
export function writeSecretFile(path: string, content: string): void {
  replaceDurably(path, Buffer.from(content));
}

/** Who a request is, as its bearer token says. */
export interface Caller {
  /** null for the owner. */
  tokenId: string | null;
  name: string;
  scope: Scope;
  actor: Actor;
}

export interface AgentTokenInfo {
  tokenId: string;
  name: string;
  scope: AgentScope;
  createdAt: string;
  lastUsedAt: string | null;
}

interface Live {
  info: AgentTokenInfo;
  digest: Buffer;
  caller: Caller;
}

interface Row {
  token_id: string;
  token_hmac: string | null;
  legacy_sha256: string | null;
  name: string;
  scope: AgentScope;
  created_at: string;
  last_used_at: string | null;
}

/** Marks a data dir whose token file is the owner's alone (before per-agent tokens it was also handed to installed agents). */
const SCHEME_KEY = 'token_scheme';
const SCHEME = 'owner+agents';
export const INSTALLED_AGENT = 'installed agent';

const OWNER: Caller = Object.freeze({ tokenId: null, name: 'owner', scope: 'owner', actor: PERSON });

/**
 * The bearer tokens this bridge accepts. The data dir's `token` file (0600)
 * is the owner's: VS Code and the CLI. Every agent has its own named token
 * with a scope (read | write), stored only as an HMAC keyed by the data dir's
 * secret, so neither library.db nor the journal can give a token back.
 * Lookup is O(1): the presented token's HMAC is the key of an in-memory map
 * (loaded at start, kept in step with every issue and revoke), then compared
 * in constant time.
 */
export class TokenRegistry {
  private readonly ownerDigest: Buffer;
  private readonly live = new Map<string, Live>();
  /** Paired before per-agent tokens: bare SHA-256 hex → row, rekeyed to an HMAC on first use. */
  private readonly legacy = new Map<string, Row>();
  private readonly usage: TokenUsage;

  private constructor(
    readonly mainToken: string,
    private readonly store: Store,
    private readonly key: Buffer,
  ) {
    this.ownerDigest = this.digest(mainToken);
    this.usage = new TokenUsage(store);
  }

  private digest(token: string): Buffer {
    return createHmac('sha256', this.key).update(`agent-token:${token}`).digest();
  }

  /**
   * Reads the owner token, or makes one. On the first start with per-agent tokens the
   * token file's token, which install scripts handed to agents, becomes a write
   * token named "installed agent", and the owner gets a new one. The database
   * learns first, then the file is written: a crash between leaves a token file
   * whose token is an agent's, which the next start replaces again.
   */
  static async load(dataDir: string, store: Store, key: Buffer): Promise<TokenRegistry> {
    const path = join(dataDir, 'token');
    let token: string | undefined = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
    if (!token.startsWith(TOKEN_PREFIX)) token = undefined;
    const digestOf = (t: string) => createHmac('sha256', key).update(`agent-token:${t}`).digest('hex');
    if (store.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [SCHEME_KEY])?.value !== SCHEME) {
      const handedOut = token;
      await store.write((tx) => {
        if (handedOut) {
          const hmac = digestOf(handedOut);
          tx.run(
            'INSERT OR IGNORE INTO agent_tokens(token_id, token_hmac, name, scope, created_at) VALUES (?, ?, ?, ?, ?)',
            [`tok_${hmac.slice(0, 16)}`, hmac, INSTALLED_AGENT, 'write', new Date().toISOString()],
          );
        }
        tx.run('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [SCHEME_KEY, SCHEME]);
      });
      token = undefined;
    }
    if (token && store.get('SELECT 1 AS x FROM agent_tokens WHERE token_hmac = ?', [digestOf(token)]))
      token = undefined;
    if (!token) {
      token = newToken();
      writeSecretFile(path, token + '\n');
    } else {
      try {
        chmodSync(path, 0o600);
      } catch {
        /* a file system without modes: start-up already warned (privateDataDir.ts) */
      }
    }
    const registry = new TokenRegistry(token, store, key);
    for (const r of store.all<Row>('SELECT * FROM agent_tokens WHERE revoked_at IS NULL')) {
      if (r.token_hmac) registry.remember(r, Buffer.from(r.token_hmac, 'hex'));
      else if (r.legacy_sha256) registry.legacy.set(r.legacy_sha256, r);
    }
    return registry;
  }

  private remember(r: Row, digest: Buffer): void {
    const info: AgentTokenInfo = {
      tokenId: r.token_id,
      name: r.name,
      scope: r.scope,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
    };
    const caller: Caller = Object.freeze({
      tokenId: r.token_id,
      name: r.name,
      scope: r.scope,
      actor: Object.freeze({ kind: 'agent' as const, tokenId: r.token_id }),
    });
    this.live.set(digest.toString('hex'), { info, digest, caller });
  }

  /** The caller a bearer token stands for; undefined for none, unknown or revoked tokens. */
  identify(presented: string | undefined): Caller | undefined {
    if (!presented) return undefined;
    const digest = this.digest(presented);
    if (timingSafeEqual(digest, this.ownerDigest)) return OWNER;
    // The map key is an HMAC under a key the caller does not know: finding it reveals nothing of a secret.
    const hit = this.live.get(digest.toString('hex'));
    if (hit && timingSafeEqual(hit.digest, digest)) {
      hit.info.lastUsedAt = this.usage.touch(hit.info.tokenId);
      return hit.caller;
    }
    return this.legacy.size ? this.rekey(presented, digest) : undefined;
  }

  /** A token paired before per-agent tokens (test/api/tokenIdentity.test.ts), presented for the first time since: its bare hash is replaced by the HMAC. */
  private rekey(presented: string, digest: Buffer): Caller | undefined {
    const bare = sha256(presented);
    const row = this.legacy.get(bare.toString('hex'));
    if (!row || !timingSafeEqual(Buffer.from(row.legacy_sha256!, 'hex'), bare)) return undefined;
    this.legacy.delete(row.legacy_sha256!);
    const hmac = digest.toString('hex');
    this.remember({ ...row, token_hmac: hmac, legacy_sha256: null }, digest);
    // Not awaited: the request goes on with the token in memory; a failed write leaves the row to rekey at the next start.
    void this.store
      .write((tx) => {
        tx.run('UPDATE agent_tokens SET token_hmac = ?, legacy_sha256 = NULL WHERE token_id = ?', [hmac, row.token_id]);
        this.usage.writeIn(tx);
      })
      .catch(() => undefined);
    return this.identify(presented);
  }

  /** A new agent token; its secret is returned once and never stored. */
  async issue(name: string, scope: AgentScope): Promise<AgentTokenInfo & { token: string }> {
    const token = newToken();
    const digest = this.digest(token);
    const row: Row = {
      token_id: `tok_${randomBytes(8).toString('hex')}`,
      token_hmac: digest.toString('hex'),
      legacy_sha256: null,
      name,
      scope,
      created_at: new Date().toISOString(),
      last_used_at: null,
    };
    await this.store.write((tx) => {
      tx.run('INSERT INTO agent_tokens(token_id, token_hmac, name, scope, created_at) VALUES (?, ?, ?, ?, ?)', [
        row.token_id,
        row.token_hmac,
        name,
        scope,
        row.created_at,
      ]);
      this.usage.writeIn(tx);
    });
    this.remember(row, digest);
    return { tokenId: row.token_id, token, name, scope, createdAt: row.created_at, lastUsedAt: null };
  }

  /** Live agent tokens, oldest first; never a secret. */
  list(): AgentTokenInfo[] {
    const out = [...this.live.values()].map((l) => ({ ...l.info }));
    for (const r of this.legacy.values())
      out.push({
        tokenId: r.token_id,
        name: r.name,
        scope: r.scope,
        createdAt: r.created_at,
        lastUsedAt: r.last_used_at,
      });
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt)); // stable: same-millisecond tokens stay in issue order
  }

  /** A live agent token's caller, by id (an approved call runs as the agent that asked); undefined once revoked. */
  callerOf(tokenId: string): Caller | undefined {
    for (const l of this.live.values()) if (l.info.tokenId === tokenId) return l.caller;
    return undefined;
  }

  find(tokenId: string): AgentTokenInfo | undefined {
    return this.list().find((t) => t.tokenId === tokenId);
  }

  /** Ends a token at once: its next request is 401. The row stays, without its HMAC, so the logs keep its name. */
  async revoke(tokenId: string): Promise<AgentTokenInfo | undefined> {
    const info = this.find(tokenId);
    if (!info) return undefined;
    const revokedAt = new Date().toISOString();
    await this.store.write((tx) => {
      this.usage.writeIn(tx);
      tx.run('UPDATE agent_tokens SET token_hmac = NULL, legacy_sha256 = NULL, revoked_at = ? WHERE token_id = ?', [
        revokedAt,
        tokenId,
      ]);
    });
    for (const [k, l] of this.live) if (l.info.tokenId === tokenId) this.live.delete(k);
    for (const [k, r] of this.legacy) if (r.token_id === tokenId) this.legacy.delete(k);
    this.usage.forget(tokenId);
    return info;
  }

  /** Writes the last uses not yet written (at close). */
  flush(): Promise<void> {
    return this.usage.flush();
  }
}
