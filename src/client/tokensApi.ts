import type { RouteResponse } from '../server/api/http/routeTable';
import type { tokenIssueResponse, tokenListResponse, tokenRevokeResponse } from '../server/api/routes/tokens';
import type { Requester } from './requester';

/**
 * Agent tokens, for the owner (the VS Code extension, the CLI): list, make,
 * revoke. Shapes come from the routes' own schemas (`import type` only).
 */
export type TokenList = RouteResponse<typeof tokenListResponse>;
export type AgentToken = TokenList['tokens'][number];
export type IssuedToken = RouteResponse<typeof tokenIssueResponse>;
export type AgentScope = AgentToken['scope'];

export class TokensApi {
  constructor(private readonly client: Requester) {}

  async list(): Promise<AgentToken[]> {
    return (await this.client.request<TokenList>('GET', '/tokens')).tokens;
  }
  create(name: string, scope: AgentScope) {
    return this.client.request<IssuedToken>('POST', '/tokens', { body: { name, scope, confirm: true } });
  }
  revoke(tokenId: string) {
    return this.client.request<RouteResponse<typeof tokenRevokeResponse>>(
      'POST',
      `/tokens/${encodeURIComponent(tokenId)}/revoke`,
      { body: { confirm: true } },
    );
  }
}
