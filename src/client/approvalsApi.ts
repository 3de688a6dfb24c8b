import type { RouteResponse } from '../server/api/http/routeTable';
import type { approvalListResponse, approvalResponse } from '../server/api/routes/approvals';
import type { Requester } from './requester';

/**
 * Approvals, for the owner (the VS Code extension): the agent calls held for
 * the person's decision, and the decision. Shapes come from the routes' own
 * schemas (`import type` only).
 */
export type ApprovalList = RouteResponse<typeof approvalListResponse>;
export type PendingApproval = ApprovalList['approvals'][number];
export type DecidedApproval = RouteResponse<typeof approvalResponse>;

export class ApprovalsApi {
  constructor(private readonly client: Requester) {}

  async pending(): Promise<PendingApproval[]> {
    return (await this.client.request<ApprovalList>('GET', '/approvals')).approvals;
  }
  get(approvalId: string) {
    return this.client.request<DecidedApproval>('GET', `/approvals/${encodeURIComponent(approvalId)}`);
  }
  decide(approvalId: string, decision: 'allow' | 'deny') {
    return this.client.request<DecidedApproval>('POST', `/approvals/${encodeURIComponent(approvalId)}/decide`, {
      body: { decision, confirm: true },
    });
  }
}
