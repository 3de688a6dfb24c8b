import type { PendingApproval } from './approvalsApi';

/**
 * How the person is told of agents' held calls (the VS Code prompts use it):
 * one notification per agent however many of its calls arrive together, not
 * one per call. Kept free of VS Code so the grouping is tested against a real
 * bridge's pending list.
 */

/**
 * The pending calls not asked about yet, one group per agent (token id) in
 * the order its calls arrived, groups in the order of their agents' first
 * call. An agent with a prompt still open is left for the next round.
 */
export function freshGroups(
  pending: readonly PendingApproval[],
  asked: ReadonlySet<string>,
  asking: ReadonlySet<string>,
): PendingApproval[][] {
  const groups = new Map<string, PendingApproval[]>();
  for (const a of pending) {
    if (asked.has(a.approvalId) || asking.has(a.agent.tokenId)) continue;
    groups.set(a.agent.tokenId, [...(groups.get(a.agent.tokenId) ?? []), a]);
  }
  return [...groups.values()];
}

/** The one notification of an agent's several calls: a line naming the agent and the count, each call in the detail. */
export function groupNotice(calls: readonly PendingApproval[]): { message: string; detail: string } {
  return {
    message: `Study Bridge: agent "${calls[0].agent.name}" asks for ${calls.length} changes, e.g. ${calls[0].summary.text}`,
    detail: calls.map((a) => a.summary.text).join('\n'),
  };
}
