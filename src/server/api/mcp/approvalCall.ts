import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BridgeError } from '../../errors';
import type { RouteServices } from '../http/routeTable';
import type { ElicitationBroker } from './mcpElicitation';
import { callRoute, type RouteCallArgs } from './routeCall';

export interface AskContext {
  broker: ElicitationBroker;
  /** The caller's key in the broker (its token id). */
  key: string;
  send: Parameters<ElicitationBroker['ask']>[1];
  requestId: string | number;
  signal: AbortSignal;
}

const text = (value: unknown, isError = false): CallToolResult => ({
  isError,
  content: [{ type: 'text', text: JSON.stringify(value) }],
});

export interface HeldBody {
  approvalId: string;
  summary: { text: string; dryRun?: Record<string, unknown> };
  expiresAt: string;
}

/** The held call's 202 body, if this tool result is one. */
export function heldOf(result: CallToolResult): HeldBody | undefined {
  const first = result.content[0];
  if (result.isError || first?.type !== 'text') return undefined;
  try {
    const body = JSON.parse(first.text) as {
      approvalId?: string;
      state?: string;
      summary?: { text: string };
      expiresAt?: string;
    };
    return body.state === 'pending' && body.approvalId && body.summary && body.expiresAt ? (body as never) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * study_call with approvals: a call held for the person (202) is also asked
 * through the client's `elicitation/create` when the client declared it.
 * Accept allows it (the call runs once and its answer is the tool's result),
 * decline denies it; no answer leaves it pending and the 202 body is the
 * result, as for clients without elicitation.
 */
export async function callWithApproval(
  services: RouteServices,
  token: string,
  args: RouteCallArgs,
  ask: AskContext,
): Promise<CallToolResult> {
  const result = await callRoute(services, token, args);
  const held = heldOf(result);
  if (!held || !ask.broker.declaredBy(ask.key)) return result;
  const waitMs = Math.max(0, Date.parse(held.expiresAt) - Date.now());
  const action = await ask.broker.ask(
    ask.key,
    ask.send,
    ask.requestId,
    `${held.summary.text}\n\nAllow this change? It waits for you until ${held.expiresAt}.`,
    ask.signal,
    waitMs,
  );
  if (action !== 'accept' && action !== 'decline') return result;
  return decideAsked(services, held.approvalId, action, 'mcp-elicitation');
}

/**
 * The person's answer, given through the MCP client, applied to a held call:
 * accept allows it (the call runs once, its answer is the tool's result),
 * decline denies it. Decided meanwhile elsewhere (VS Code wins) or expired:
 * what the approval says now.
 */
export async function decideAsked(
  services: RouteServices,
  approvalId: string,
  action: 'accept' | 'decline',
  decidedBy: string,
): Promise<CallToolResult> {
  try {
    const decided = await services.approvals.decide(approvalId, action === 'accept' ? 'allow' : 'deny', decidedBy);
    if (decided.result) return text(decided.result.body, decided.result.status >= 400);
    return text(
      {
        approvalId: decided.approvalId,
        state: decided.state,
        message: 'The person declined this call through the MCP client. Nothing was changed.',
      },
      true,
    );
  } catch (e) {
    if (!(e instanceof BridgeError)) throw e;
    const now = await services.approvals.get(approvalId);
    return text(
      now.result?.body ?? { approvalId: now.approvalId, state: now.state },
      now.state !== 'allowed' || (now.result?.status ?? 200) >= 400,
    );
  }
}
