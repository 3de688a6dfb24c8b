/** Shared by the card edit API tests (hashtags, metadata, fold, title/text, comments): sets, cards and read-backs through the routes. */
import assert from 'node:assert/strict';
import type { Success } from '../../src/client/bridgeClient';
import type { TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

export const UNKNOWN_ID = '00000000-0000-4000-8000-00000000DEAD';

export { card, newSet, read, treeNodes } from '../helpers/libraryFixtures';

/**
 * A confirmed POST that must succeed; by the test agent unless `as` is 'person' (the owner token). The path is
 * any route's, so the answer is a loose object; a test wanting the route's own answer type uses client.call.
 */
export const post = (t: TestBridge, path: string, body: Record<string, unknown>, as: 'agent' | 'person' = 'agent') =>
  (as === 'person' ? t.owner : t.client).request<Success & Record<string, any>>('POST', path, {
    body: { ...body, confirm: true },
  });

/** A POST that must be refused with `status`/`code` and leave every table byte-identical; returns the error. */
export async function refused(
  t: TestBridge,
  path: string,
  body: Record<string, unknown>,
  status: number,
  code: string,
  confirm = true,
): Promise<any> {
  const before = storeDigest(t.bridge.services.store);
  const res = await t.client.raw('POST', path, { body: confirm ? { ...body, confirm: true } : body });
  assert.equal(res.status, status, `${path}: ${res.text().slice(0, 300)}`);
  const err = res.json<any>().error;
  assert.equal(err.code, code, `${path}: ${err.message}`);
  assert.ok(err.message.length > 20, 'a clear message');
  assert.equal(storeDigest(t.bridge.services.store), before, 'nothing changed');
  return err;
}

/** Operation-log rows, oldest first. */
export const operations = (t: TestBridge) =>
  t.bridge.services.store
    .all<{ op_seq: number; topicid: string; kind: string; actor: string; note_ids: string }>(
      'SELECT * FROM operations ORDER BY op_seq',
    )
    .map((o) => ({ ...o, noteIds: JSON.parse(o.note_ids) as string[] }));

/** 201 distinct well-formed ids: one over the batch limit. */
export const ids201 = (known: string) => [
  known,
  ...Array.from({ length: 200 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
];
