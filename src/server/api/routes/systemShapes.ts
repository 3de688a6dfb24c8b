/**
 * The answers of the system routes (status, capabilities, context, install codes, pairing): their schemas,
 * shared by the route declarations (routes/system.ts), OpenAPI and the client's types.
 */
import { z } from 'zod';
import { AGENT_SCOPES } from '../../domain/security/scopes';

const routeInfo = z.object({
  method: z.enum(['GET', 'POST']),
  path: z.string(),
  requiresToken: z.boolean(),
  requiresMax: z.boolean(),
  confirm: z.enum(['none', 'body', 'query']),
  dryRun: z.boolean(),
  /** The media type of the file's bytes a raw-body route takes (JSON there: 415 RAW_BODY_REQUIRED). */
  rawBody: z.string().optional(),
  /** A valid request from the declaration (ids in it name nothing). */
  example: z
    .object({
      params: z.record(z.string(), z.string()).optional(),
      query: z.record(z.string(), z.string()).optional(),
      body: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  scope: z.enum(['none', 'read', 'write', 'owner']),
  /** Loses the person's data: an agent's call waits for approval under policy destructive (a string: only when it holds). */
  destructive: z.union([z.literal(true), z.string()]).optional(),
});

export const statusResponse = z.object({
  bridgeApiVersion: z.string(),
  app: z.string(),
  appVersion: z.string(),
  authorized: z.boolean(),
  instanceNonce: z.string(),
  apiFingerprint: z.string(),
  routeCount: z.number().int(),
  guide: z.object({
    version: z.string(),
    sha256: z.string(),
    route: z.string(),
    refreshPolicy: z.string(),
    usesExistingBearer: z.boolean(),
    rotatesToken: z.literal(false),
  }),
  /** Present (with a valid token) only when opening the library found damage: lost acknowledged writes, a kept journal, a stale redo file. */
  recovery: z
    .object({
      lostRecords: z.number().int(),
      failedRecords: z.number().int(),
      damagedBytes: z.number().int(),
      keptAs: z.string().optional(),
      staleRedoKeptAs: z.string().optional(),
      rewriteError: z.string().optional(),
    })
    .optional(),
  /** Start-up conditions to fix (only with a valid token). */
  warnings: z.array(z.string()).optional(),
  storage: z
    .object({
      writable: z.boolean(),
      freeBytes: z.number().int().nullable(),
      reason: z.enum(['disk_full']).optional(),
    })
    .optional()
    .describe(
      "writable:false (reason disk_full) while the data dir's disk is (nearly) full: reads work, writes answer 507 INSUFFICIENT_STORAGE; it turns true again once space is freed, without a restart.",
    ),
});

/** Feature blocks are open objects: each is present only when its route is served. */
const feature = z.record(z.string(), z.unknown()).optional();
export const capabilitiesResponse = z.object({
  routes: z.array(routeInfo),
  /** Which agent calls wait for the person (test/api/approvalsPolicy.test.ts): the policy of this bridge and how the wait works. */
  approvals: z
    .object({
      policy: z.enum(['destructive', 'all-writes', 'never']),
      expiresAfterSeconds: z.number(),
      flow: z.string(),
    })
    .optional(),
  routeCount: z.number().int(),
  apiFingerprint: z.string(),
  accessPolicy: z.object({
    routeField: z.literal('requiresMax'),
    readOnlyRequiresMax: z.boolean(),
    writeRequiresMax: z.boolean(),
    setupNavigationAndTemporaryExportRequireMax: z.boolean(),
    userDataStillRequiresBearerToken: z.boolean(),
    tokenFreeRoutes: z.array(z.string()),
  }),
  presets: z.array(z.string()),
  anchorModes: z.array(z.string()),
  fillIndexSemantics: z.record(z.string(), z.string()),
  noteCreate: feature,
  noteMetadata: feature,
  noteCopy: feature,
  noteHashtags: feature,
  reviewDeckCards: feature,
  imageOcclusions: feature,
  noteImages: feature,
  mindMapPrint: feature,
  outlineExchange: feature,
  legacySync: feature,
  snapshots: feature,
  limits: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
  guide: z.object({
    version: z.string(),
    sha256: z.string(),
    route: z.string(),
    usesExistingBearer: z.boolean(),
    rotatesToken: z.boolean(),
    installRequired: z.boolean(),
  }),
});

export const contextResponse = z.object({
  available: z.boolean(),
  reason: z.enum(['nothing_open', 'app_not_responding']).optional(),
  capturedAt: z.string(),
  studySet: z.object({ topicid: z.string(), title: z.string(), isDeck: z.boolean() }).nullable().optional(),
  currentPage: z
    .object({ bookmd5: z.string(), page: z.number().int(), mappingAvailable: z.boolean() })
    .nullable()
    .optional(),
  documents: z
    .array(z.object({ bookmd5: z.string(), focused: z.boolean(), page: z.number().int().nullable() }))
    .optional(),
  selectedNotes: z.array(z.string()).optional(),
  focusedNote: z.string().nullable().optional(),
});

export const installCodeResponse = z.object({
  kind: z.enum(['install', 'pair']),
  code: z.string(),
  expiresAt: z.string(),
  /** kind install */
  installUrl: z.string().optional(),
  command: z.string().optional(),
  mcpCommand: z.string().optional(),
  rotatesToken: z.literal(false).optional(),
  /** The agent token the code makes: its name and scope. */
  name: z.string(),
  scope: z.enum(AGENT_SCOPES),
  /** kind pair */
  pairUrl: z.string().optional(),
  request: z.object({ code: z.string(), deviceName: z.string() }).optional(),
});

export const pairResponse = z.object({
  token: z.string(),
  tokenId: z.string(),
  scope: z.enum(AGENT_SCOPES),
  deviceName: z.string(),
  baseUrl: z.string(),
});
