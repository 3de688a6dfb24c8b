import type { Approval, ApprovalState, ApprovalSummary, CallResult } from './approvalTypes';

/** The approvals table's rows (schema version 7) and the Approval each reads as. */
export interface Row {
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

export const INTERRUPTED: CallResult = {
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

export const view = (r: Row): Approval => ({
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
