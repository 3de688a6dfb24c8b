/**
 * An annotation import of 5,000 highlights killed (SIGKILL) while it writes:
 * the write goes in steps with the event loop served between them, so a read
 * may see its cards so far, but after a restart the set holds none of them,
 * never part of an import; an import answered before the kill is all there.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { highlightPagesPdf } from '../helpers/hostileAnnotations';

const CARDS = 5000;

/** The set's cards anchored on a page: the import's. */
async function importedCards(client: BridgeClient, topicid: string): Promise<number> {
  const tree = await client.call('GET /study-sets/{id}/tree', { params: { id: topicid } });
  return tree.nodes.filter((n) => n.page !== null).length;
}

describe('annotation import killed mid-write: after a restart none of it or all of it (child bridge, SIGKILL)', function () {
  this.timeout(300_000);
  const dataDir = tempDir('sb-annot-crash-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('5,000 highlights: killed while its cards are part-written, the restarted bridge has none of them', async () => {
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const client = new BridgeClient({ baseUrl: first.baseUrl, token });
    const up = await client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
      bytes: highlightPagesPdf(10, CARDS / 10),
      query: { filename: 'five-thousand.pdf', confirm: 1 },
    });
    const set = await client.call('POST /library/study-sets', { body: { title: 'Crash import', confirm: true } });
    let answered: number | undefined;
    const importing = client
      .raw('POST', `/documents/${up.bookmd5}/annotations/import`, { body: { topicid: set.topicid, confirm: true } })
      .then((r) => (answered = r.status))
      .catch(() => undefined); // the kill cuts the connection
    let seen = 0;
    while (answered === undefined && (seen === 0 || seen === CARDS)) seen = await importedCards(client, set.topicid);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await importing;

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    try {
      const after = await importedCards(new BridgeClient({ baseUrl: second.baseUrl, token }), set.topicid);
      console.log(
        `      import ${answered === undefined ? 'unanswered' : `answered ${answered}`}, ${seen} cards seen before the kill, ${after} after the restart`,
      );
      if (answered === 200) assert.equal(after, CARDS, 'an acknowledged import is all there');
      else {
        assert.ok(seen > 0 && seen < CARDS, `killed while part-written (${seen} cards seen)`);
        assert.equal(after, 0, 'an import cut by the kill left none of its cards');
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
