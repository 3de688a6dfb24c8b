import { randomBytes } from 'node:crypto';
import { BridgeError, conflict, notFound } from '../../errors';
import type { Store } from '../../ground/store/store';
import { HeldRequests, MAX_PENDING_PER_AGENT, ON_DISK, tooManyPending } from './heldRequests';
import {
  APPROVAL_POLICIES,
  type Approval,
  type ApprovalPolicy,
  type ApprovalRunner,
  type ApprovalState,
  type ApprovalSummary,
  type CallResult,
  type Decision,
  type HeldRequest,
} from './approvalTypes';
import { INTERRUPTED, view, type Row } from './approvalRows';

export { APPROVAL_POLICIES };
export type {
  Approval,
  ApprovalPolicy,
  ApprovalRunner,
  ApprovalState,
  ApprovalSummary,
  CallResult,
  Decision,
  HeldRequest,
};

/**
 * Agent calls held for the person's decision. Every state change is a store
 * write (journaled, so durable, and an `approval` event on GET /events). A
 * pending approval survives a restart until it expires. Allowing marks the row
 * `allowed` durably before the call runs and saves its answer after: a crash
 * between leaves an `allowed` row answered APPROVAL_INTERRUPTED at the next
 * start, never a second run.
 */
export class ApprovalService {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Approvals being decided now: a second decision waits for nothing and is refused. */
  private readonly deciding = new Set<string>();
  private runner: ApprovalRunner | undefined;
  private readonly held: HeldRequests;

  /** `heldDir`: where held requests are kept, a file each (heldRequests.ts). */
  constructor(
    private readonly store: Store,
    readonly policy: ApprovalPolicy,
    private readonly ttlMs: number,
    heldDir: string,
  ) {
    this.held = new HeldRequests(heldDir);
  }

  /** Set once the route table is up (the runner dispatches to it). */
  setRunner(runner: ApprovalRunner): void {
    this.runner = runner;
  }

  /** At start: allowed calls a stop cut short are answered as interrupted; pending ones get their expiry timers. */
  async recover(): Promise<void> {
    const cut = this.store.all<{ approval_id: string }>(
      `SELECT approval_id FROM approvals WHERE state = 'allowed' AND result_json IS NULL`,
    );
    if (cut.length) {
      await this.store.write((tx) => {
        for (const r of cut)
          tx.run('UPDATE approvals SET result_json = ? WHERE approval_id = ?', [
            JSON.stringify(INTERRUPTED),
            r.approval_id,
          ]);
      });
    }
    const pending = this.store.all<Row>(`SELECT approval_id, expires_at FROM approvals WHERE state = 'pending'`);
    for (const r of pending) this.schedule(r.approval_id, r.expires_at);
    await this.held.sweep(new Set(pending.map((r) => r.approval_id)));
  }

