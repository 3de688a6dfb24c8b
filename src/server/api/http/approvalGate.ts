import type { ApprovalPolicy, ApprovalSummary, HeldRequest } from '../../domain/approvals/approvalService';
import { neededScope } from '../../domain/security/scopes';
import type { RouteDecl, RouteInput, RouteServices } from './routeTable';

type AnyInput = RouteInput<unknown, unknown, unknown>;

/** Whether this confirmed call waits for the person under the policy. Uploads (a streamed body) are never held. */
export async function needsApproval(route: RouteDecl, input: AnyInput, policy: ApprovalPolicy): Promise<boolean> {
  if (policy === 'never' || route.rawBody?.stream || neededScope(route, true) !== 'write') return false;
  if (policy === 'all-writes') return true;
  const rule = route.destructive;
  if (!rule) return false;
  return rule.when ? rule.when.test(input as never) : true;
}

/** The dry-run of the held call (its route's preview, where it has one) and one line for the person. */
export async function summarize(route: RouteDecl, input: AnyInput, agentName: string): Promise<ApprovalSummary> {
  const dryRun = route.preview ? await route.preview(input as never) : undefined;
  const said = route.destructive?.describe
    ? await route.destructive.describe(input as never, dryRun)
    : `${route.method} ${route.path}`;
  return { text: `${agentName}: ${said}`, ...(dryRun ? { dryRun } : {}) };
}

/**
 * The approval gate of the request path (after the confirm gate, before the
 * handler): an agent's covered call is held, and the caller gets the 202 body.
 * The owner's calls never wait. Undefined: run the call now.
 */
export async function holdForApproval(
  route: RouteDecl,
  input: AnyInput,
  services: RouteServices,
  sent: Omit<HeldRequest, 'method' | 'path'>,
): Promise<Record<string, unknown> | undefined> {
  const caller = input.caller;
  if (!caller || caller.tokenId === null || route.auth === 'none') return undefined;
  if (!(await needsApproval(route, input, services.approvals.policy))) return undefined;
  const request: HeldRequest = { method: route.method, path: route.path, ...sent };
  // Over the agent's quota or the held size: refused before the dry-run is worked out.
  services.approvals.admit(caller.tokenId, request);
  const summary = await summarize(route, input, caller.name);
  const approval = await services.approvals.hold({ tokenId: caller.tokenId, name: caller.name }, request, summary);
  return {
    approvalId: approval.approvalId,
    state: approval.state,
    summary: approval.summary,
    expiresAt: approval.expiresAt,
    next: `Nothing was changed yet: the person decides. Poll GET /approvals/${approval.approvalId} (or watch GET /events for event "approval") until state is allowed (result holds the call's answer), denied or expired.`,
  };
}
