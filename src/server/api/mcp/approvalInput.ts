import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RouteServices } from '../http/routeTable';
import { decideAsked, heldOf, type HeldBody } from './approvalCall';
import { callRoute, type RouteCallArgs } from './routeCall';

import type * as SdkModule from '@modelcontextprotocol/server' with { 'resolution-mode': 'import' };

type Sdk = typeof SdkModule;
export type StateCodec = ReturnType<Sdk['createRequestStateCodec']>;
type ServerContext = NonNullable<Parameters<StateCodec['mint']>[1]>;

/** What a retried call echoes back (signed by the channel's codec): the approval it answers. */
export interface ApprovalState {
  approvalId: string;
}

/** The key of our one input request; the retried call's `inputResponses` answers under it. */
const APPROVE = 'approve';
/** The dry run shown with the question; a longer one is cut (the person can open it in VS Code). */
const DRY_RUN_CHARS = 1500;

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** "Allow <agent> to <what the call does>?" and the dry run, for the person reading the client's prompt. */
export function approvalQuestion(agent: string, held: HeldBody): string {
  const prefix = `${agent}: `;
  const said = held.summary.text.startsWith(prefix) ? held.summary.text.slice(prefix.length) : held.summary.text;
  const lines = [`Allow ${agent} to ${said}?`];
  if (held.summary.dryRun) {
    const dry = JSON.stringify(held.summary.dryRun);
    lines.push('', `What it would do: ${dry.length > DRY_RUN_CHARS ? `${dry.slice(0, DRY_RUN_CHARS)}…` : dry}`);
  }
  lines.push('', `It waits for you until ${held.expiresAt}; you can also decide in VS Code.`);
  return lines.join('\n');
}

/**
 * study_call on the 2026-07-28 generation. A call held for the person is
 * returned as an input request (multi round-trip) when the client declared
 * elicitation in this request's `_meta`; the client asks the person and
 * retries with the answer and the signed state, and only then is the
 * approval decided (accept: the held call runs once; decline: denied).
 * Clients that cannot ask, and a retry without an answer, get the same 202
 * body as an HTTP agent. A decision already made in VS Code wins.
 */
export async function askedCall(
  services: RouteServices,
  token: string,
  args: RouteCallArgs,
  ctx: ServerContext,
  codec: StateCodec,
): Promise<unknown> {
  const { inputRequired, inputResponse } = await import('@modelcontextprotocol/server');
  const asked = ctx.mcpReq.requestState<ApprovalState>();
  if (asked) {
    const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVE);
    if (answer.kind === 'elicit' && answer.action !== 'cancel')
      return decideAsked(services, asked.approvalId, answer.action, 'mcp-input');
    return pendingNow(services, asked.approvalId);
  }
  const result = await callRoute(services, token, args);
  const held = heldOf(result);
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES] as
    { elicitation?: unknown } | undefined;
  if (!held || !caps?.elicitation) return result;
  const agent = services.tokens.identify(token)?.name ?? 'the agent';
  return inputRequired({
    inputRequests: {
      [APPROVE]: inputRequired.elicit({ message: approvalQuestion(agent, held), requestedSchema: z.object({}) }),
    },
    requestState: await codec.mint({ approvalId: held.approvalId }, ctx),
  });
}

/** No answer (cancelled, or none given): the approval as it stands, still decidable in VS Code. */
async function pendingNow(services: RouteServices, approvalId: string): Promise<CallToolResult> {
  const now = await services.approvals.get(approvalId);
  const body =
    now.state === 'pending'
      ? { approvalId, state: now.state, summary: now.summary, expiresAt: now.expiresAt }
      : (now.result?.body ?? { approvalId, state: now.state });
  const failed = now.state === 'denied' || now.state === 'expired' || (now.result?.status ?? 200) >= 400;
  return { isError: failed, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
