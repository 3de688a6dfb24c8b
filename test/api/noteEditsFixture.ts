/** Shared by the card edit API tests (hashtags, metadata, fold, title/text, comments): sets, cards and read-backs through the routes. */
import assert from 'node:assert/strict';
import type { TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

export const UNKNOWN_ID = '00000000-0000-4000-8000-00000000DEAD';

export async function newSet(t: TestBridge, title: string): Promise<{ topicid: string; rootNoteId: string }> {
  const s = await t.client.createStudySet(title);
  return { topicid: s.topicid, rootNoteId: s.rootNoteId! };
}

/** A card created through POST /study-sets/{id}/notes; returns its id. */
export async function card(t: TestBridge, topicid: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.client.request<any>('POST', `/study-sets/${topicid}/notes`, { body: { ...body, confirm: true } });
  assert.equal(res.persisted, true);
  return res.noteid;
}

/** Cards as POST /notes/batch-get reads them, by id. */
export async function read(t: TestBridge, ...noteIds: string[]): Promise<Record<string, any>> {
  const res = await t.client.request<any>('POST', '/notes/batch-get', { body: { noteIds } });
  return Object.fromEntries(res.notes.map((n: any) => [n.noteid, n]));
}

/** Tree nodes of a set by id (GET /study-sets/{id}/tree). */
export async function treeNodes(t: TestBridge, topicid: string): Promise<Record<string, any>> {
  const res = await t.client.request<any>('GET', `/study-sets/${topicid}/tree`);
  return Object.fromEntries(res.nodes.map((n: any) => [n.noteid, n]));
}

/** A confirmed POST that must succeed; by the test agent unless `as` is 'person' (the owner token). */
export const post = (t: TestBridge, path: string, body: Record<string, unknown>, as: 'agent' | 'person' = 'agent') =>
  (as === 'person' ? t.owner : t.client).request<any>('POST', path, { body: { ...body, confirm: true } });

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