  /**
   * Holds a call; answers the pending approval. Its request goes to a file
   * (413 APPROVAL_BODY_TOO_LARGE over the cap); an agent with
   * MAX_PENDING_PER_AGENT calls pending gets 429 TOO_MANY_PENDING, counted
   * inside the write so calls racing in cannot pass the bound together.
   */
  async hold(
    agent: { tokenId: string; name: string },
    request: HeldRequest,
    summary: ApprovalSummary,
  ): Promise<Approval> {
    const bytes = this.admit(agent.tokenId, request); // before the file is written
    const now = new Date();
    const row: Row = {
      approval_id: `apr_${randomBytes(8).toString('hex')}`,
      token_id: agent.tokenId,
      agent_name: agent.name,
      method: request.method,
      path: request.path,
      request_json: ON_DISK,
      summary_json: JSON.stringify(summary),
      state: 'pending',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
      decided_at: null,
      decided_by: null,
      result_json: null,
    };
    await this.held.save(row.approval_id, bytes);
    try {
      await this.store.write((tx) => {
        this.refuseOverLimit(tx, agent.tokenId);
        tx.run(
          `INSERT INTO approvals(approval_id, token_id, agent_name, method, path, request_json, summary_json, state, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            row.approval_id,
            row.token_id,
            row.agent_name,
            row.method,
            row.path,
            row.request_json,
            row.summary_json,
            row.state,
            row.created_at,
            row.expires_at,
          ],
        );
      });
    } catch (e) {
      await this.held.remove(row.approval_id);
      throw e;
    }
    this.schedule(row.approval_id, row.expires_at);
    return view(row);
  }

  /** The request's stored bytes, if the agent may hold one more: 413 APPROVAL_BODY_TOO_LARGE, 429 TOO_MANY_PENDING. */
  admit(tokenId: string, request: HeldRequest): Buffer {
    const bytes = HeldRequests.serialize(request);
    this.refuseOverLimit(this.store, tokenId);
    return bytes;
  }

  /** 429 TOO_MANY_PENDING when the agent has its quota of calls pending; retry once the oldest of them expires. */
  private refuseOverLimit(db: Pick<Store, 'get'>, tokenId: string): void {
    const p = db.get<{ n: number; oldest: string | null }>(
      `SELECT count(*) AS n, min(expires_at) AS oldest FROM approvals WHERE state = 'pending' AND token_id = ? AND expires_at > ?`,
      [tokenId, new Date().toISOString()],
    )!;
    if (p.n < MAX_PENDING_PER_AGENT) return;
    throw tooManyPending(p.n, Math.max(1, Math.ceil((Date.parse(p.oldest ?? '') - Date.now()) / 1000) || 1));
  }

  private row(approvalId: string): Row | undefined {
    return this.store.get<Row>('SELECT * FROM approvals WHERE approval_id = ?', [approvalId]);
  }

  /** One approval; `tokenId` set: only that agent's own (another's answers 404, as if absent). */
  async get(approvalId: string, tokenId?: string): Promise<Approval> {
    let r = this.row(approvalId);
    if (!r || (tokenId !== undefined && r.token_id !== tokenId)) {
      throw notFound(
        'APPROVAL_NOT_FOUND',
        `No approval ${approvalId}${tokenId !== undefined ? ' asked by this token' : ''}. GET /approvals lists the pending ones.`,
        { approvalId },
      );
    }
    if (r.state === 'pending' && Date.parse(r.expires_at) <= Date.now()) r = (await this.expire(approvalId)) ?? r;
    return view(r);
  }

  /** The pending approvals, oldest first (all, or one agent's). */
  list(tokenId?: string): Approval[] {
    const now = new Date().toISOString();
    const rows = this.store.all<Row>(
      `SELECT * FROM approvals WHERE state = 'pending' AND expires_at > ? ORDER BY created_at, rowid`,
      [now],
    );
    return rows.filter((r) => tokenId === undefined || r.token_id === tokenId).map(view);
  }

  /** The person's decision. Allow runs the call once, as the agent, and answers with its result. */
  async decide(approvalId: string, decision: Decision, by: string): Promise<Approval> {
    const current = await this.get(approvalId);
    if (current.state !== 'pending' || this.deciding.has(approvalId)) {
      const code = current.state === 'expired' ? 'APPROVAL_EXPIRED' : 'APPROVAL_DECIDED';
      throw conflict(
        code,
        `Approval ${approvalId} is ${this.deciding.has(approvalId) ? 'being decided' : current.state}; a decision is taken once. Nothing was run.`,
        { approvalId, state: current.state },
      );
    }
    if (!this.runner)
      throw new BridgeError(
        'APPROVALS_UNAVAILABLE',
        503,
        'Approvals cannot run calls yet (the bridge is starting).',
        undefined,
        true,
      );
    this.deciding.add(approvalId);
    try {
      // Read again now that no other decision can start: one that finished meanwhile has moved the row on.
      const state = this.row(approvalId)?.state;
      if (state !== 'pending')
        throw conflict(
          'APPROVAL_DECIDED',
          `Approval ${approvalId} is ${state}; a decision is taken once. Nothing was run.`,
          { approvalId, state },
        );
      const decidedAt = new Date().toISOString();
      const next: ApprovalState = decision === 'allow' ? 'allowed' : 'denied';
      await this.store.write((tx) =>
        tx.run('UPDATE approvals SET state = ?, decided_at = ?, decided_by = ? WHERE approval_id = ?', [
          next,
          decidedAt,
          by,
          approvalId,
        ]),
      );
      this.unschedule(approvalId);
      if (decision === 'allow') {
        const r = this.row(approvalId)!;
        let result: CallResult;
        try {
          result = await this.runner(await this.held.load(approvalId, r.request_json), r.token_id);
        } catch {
          result = INTERRUPTED;
        }
        await this.store.write((tx) =>
          tx.run('UPDATE approvals SET result_json = ? WHERE approval_id = ?', [JSON.stringify(result), approvalId]),
        );
      }
      await this.held.remove(approvalId);
      return view(this.row(approvalId)!);
    } finally {
      this.deciding.delete(approvalId);
    }
  }

  private async expire(approvalId: string): Promise<Row | undefined> {
    this.unschedule(approvalId);
    if (this.deciding.has(approvalId)) return undefined;
    await this.store.write((tx) =>
      tx.run(`UPDATE approvals SET state = 'expired' WHERE approval_id = ? AND state = 'pending'`, [approvalId]),
    );
    await this.held.remove(approvalId);
    return this.row(approvalId);
  }

  private schedule(approvalId: string, expiresAt: string): void {
    const t = setTimeout(
      () => void this.expire(approvalId).catch(() => undefined),
      Math.max(0, Date.parse(expiresAt) - Date.now()),
    );
    t.unref();
    this.timers.set(approvalId, t);
  }

  private unschedule(approvalId: string): void {
    clearTimeout(this.timers.get(approvalId));
    this.timers.delete(approvalId);
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
