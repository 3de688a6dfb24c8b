import type { Store } from '../../ground/store/store';

export interface LoggedOperation {
  opSeq: number;
  topicid: string;
  kind: string;
  actor: string;
  /** The agent token that wrote it; null for the person (and writes before per-agent tokens). */
  tokenId: string | null;
  agentName: string | null;
  noteIds: string[];
  at: string;
  /** The newest snapshot of the set taken before this write: restoring it goes back to before it. */
  restoreTo: { snapshotId: string; createdAt: string; description: string } | null;
}

interface Row {
  op_seq: number;
  topicid: string;
  kind: string;
  actor: string;
  token_id: string | null;
  agent_name: string | null;
  note_ids: string;
  at: string;
}

/**
 * The operation log by writer: "what did this agent change", newest first.
 * `tokenId` 'owner' selects the person's own writes. Each entry names the
 * snapshot to go back to (POST /snapshots/{id}/restore).
 */
export function operationsBy(
  store: Store,
  opts: { tokenId?: string; since?: string; limit: number },
): LoggedOperation[] {
  const where: string[] = [];
  const args: string[] = [];
  if (opts.tokenId === 'owner') where.push(`o.actor = 'user'`);
  else if (opts.tokenId) {
    where.push('o.token_id = ?');
    args.push(opts.tokenId);
  }
  if (opts.since) {
    where.push('o.at >= ?');
    args.push(opts.since);
  }
  const rows = store.all<Row>(
    `SELECT o.op_seq, o.topicid, o.kind, o.actor, o.token_id, t.name AS agent_name, o.note_ids, o.at
       FROM operations o LEFT JOIN agent_tokens t ON t.token_id = o.token_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY o.op_seq DESC LIMIT ${Math.floor(opts.limit)}`,
    args,
  );
  return rows.map((r) => {
    const snap = store.get<{ snapshot_id: string; created_at: string; description: string }>(
      'SELECT snapshot_id, created_at, description FROM snapshots WHERE topicid = ? AND op_seq < ? ORDER BY op_seq DESC, created_at DESC LIMIT 1',
      [r.topicid, r.op_seq],
    );
    return {
      opSeq: r.op_seq,
      topicid: r.topicid,
      kind: r.kind,
      actor: r.actor,
      tokenId: r.token_id,
      agentName: r.agent_name,
      noteIds: JSON.parse(r.note_ids) as string[],
      at: r.at,
      restoreTo: snap
        ? { snapshotId: snap.snapshot_id, createdAt: snap.created_at, description: snap.description }
        : null,
    };
  });
}
