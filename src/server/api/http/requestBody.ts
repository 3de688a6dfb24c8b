import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { BridgeError } from '../../errors';
import { refuseUnstorable } from './storableText';
import { uploadTooLarge } from '../../domain/library/uploadLimits';

const tooLarge = (limit: number) =>
  new BridgeError('PAYLOAD_TOO_LARGE', 413, `The request body exceeds this route's limit of ${limit} bytes.`, {
    limitBytes: limit,
  });

/** 413 when Content-Length already says more than `limit` (before a byte is read). */
export function refuseDeclaredOver(ctx: Context, limit: number): void {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (declared > limit) throw uploadTooLarge(limit);
}

/** Reads the body bytes up to `limit`; refuses early when Content-Length already says too much. */
export async function readBytes(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (declared > limit) throw tooLarge(limit);
  try {
    return await getRawBody(ctx.req, { limit });
  } catch (e) {
    if ((e as { type?: string }).type === 'entity.too.large') throw tooLarge(limit);
    throw e;
  }
}

/**
 * The JSON body as an object. Any content type is read as JSON (curl's
 * default form type included): agents should not have to get headers right.
 */
export async function readJson(ctx: Context, limit: number): Promise<Record<string, unknown>> {
  const bytes = await readBytes(ctx, limit);
  const text = bytes.toString('utf8').trim();
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new BridgeError('INVALID_JSON', 400, `The body is not valid JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new BridgeError('INVALID_JSON', 400, 'The body must be a JSON object.');
  }
  refuseUnstorable(value, 'body', text);
  return value as Record<string, unknown>;
}
