/** Shared by the bundle API tests. */
import assert from 'node:assert/strict';
import type { TestBridge } from '../helpers/bridgeFixture';

/** Polls GET /bundles until the bundle leaves "preparing"; checks the fields shown while it prepares. */
export async function pollPrepared(t: TestBridge, bundleId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    const l = await t.client.request<{ bundles: Record<string, unknown>[] }>('GET', '/bundles');
    const b = l.bundles.find((x) => x.bundleId === bundleId)!;
    if (b.state !== 'preparing') return b;
    assert.ok(b.progress, 'progress while preparing');
    assert.equal(b.version, undefined, 'no version while preparing');
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('prepare did not finish');
}
