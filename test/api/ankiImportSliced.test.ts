/**
 * A big .apkg import (Basic and reversed: two child cards a note) written in
 * steps with the event loop served between them (child bridge): /status is
 * answered while the import's rows are part-written (a read sees some of its
 * cards, never possible while one synchronous write held the loop), and the
 * longest event-loop delay a probe saw is printed, not asserted. Killed
 * (SIGKILL) while part-written, the restarted bridge has none of it; one
 * answered before the kill is all there.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, type BuildNote } from '../helpers/ankiPackageBuilder';
import { loopProbe } from '../helpers/loopProbe';

const NOTES = 6000;
/** The set's cards once imported: its root, a card a note and a child card a template. */
const SET_CARDS = 1 + NOTES * 3;
const TITLE = 'Sliced import';

function reversedPackage(): Promise<Uint8Array> {
  const notes: BuildNote[] = [];
  for (let i = 0; i < NOTES; i++)
    notes.push({
      guid: `slice${i.toString(36)}`,
      model: 'Basic (and reversed card)',
      fields: [`front <b>${i}</b> of a word`, `back ${i}: its meaning, with an example.`],
      tags: [`Level::${i % 10}`],
      cards: [
        { ord: 0, type: 0, due: i },
        { ord: 1, type: 0, due: i },
      ],
    });
  return buildApkg({
    crt: crtDaysAgo(30),
    models: [BASIC_AND_REVERSED],
    decks: [TITLE],
    notes,
  });
}

/** The imported set's cards (0 while it does not exist). */
async function setCards(client: BridgeClient): Promise<number> {
  const { studySets } = await client.call('GET /library/study-sets', { query: { query: TITLE } });
  return studySets.find((s) => s.title === TITLE)?.noteCount ?? 0;
}

/** Starts the import; `answered` is its status once it answers (undefined while it runs, or when a kill cut it). */
function startImport(bridge: ChildBridge, token: string, apkg: Uint8Array) {
  const state: { answered?: number; body?: any } = {};
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
  const done = client
    .raw('POST', '/decks/import', { bytes: apkg, query: { filename: 'sliced.apkg', confirm: 1 } })
    .then((r) => {
      state.body = r.status === 200 ? r.json<any>() : r.text();
      state.answered = r.status;
    })
    .catch(() => undefined); // the kill cuts the connection
  return { state, done };
}

describe('a big .apkg import is written in steps: the bridge answers while it writes, and a kill leaves none of it (child bridge)', function () {
  this.timeout(600_000);
  let apkg: Uint8Array;
  const dirs: string[] = [];
  before(async () => {
    apkg = await reversedPackage();
  });
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it(`${NOTES} Basic+reversed notes (${NOTES * 2} cards): /status answered while the import's cards are part-written; the loop delay is printed`, async () => {
    const dataDir = tempDir('sb-anki-sliced-');
    const probeDir = tempDir('sb-anki-sliced-probe-');
    dirs.push(dataDir, probeDir);
    const probe = loopProbe(probeDir);
    const bridge = await spawnBridge(['--data', dataDir, '--port', '0'], probe.env);
    try {
      const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
      const client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
      const from = Date.now();
      const { state, done } = startImport(bridge, token, apkg);
      let statusDuring = 0;
      let partSeen = 0;
      let statusWhilePart = 0;
      while (state.answered === undefined) {
        const status = await client.raw('GET', '/status');
        assert.equal(status.status, 200);
        const cards = await setCards(client);
        if (state.answered !== undefined) break;
        statusDuring++;
        if (cards > 0 && cards < SET_CARDS) {
          partSeen = Math.max(partSeen, cards);
          statusWhilePart++;
        }
      }
      await done;
      await new Promise((r) => setTimeout(r, 120)); // the probe's last window
      console.log(
        `      ${NOTES * 2} cards: ${statusDuring} /status answered during the import, ${statusWhilePart} while part-written (up to ${partSeen} of ${SET_CARDS} cards seen); longest loop delay ${probe.delaySince(from).toFixed(0)} ms`,
      );
      assert.equal(state.answered, 200, JSON.stringify(state.body).slice(0, 500));
      assert.equal(state.body.cards, NOTES * 2);
      assert.ok(statusWhilePart > 0, 'the bridge answered /status while the import was writing');
      assert.equal(await setCards(client), SET_CARDS, 'all of it is there once answered');
    } finally {
      bridge.child.kill('SIGTERM');
      await bridge.exited;
    }
  });

  it('killed (SIGKILL) while its cards are part-written, the restarted bridge has none of them', async () => {
    const dataDir = tempDir('sb-anki-sliced-crash-');
    dirs.push(dataDir);
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const client = new BridgeClient({ baseUrl: first.baseUrl, token });
    const { state, done } = startImport(first, token, apkg);
    let seen = 0;
    while (state.answered === undefined && (seen <= 1 || seen === SET_CARDS)) seen = await setCards(client);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await done;

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    try {
      const after = await setCards(new BridgeClient({ baseUrl: second.baseUrl, token }));
      console.log(
        `      import ${state.answered === undefined ? 'unanswered' : `answered ${state.answered}`}, ${seen} cards seen before the kill, ${after} after the restart`,
      );
      if (state.answered === 200) assert.equal(after, SET_CARDS, 'an acknowledged import is all there');
      else {
        assert.ok(seen > 1 && seen < SET_CARDS, `killed while part-written (${seen} cards seen)`);
        assert.equal(after, 0, 'an import cut by the kill left none of its cards');
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
