/** The shapes of held calls and their approvals (approvalService.ts stores and decides them). */

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
