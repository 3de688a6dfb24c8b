/** Shared by the approval API tests. */
import type { BridgeClient } from '../../src/client/bridgeClient';
import type { RouteAnswer } from '../../src/client/routeCalls';
import type { Store } from '../../src/server/ground/store/store';
import { storeDigest } from '../helpers/storeDigest';

/** The store digest without the approvals table: a held, denied or expired call must leave the library itself unchanged. */
export const libraryDigest = (store: Store) =>
  storeDigest(store)
    .split('\n')
    .filter((line) => !line.startsWith('approvals='))
    .join('\n');

/** Polls GET /approvals/{id} until it reaches `state` (no timing assertion: the mocha timeout is the limit). */
export async function untilState(
  client: BridgeClient,
  approvalId: string,
  state: string,
): Promise<RouteAnswer<'GET /approvals/{id}'>> {
  for (;;) {
    const a = await client.call('GET /approvals/{id}', { params: { id: approvalId } });
    if (a.state === state) return a;
    await new Promise((r) => setTimeout(r, 50));
  }
}
