import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { storeDigest } from '../helpers/storeDigest';

/** AnkiConnect (#19 §2): the headless CLI's --ankiconnect-port, and writes that must be all or nothing. */

async function invoke(
  port: number,
  action: string,
  key: string | undefined,
  params: unknown = {},
  headers: Record<string, string> = {},
) {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ action, version: 6, key, params }),
  });
  return { status: res.status, json: (await res.json()) as { result: any; error: string | null } };
}

describe('AnkiConnect: study-bridge serve --ankiconnect-port, addNotes, concurrent adds', function () {
  this.timeout(60_000);

  it('serve --ankiconnect-port 0 --ankiconnect-allowed-origins: the port in bridge.json and on stdout; a real client adds a note the main API lists', async () => {
    const dataDir = tempDir('sb-anki-cli-');
    const origin = 'chrome-extension://abcdefghijklmnop';
    const a = await spawnBridge([
      '--data',
      dataDir,
      '--port',
      '0',
      '--ankiconnect-port',
      '0',
      '--ankiconnect-allowed-origins',
      origin,
    ]);
    try {
      const info = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8'));
      assert.equal(typeof info.ankiConnectPort, 'number');
      assert.notEqual(info.ankiConnectPort, info.port);
      const owner = BridgeClient.fromDataDir(dataDir);
      const { YankiConnect } = await import('yanki-connect');
      const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
      const client = new YankiConnect({
        host: 'http://127.0.0.1',
        port: info.ankiConnectPort,
        key: token,
        autoLaunch: false,
      });
      assert.equal(await client.miscellaneous.version(), 6);
      assert.match(a.stdout(), new RegExp(`AnkiConnect \\(v6\\) on http://127\\.0\\.0\\.1:${info.ankiConnectPort}\\n`));
      const id = await client.note.addNote({
        note: { deckName: 'CLI deck', modelName: 'Basic', fields: { Front: 'q', Back: 'a' } },
      });
      assert.deepEqual(await client.note.findNotes({ query: 'deck:"CLI deck"' }), [id]);
      const deck = (await owner.call('GET /decks')).decks[0];
      assert.equal(deck.title, 'CLI deck');
      assert.equal((await owner.call('GET /decks/{id}/cards', { params: { id: deck.deckId } })).cards[0].title, 'q');
      assert.equal(
        (await invoke(info.ankiConnectPort, 'version', token, {}, { Origin: origin })).status,
        200,
        'the listed origin',
      );
      assert.equal(
        (await invoke(info.ankiConnectPort, 'version', token, {}, { Origin: 'chrome-extension://other' })).status,
        403,
      );
    } finally {
      a.child.kill('SIGTERM');
      assert.equal((await a.exited).code, 0);
    }
  });

  it('bad flags exit 2 with a message', async () => {
    await assert.rejects(
      spawnBridge(['--data', tempDir('sb-anki-cli-'), '--port', '0', '--ankiconnect-port', 'x']),
      (e: any) => e.code === 2 && /bad --ankiconnect-port x/.test(e.stderr),
    );
    await assert.rejects(
      spawnBridge(['--data', tempDir('sb-anki-cli-'), '--port', '0', '--ankiconnect-allowed-origins', 'a']),
      (e: any) => e.code === 2 && /needs --ankiconnect-port/.test(e.stderr),
    );
  });

  it('a port already taken (Anki itself on it): the library is served anyway, GET /status warns, bridge.json has no ankiConnectPort', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const t = await startBridge({ ankiConnect: { port } });
    try {
      assert.equal(t.bridge.ankiConnectPort, undefined);
      assert.equal(JSON.parse(readFileSync(join(t.dataDir, 'bridge.json'), 'utf8')).ankiConnectPort, undefined);
      const status = await t.owner.status();
      assert.ok(
        status.warnings?.some(
          (w) =>
            typeof w === 'string' &&
            w.includes(`Cannot serve AnkiConnect on 127.0.0.1:${port}`) &&
            w.includes('is Anki itself running there?'),
        ),
        JSON.stringify(status.warnings),
      );
      assert.equal((await t.owner.call('GET /decks')).count, 0, 'the main API serves');
    } finally {
      await t.stop();
      taken.close();
    }
  });

  it('premium off: reads answer, writes are refused (403) and change nothing', async () => {
    const t = await startBridge({ premium: false, ankiConnect: { port: 0 } });
    try {
      const port = t.bridge.ankiConnectPort!;
      const before = storeDigest(t.bridge.services.store);
      assert.deepEqual((await invoke(port, 'deckNames', t.bridge.token)).json, { result: [], error: null });
      const refused = await invoke(port, 'addNote', t.bridge.token, {
        note: { deckName: 'D', modelName: 'Basic', fields: { Front: 'f', Back: 'b' } },
      });
      assert.equal(refused.status, 403);
      assert.match(refused.json.error!, /premium/);
      assert.equal(storeDigest(t.bridge.services.store), before);
    } finally {
      await t.stop();
    }
  });

  it('addNotes is all or nothing (each note’s error listed); concurrent addNote calls into a new deck make one deck and one study set', async () => {
    const t = await startBridge({ ankiConnect: { port: 0 } });
    try {
      const port = t.bridge.ankiConnectPort!;
      const key = t.bridge.token;
      const good = (front: string) => ({ deckName: 'Batch', modelName: 'Basic', fields: { Front: front, Back: 'b' } });
      const before = storeDigest(t.bridge.services.store);
      const refused = await invoke(port, 'addNotes', key, {
        notes: [good('one'), { ...good('two'), modelName: 'Basic (typing)' }, good('')],
      });
      assert.equal(refused.status, 200);
      assert.equal(refused.json.result, null);
      const errors = JSON.parse(refused.json.error!);
      assert.equal(errors[0], null);
      assert.match(errors[1], /model was not found: Basic \(typing\)/);
      assert.equal(errors[2], 'cannot create note because it is empty');
      assert.equal(storeDigest(t.bridge.services.store), before, 'nothing added');
      // The same front twice in one call: the second is a duplicate of the first (Anki adds them one by one); canAddNotes judges each alone.
      assert.deepEqual(
        JSON.parse((await invoke(port, 'addNotes', key, { notes: [good('twin'), good('twin')] })).json.error!),
        [null, 'cannot create note because it is a duplicate'],
      );
      assert.deepEqual((await invoke(port, 'canAddNotes', key, { notes: [good('twin'), good('twin')] })).json.result, [
        true,
        true,
      ]);
      assert.equal(storeDigest(t.bridge.services.store), before, 'still nothing added');

      const added = await invoke(port, 'addNotes', key, { notes: [good('one'), good('two'), good('three')] });
      assert.equal(added.json.error, null);
      assert.equal(added.json.result.length, 3);
      assert.equal(new Set(added.json.result).size, 3);

      const parallel = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          invoke(port, 'addNote', key, { note: { ...good(`p${i}`), deckName: 'Fresh deck' } }),
        ),
      );
      assert.ok(parallel.every((r) => r.json.error === null && typeof r.json.result === 'number'));
      const decks = (await t.owner.call('GET /decks')).decks;
      assert.deepEqual(decks.map((d) => [d.title, d.cardCount]).sort(), [
        ['Batch', 3],
        ['Fresh deck', 8],
      ]);
      const sets = (await t.owner.call('GET /library/study-sets')).studySets;
      assert.deepEqual(
        sets.map((s) => [s.title, s.noteCount]).sort(),
        [
          ['Batch', 4],
          ['Fresh deck', 9],
        ],
        'one set per deck: its root card and the notes',
      );
      const found = await invoke(port, 'findNotes', key, { query: 'deck:"Fresh deck"' });
      assert.equal(found.json.result.length, 8);
    } finally {
      await t.stop();
    }
  });
});
