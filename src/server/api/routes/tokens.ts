import { z } from 'zod';
import { notFound } from '../../errors';
import { defineRoute } from '../http/routeTable';
import { AGENT_SCOPES } from '../../domain/security/scopes';

const tokenInfo = z.object({
  tokenId: z.string(),
  name: z.string(),
  scope: z.enum(AGENT_SCOPES),
  createdAt: z.string(),
  lastUsedAt: z
    .string()
    .nullable()
    .describe('Exact while the bridge runs; written to disk with token changes and at close'),
});

export const tokenListResponse = z.object({ tokens: z.array(tokenInfo) });
export const tokenIssueResponse = z.object({
  tokenId: z.string(),
  token: z.string(),
  name: z.string(),
  scope: z.enum(AGENT_SCOPES),
  createdAt: z.string(),
});
export const tokenRevokeResponse = z.object({ revoked: tokenInfo });

const tokenIdParam = z.object({
  id: z.string().regex(/^tok_[0-9a-f]{16}$/, 'a token id is tok_ and 16 hex digits (GET /tokens lists them)'),
});

/** Agent tokens: the owner mints, lists and revokes them (security/tokens.ts holds them, as HMACs). */
export const tokenRoutes = [
  defineRoute({
    method: 'GET',
    path: '/tokens',
    summary:
      'Owner only. The agent tokens: tokenId, name, scope (read | write), createdAt, lastUsedAt. Never a secret.',
    scope: 'owner',
    response: tokenListResponse,
    handler: async ({ services }) => ({ tokens: services.tokens.list() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/tokens',
    summary:
      'Owner only. Makes a named agent token with scope read (reads and dry-runs) or write (default); the secret is in this answer only.',
    scope: 'owner',
    confirm: 'body',
    body: z.object({ name: z.string().trim().min(1).max(120), scope: z.enum(AGENT_SCOPES).default('write') }),
    response: tokenIssueResponse,
    example: { body: { name: 'Claude Code', scope: 'read' } },
    handler: async ({ body, services }) => {
      const { tokenId, token, name, scope, createdAt } = await services.tokens.issue(body.name, body.scope);
      return { tokenId, token, name, scope, createdAt };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/tokens/{id}/revoke',
    destructive: { describe: ({ params }) => `revoke agent token ${params.id}` },
    summary: 'Owner only. Ends an agent token at once: its next request is 401. Its name stays in the logs.',
    scope: 'owner',
    confirm: 'body',
    params: tokenIdParam,
    response: tokenRevokeResponse,
    example: { params: { id: 'tok_0000000000000000' } },
    handler: async ({ params, services }) => {
      const revoked = await services.tokens.revoke(params.id);
      if (!revoked)
        throw notFound('TOKEN_NOT_FOUND', `No live agent token ${params.id}. GET /tokens lists them.`, {
          tokenId: params.id,
        });
      return { revoked };
    },
  }),
];
