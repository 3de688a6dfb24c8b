import { randomBytes } from 'node:crypto';
import { BridgeError, conflict, notFound } from '../../errors';
import type { Store } from '../../ground/store/store';

/** Which agent calls wait for the person: setting studyBridge.approveAgentChanges, `serve --approvals`. */
export type ApprovalPolicy = 'destructive' | 'all-writes' | 'never';
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ['destructive', 'all-writes', 'never'];
export type ApprovalState = 'pending' | 'allowed' | 'denied' | 'expired';
export type Decision = 'allow' | 'deny';

/** The held call, as sent (validated again when it runs). */
export interface HeldRequest {
  method: 'GET' | 'POST';
  /** The route's declared path, e.g. /notes/{id}/title. */
  path: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** What the call would do: one line for the person, and the route's dry-run where it has one. */
export interface ApprovalSummary {
  text: string;
  dryRun?: Record<string, unknown>;
}

export interface CallResult {
  status: number;
  body: unknown;
}

export interface Approval {
  approvalId: string;
  state: ApprovalState;
  agent: { tokenId: string; name: string };
  method: string;
  path: string;
  summary: ApprovalSummary;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  /** The allowed call's answer; absent until it has answered. */
  result?: CallResult;
}

/** Runs an allowed call as the agent that asked (the HTTP layer supplies it: http/approvalRunner.ts). */
export type ApprovalRunner = (request: HeldRequest, tokenId: string) => Promise<CallResult>;

interface Row {
  approval_id: string;
  token_id: string;
  agent_name: string;
  method: string;
  path: string;
  request_json: string;
  summary_json: string;
  state: ApprovalState;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  result_json: string | null;
}

const INTERRUPTED: CallResult = {
  status: 503,
  body: {
    error: {
      code: 'APPROVAL_INTERRUPTED',
      message:
        'The bridge stopped while this allowed call ran; it was not run again. Read the library to see whether it took effect.',
      retryable: false,
    },
  },
};

const view = (r: Row): Approval => ({
  approvalId: r.approval_id,
  state: r.state,
  agent: { tokenId: r.token_id, name: r.agent_name },
  method: r.method,
  path: r.path,
  summary: JSON.parse(r.summary_json) as ApprovalSummary,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  decidedAt: r.decided_at,
  decidedBy: r.decided_by,
  ...(r.result_json ? { result: JSON.parse(r.result_json) as CallResult } : {}),
});

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

  constructor(
    private readonly store: Store,
    readonly policy: ApprovalPolicy,
    private readonly ttlMs: number,
  ) {}

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
    for (const r of this.store.all<Row>(`SELECT * FROM approvals WHERE state = 'pending'`))
      this.schedule(r.approval_id, r.expires_at);
  }

  /** Holds a call; answers the pending approval. */
  async hold(
    agent: { tokenId: string; name: string },
    request: HeldRequest,
    summary: ApprovalSummary,
  ): Promise<Approval> {
    const now = new Date();
    const row: Row = {
      approval_id: `apr_${randomBytes(8).toString('hex')}`,
      token_id: agent.tokenId,
      agent_name: agent.name,
      method: request.method,
      path: request.path,
      request_json: JSON.stringify(request),
      summary_json: JSON.stringify(summary),
      state: 'pending',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
      decided_at: null,
      decided_by: null,
      result_json: null,
    };
    await this.store.write((tx) =>
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
      ),
    );
    this.schedule(row.approval_id, row.expires_at);
    return view(row);
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
          result = await this.runner(JSON.parse(r.request_json) as HeldRequest, r.token_id);
        } catch {
          result = INTERRUPTED;
        }
        await this.store.write((tx) =>
          tx.run('UPDATE approvals SET result_json = ? WHERE approval_id = ?', [JSON.stringify(result), approvalId]),
        );
      }
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
