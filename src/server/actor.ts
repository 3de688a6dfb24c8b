/**
 * Who asked for a change, as the bearer token says: the person (the owner
 * token: VS Code and the CLI, kind 'user') or one named agent (kind 'agent',
 * with the token's id). The operation log and the review log record it, and
 * restore refuses to overwrite the person's own edits. The HTTP layer derives
 * it from the token (security/tokenRegistry.ts); no header can claim it. The
 * domain only ever sees this value.
 */
export interface Actor {
  kind: 'agent' | 'user';
  /** The agent token's id; null for the person, and for writes not made through a token. */
  tokenId: string | null;
}

/** The person: the owner token's requests. */
export const PERSON: Actor = Object.freeze({ kind: 'user', tokenId: null });
/** An agent not tied to a token (tests and internal jobs). */
export const UNNAMED_AGENT: Actor = Object.freeze({ kind: 'agent', tokenId: null });
