import { z } from 'zod';
import { BridgeError } from '../../errors';
import { defineRoute, Reply } from '../http/routeTable';
import { buildCapabilities } from '../system/capabilities';
import { buildOpenApi, filterRoutes } from '../system/openapi';
import { MCP_MESSAGE_BYTES } from '../mcp/mcpBudget';
import { AGENT_SCOPES } from '../../domain/security/scopes';
import { INSTALLED_AGENT } from '../../domain/security/tokens';
import { claudeMcpCommand, expiredInstallScript, installCommand, installScript } from '../system/installScript';
import { mcpExchange, mcpGetAnswer } from '../mcp/mcpChannel';
import type { BridgeServices } from '../../services';
import { recoveryFoundDamage } from '../../ground/store/recoveryReport';
import {
  capabilitiesResponse,
  contextResponse,
  installCodeResponse,
  pairResponse,
  statusResponse,
} from './systemShapes';
import { BRIDGE_API_VERSION, SERVER_VERSION } from '../../version';

const shellScript = 'text/x-shellscript; charset=utf-8';
const pairingFailed = () =>
  new BridgeError(
    'PAIRING_FAILED',
    403,
    'Pairing failed: the code is wrong, used, expired or dead after too many attempts. Ask the user for a new code.',
  );

const statusBody = (services: BridgeServices, authorized: boolean) => ({
  bridgeApiVersion: BRIDGE_API_VERSION,
  app: 'Study Bridge',
  appVersion: SERVER_VERSION,
  authorized,
  instanceNonce: services.instanceNonce,
  ...services.routeSummary,
  guide: {
    version: services.guide.version,
    sha256: services.guide.sha256,
    route: '/guide',
    refreshPolicy: 'on_change: re-read /guide and /capabilities when version, sha256 or apiFingerprint change',
    usesExistingBearer: true,
    rotatesToken: false,
  },
  // What start-up recovery found, for the token holder only: it names files in the data dir.
  ...(authorized && recoveryFoundDamage(services.store.recovery) ? { recovery: statusRecovery(services) } : {}),
  // Paths and user ids are for the owner only.
  ...(authorized && services.warnings.length ? { warnings: services.warnings } : {}),
});
const statusRecovery = ({ store: { recovery: r } }: BridgeServices) => ({
  lostRecords: r.lostRecords,
  failedRecords: r.failedRecords,
  damagedBytes: r.damagedBytes,
  ...(r.keptAs === undefined ? {} : { keptAs: r.keptAs }),
  ...(r.staleRedoKeptAs === undefined ? {} : { staleRedoKeptAs: r.staleRedoKeptAs }),
  ...(r.rewriteError === undefined ? {} : { rewriteError: r.rewriteError }),
});
const statusBodies = new WeakMap<BridgeServices, string[]>();

