import { z } from 'zod';
import { koaPath } from '../http/app';
import { effectiveSchemas } from '../http/routeMiddleware';
import type { RouteDecl } from '../http/routeTable';
import { BRIDGE_API_VERSION } from '../version';
import { apiFingerprint } from './routeFingerprint';

const jsonSchema = (s: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

const errorResponse = { description: 'Error body', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** OpenAPI 3.1 of the bridge, derived from the route table and its zod schemas. */
export function buildOpenApi(routes: readonly RouteDecl[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const s = effectiveSchemas(r);
    const params = Object.entries(jsonSchema(s.params).properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema }));
    const q = jsonSchema(s.query) as { properties?: Record<string, unknown>; required?: string[] };
    const query = Object.entries(q.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: q.required?.includes(name) ?? false, schema }));
    const path = koaPath(r.path).replace(/^\/bridge\/v1/, '').replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      security: r.auth === 'none' ? [] : [{ bearer: [] }],
      'x-requires-max': !!r.premium,
      'x-confirm': r.confirm ?? 'none',
      'x-dry-run': !!r.dryRun,
      'x-listed': r.listed !== false,
      parameters: [...params, ...query],
      ...(r.method === 'POST'
        ? {
            requestBody: r.rawBody
              ? { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary', maxLength: r.rawBody.limitBytes } } } }
              : { content: { 'application/json': { schema: jsonSchema(s.body), ...(r.example?.body ? { example: r.example.body } : {}) } } },
          }
        : {}),
      responses: { '200': { description: 'Success (JSON with bridgeApiVersion, unless the route says otherwise)' }, default: errorResponse },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Study Bridge', version: BRIDGE_API_VERSION, 'x-api-fingerprint': apiFingerprint(routes) },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'bridgeApiVersion'],
          properties: {
            bridgeApiVersion: { type: 'string' },
            error: {
              type: 'object',
              required: ['code', 'message', 'retryable'],
              properties: { code: { type: 'string' }, message: { type: 'string' }, retryable: { type: 'boolean' }, details: { type: 'object' } },
            },
          },
        },
      },
    },
    paths,
  };
}
