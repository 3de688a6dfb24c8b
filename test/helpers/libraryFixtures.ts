/**
 * The library's shared fixtures: study sets, cards, decks and corpus books made
 * through the routes, as an agent makes them, with typed answers (client.call).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { BridgeClient } from '../../src/client/bridgeClient';
import type { CallOptions, RouteAnswer } from '../../src/client/routeCalls';
import type { TestBridge } from './bridgeFixture';
import { corpusFile } from '../unit/pdfCorpus';

type Client = Pick<BridgeClient, 'call' | 'createStudySet'>;
const agentOf = (t: TestBridge | Client): Client => ('client' in t ? t.client : t);

/** A new study set: its id and root card. */
export async function newSet(t: TestBridge | Client, title: string): Promise<{ topicid: string; rootNoteId: string }> {
  const s = await agentOf(t).createStudySet(title);
  return { topicid: s.topicid, rootNoteId: s.rootNoteId! };
}

export type CardBody = NonNullable<CallOptions<'POST /study-sets/{id}/notes'>['body']>;

/** A card created through POST /study-sets/{id}/notes (confirmed, read back); returns its id. */
export async function card(t: TestBridge | Client, topicid: string, body: CardBody): Promise<string> {
  const res = await agentOf(t).call('POST /study-sets/{id}/notes', {
    params: { id: topicid },
    body: { ...body, confirm: true },
  });
  assert.equal(res.persisted, true);
  return res.noteid!;
}

/** Cards titled `titles` under the set's root, one call each; their ids in order. */
export async function cards(t: TestBridge | Client, topicid: string, titles: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const title of titles) ids.push(await card(t, topicid, { title }));
  return ids;
}

export type CardRead = RouteAnswer<'POST /notes/batch-get'>['notes'][number];

/** Cards as POST /notes/batch-get reads them, by id. */
export async function read(t: TestBridge | Client, ...noteIds: string[]): Promise<Record<string, CardRead>> {
  const res = await agentOf(t).call('POST /notes/batch-get', { body: { noteIds } });
  return Object.fromEntries(res.notes.map((n) => [n.noteid, n]));
}

export type TreeNode = RouteAnswer<'GET /study-sets/{id}/tree'>['nodes'][number];

/** Tree nodes of a set by id (GET /study-sets/{id}/tree). */
export async function treeNodes(t: TestBridge | Client, topicid: string): Promise<Record<string, TreeNode>> {
  const res = await agentOf(t).call('GET /study-sets/{id}/tree', { params: { id: topicid } });
  return Object.fromEntries(res.nodes.map((n) => [n.noteid, n]));
}

/** A review deck holding one card per source card (automatic questions); its id and card ids in order. */
export async function newDeck(
  t: TestBridge | Client,
  title: string,
  sourceNoteIds: readonly string[] = [],
): Promise<{ deckId: string; cardNoteIds: string[] }> {
  const c = agentOf(t);
  const deckId = (await c.call('POST /decks', { body: { title, confirm: true } })).deckId;
  if (!sourceNoteIds.length) return { deckId, cardNoteIds: [] };
  const added = await c.call('POST /decks/{id}/cards', {
    params: { id: deckId },
    body: { cards: sourceNoteIds.map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
  });
  return { deckId, cardNoteIds: added.cards.map((x) => x.cardNoteId) };
}

export type UploadAnswer = RouteAnswer<'POST /library/documents/upload'>;

/** A corpus book (../shared/corpus) uploaded by its bytes, confirmed. */
export function uploadBook(
  t: TestBridge | Client,
  name: string,
  query: Record<string, string> = {},
): Promise<UploadAnswer> {
  return agentOf(t).call('POST /library/documents/upload', {
    bytes: readFileSync(corpusFile(name)),
    query: { filename: name, confirm: '1', ...query },
  });
}