export const systemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/status',
    summary:
      'Liveness, instance nonce, guide hash, route fingerprint and storage (writable, freeBytes). No token needed; authorized:true when the sent token is valid.',
    auth: 'none',
    response: statusResponse,
    // The body only varies with `authorized`: both variants are serialised once per instance.
    handler: async ({ services, authorized }) => {
      let bodies = statusBodies.get(services);
      if (!bodies)
        statusBodies.set(services, (bodies = [false, true].map((a) => JSON.stringify(statusBody(services, a)))));
      const body = bodies[authorized ? 1 : 0];
      // The storage state changes while the bridge runs: appended to the cached part.
      const storage = services.storage?.status();
      return new Reply(
        storage ? `${body.slice(0, -1)},"storage":${JSON.stringify(storage)}}` : body,
        'application/json; charset=utf-8',
      );
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/capabilities',
    summary:
      'Machine-readable route list (requiresMax, confirm, dryRun), presets, anchor modes, fill semantics, limits.',
    response: capabilitiesResponse,
    handler: async ({ services }) => ({
      ...buildCapabilities(services.routes, services.config.limits, services.guide),
      approvals: {
        policy: services.approvals.policy,
        expiresAfterSeconds: services.config.limits.approvalTtlMs / 1000,
        flow: "An agent token's covered call (destructive routes: routes[].destructive; all-writes: every write) answers 202 {approvalId, state:'pending', summary}; poll GET /approvals/{id} until allowed (result), denied or expired. The owner's calls never wait.",
      },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/guide',
    summary: 'This runtime guide as Markdown; its SHA-256 is /status guide.sha256.',
    replyType: 'text/markdown; charset=utf-8',
    handler: async ({ services }) =>
      new Reply(services.guide.markdown, 'text/markdown; charset=utf-8', 200, {
        'X-Guide-Sha256': services.guide.sha256,
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/openapi.json',
    summary:
      'OpenAPI 3.1 of every route, generated from the route table and its schemas (served as is: the API version is info.version); ?path=/decks/{id}/cards or ?tag=decks answers just those routes (a valid document too).',
    replyType: 'application/json; charset=utf-8',
    query: z.object({ path: z.string().min(1).max(200).optional(), tag: z.string().min(1).max(64).optional() }),
    example: { query: { path: '/decks/{id}/cards' } },
    // Unwrapped: a top-level bridgeApiVersion would make it an invalid OpenAPI document.
    handler: async ({ query, services }) =>
      new Reply(
        JSON.stringify(buildOpenApi(filterRoutes(services.routes, query), services.baseUrl(), services.routes)),
        'application/json; charset=utf-8',
      ),
  }),
  defineRoute({
    method: 'GET',
    path: '/context',
    summary:
      'What the user has open: study set, current page (PDF order), selected and focused cards; available:false with a reason when nothing is open.',
    response: contextResponse,
    handler: async ({ services }) => ({ ...(await services.ui.context()) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/install',
    summary:
      "One-time install script (pipe to sh): writes the agent's own token (named and scoped when the code was made) to its token file (600), installs the agent skill, prints the MCP command. The code is the credential.",
    auth: 'none',
    replyType: shellScript,
    query: z.object({ code: z.string().min(1).max(200) }),
    example: { query: { code: 'abc' } },
    handler: async ({ query, services }) => {
      const grant = await services.codes.redeem('install', query.code);
      if (!grant) return new Reply(expiredInstallScript(), shellScript, 403);
      const issued = await services.tokens.issue(grant.name, grant.scope);
      return new Reply(
        installScript({ token: issued.token, baseUrl: services.baseUrl(), guideMarkdown: services.guide.markdown }),
        shellScript,
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/install/code',
    summary:
      'Owner only. Issues a one-time install code (10 min) and its curl command; {"kind":"pair"} issues a 6-digit pairing code (5 min). The code makes one agent token named `name` with `scope` (read | write, default write). Writes no file.',
    scope: 'owner',
    body: z.object({
      kind: z.enum(['install', 'pair']).default('install'),
      name: z
        .string()
        .trim()
        .min(1)
        .max(120)
        .optional()
        .describe('The agent token\'s name (default "installed agent"; pairing: the device\'s name)'),
      scope: z.enum(AGENT_SCOPES).default('write'),
    }),
    response: installCodeResponse,
    example: { body: { kind: 'pair' } },
    handler: async ({ body, services }) => {
      const name = body.name ?? (body.kind === 'pair' ? 'paired device' : INSTALLED_AGENT);
      const { code, expiresAt } = await services.codes.issue(body.kind, { name, scope: body.scope });
      const baseUrl = services.baseUrl();
      if (body.kind === 'pair') {
        return {
          kind: 'pair',
          code,
          expiresAt,
          name,
          scope: body.scope,
          pairUrl: `${baseUrl}/pair`,
          request: { code, deviceName: '<name of the agent or machine>' },
        };
      }
      return {
        kind: 'install',
        code,
        expiresAt,
        installUrl: `${baseUrl}/install?code=${code}`,
        command: installCommand(baseUrl, code),
        mcpCommand: claudeMcpCommand(baseUrl),
        rotatesToken: false,
        name,
        scope: body.scope,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/pair',
    summary:
      'Pairs a device with a 6-digit code (5 min, once, dead after 3 wrong tries) and returns its own token. Every failure is PAIRING_FAILED.',
    auth: 'none',
    listed: false,
    // Loose on purpose: a malformed code is a failed attempt, answered like any other.
    body: z.object({ code: z.unknown().optional(), deviceName: z.unknown().optional() }),
    response: pairResponse,
    example: { body: { code: '123456', deviceName: 'laptop' } },
    handler: async ({ body, services }) => {
      const code = typeof body.code === 'string' || typeof body.code === 'number' ? String(body.code) : '';
      const named =
        typeof body.deviceName === 'string' && body.deviceName.trim()
          ? body.deviceName.trim().slice(0, 120)
          : undefined;
      const grant = await services.codes.redeem('pair', code);
      if (!grant) throw pairingFailed();
      const issued = await services.tokens.issue(named ?? grant.name, grant.scope);
      return {
        token: issued.token,
        tokenId: issued.tokenId,
        scope: issued.scope,
        deviceName: issued.name,
        baseUrl: services.baseUrl(),
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/mcp',
    summary:
      'MCP channel (Streamable HTTP, stateless): tools study_guide, study_call, study_upload, study_review_next and study_review_grade (with the review MCP App, resource ui://study-bridge/review). Protocol 2026-07-28 (per-request _meta, no initialize) and 2025-11-25 and older (initialize handshake). Send Accept: application/json, text/event-stream.',
    rawBody: { limitBytes: MCP_MESSAGE_BYTES },
    // A JSON-RPC answer written on the raw response (MCP transport), not the success wrapper.
    replyType: 'application/json',
    example: { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } },
    // The channel itself only reads; each study_call is checked against the caller's scope as a request of its own.
    scope: 'read',
    handler: async ({ raw, services, bearer }) => mcpExchange(services, raw, bearer!),
  }),
  defineRoute({
    method: 'GET',
    path: '/mcp',
    summary:
      'No server-to-client stream: 405 (Allow: POST) to an MCP client asking for text/event-stream, else 501. The MCP channel is POST /mcp.',
    listed: false,
    handler: async () => mcpGetAnswer(),
  }),
];
