import { z } from 'zod';
import { operationsBy } from '../../domain/cards/operationLog';
import { defineRoute } from '../http/routeTable';

const approvalId = z.object({
  id: z.string().regex(/^apr_[0-9a-f]{16}$/, 'an approval id is apr_ and 16 hex digits (GET /approvals lists them)'),
});

const approval = z.object({
  approvalId: z.string(),
  state: z.enum(['pending', 'allowed', 'denied', 'expired']),
  agent: z.object({ tokenId: z.string(), name: z.string() }),
  method: z.string(),
  path: z.string(),
  summary: z.object({ text: z.string(), dryRun: z.record(z.string(), z.unknown()).optional() }),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable(),
  result: z
    .object({ status: z.number(), body: z.unknown() })
    .optional()
    .describe("The allowed call's answer (run once, as the agent)"),
});

/** The 202 of a held call (http/approvalGate.ts). */
export const approvalPendingResponse = z.object({
  approvalId: z.string(),
  state: z.literal('pending'),
  summary: approval.shape.summary,
  expiresAt: z.string(),
  next: z.string(),
});

export const approvalListResponse = z.object({
  policy: z.enum(['destructive', 'all-writes', 'never']),
  approvals: z.array(approval),
});
export const approvalResponse = approval;

const operation = z.object({
  opSeq: z.number(),
  topicid: z.string(),
  kind: z.string(),
  actor: z.string(),
  tokenId: z.string().nullable(),
  agentName: z.string().nullable(),
  noteIds: z.array(z.string()),
  at: z.string(),
  restoreTo: z.object({ snapshotId: z.string(), createdAt: z.string(), description: z.string() }).nullable(),
});
export const operationsResponse = z.object({ operations: z.array(operation) });

/** Approvals: an agent's call the person must approve is held (202) until the owner decides (approvals/). */
export const approvalRoutes = [
  defineRoute({
    method: 'GET',
    path: '/approvals',
    summary: 'The pending approvals (oldest first) and the policy. The owner sees all; an agent token sees its own.',
    response: approvalListResponse,
    handler: async ({ services, caller }) => ({
      policy: services.approvals.policy,
      approvals: services.approvals.list(caller?.tokenId ?? undefined),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/approvals/{id}',
    summary:
      "One approval: pending | allowed | denied | expired; once allowed, result {status, body} is the held call's answer (run exactly once). An agent reads its own only.",
    params: approvalId,
    response: approvalResponse,
    example: { params: { id: 'apr_0000000000000000' } },
    handler: async ({ params, services, caller }) => services.approvals.get(params.id, caller?.tokenId ?? undefined),
  }),
  defineRoute({
    method: 'POST',
    path: '/approvals/{id}/decide',
    summary:
      'Owner only. allow runs the held call once, as the agent that asked, and answers with its result; deny drops it. 409 APPROVAL_DECIDED / APPROVAL_EXPIRED.',
    scope: 'owner',
    confirm: 'body',
    params: approvalId,
    body: z.object({ decision: z.enum(['allow', 'deny']) }),
    response: approvalResponse,
    example: { params: { id: 'apr_0000000000000000' }, body: { decision: 'deny' } },
    handler: async ({ params, body, services }) => services.approvals.decide(params.id, body.decision, 'owner'),
  }),
  defineRoute({
    method: 'GET',
    path: '/operations',
    summary:
      "Owner only. The operation log, newest first: what each write batch changed (topicid, kind, noteIds, at) and who (actor, tokenId, agentName), with restoreTo, the snapshot taken before it. ?tokenId=tok_… one agent's writes (owner: the person's); ?since=ISO; ?limit (default 100, max 1000).",
    scope: 'owner',
    query: z.object({
      tokenId: z
        .string()
        .regex(/^(tok_[0-9a-f]{16}|owner)$/, 'tokenId is tok_ and 16 hex digits (GET /tokens), or owner')
        .optional(),
      since: z.string().datetime({ offset: true }).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
    response: operationsResponse,
    example: { query: { tokenId: 'tok_0000000000000000' } },
    handler: async ({ query, services }) => ({ operations: operationsBy(services.store, query) }),
  }),
];
