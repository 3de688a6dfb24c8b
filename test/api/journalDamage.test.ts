// Issue 15, case 1: a damaged journal or a stale redo file must cost only
// the damaged record(s), never the acknowledged writes after them, and must
// be reported (stderr, /status) with the evidence kept.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { readJournal } from '../../src/server/ground/store/journal';
import { encodeRedo, preImageOf } from '../../src/server/ground/store/redoFile';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';

const N = 40;
const title = (i: number) => `card-${String(i).padStart(3, '0')}`;

interface Running {
  child: ChildBridge;
  client: BridgeClient;
}

async function start(dataDir: string): Promise<Running> {
  const child = await spawnBridge(['--data', dataDir, '--port', '0']);
  return {
    child,
    client: new BridgeClient({ baseUrl: child.baseUrl, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() }),
  };
}

async function kill9(r: Running): Promise<void> {
  r.child.child.kill('SIGKILL');
  assert.equal((await r.child.exited).signal, 'SIGKILL');
}

async function stop(r: Running): Promise<void> {
  r.child.child.kill('SIGTERM');
  assert.equal((await r.child.exited).code, 0);
}

async function titles(client: BridgeClient, topicid: string): Promise<string[]> {
  return (await client.cards.tree(topicid)).nodes
    .map((n) => n.title)
    .filter((t) => t.startsWith('card-'))
    .sort();
}

/** A study set with `n` cards, each acknowledged before the next is sent. */
async function addCards(client: BridgeClient, topicid: string, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) await client.cards.create(topicid, { title: title(i) });
}

/** [start, end) of the one journal record that created the card titled `t`. */
function recordOf(journalPath: string, t: string): [number, number] {
  const read = readJournal(journalPath);
  const hits = read.records.flatMap((r, k) => (JSON.stringify(r).includes(t) ? [read.ranges[k]] : []));
  assert.equal(hits.length, 1, `one record creates ${t}`);
  return hits[0];
}

const keptFiles = (dir: string, what: string) => readdirSync(dir).filter((f) => f.includes(`.${what}-`));

describe('journal damage: a bad record in the middle loses only itself (child bridge, kill -9)', function () {
  this.timeout(180_000);

  async function damagedRun(damage: (journal: Buffer, record: [number, number]) => void) {
    const dataDir = tempDir('sb-damage-');
    const first = await start(dataDir);
    const set = await first.client.createStudySet('damage');
    await addCards(first.client, set.topicid, 0, N);
    assert.equal((await first.client.status()).recovery, undefined, 'nothing to report on a fresh library');
    await kill9(first);

    const journalPath = join(dataDir, 'library.journal');
    const victim = title(N / 2);
    const journal = readFileSync(journalPath);
    damage(journal, recordOf(journalPath, victim));
    writeFileSync(journalPath, journal);

    const second = await start(dataDir);
    const expected = Array.from({ length: N }, (_, i) => title(i)).filter((t) => t !== victim);
    assert.deepEqual(
      await titles(second.client, set.topicid),
      expected,
      'every card but the damaged record’s is there',
    );
    const status = await second.client.status();
    assert.equal(status.recovery?.lostRecords, 1);
    const keptAs = status.recovery.keptAs!;
    assert.deepEqual(keptFiles(dataDir, 'damaged'), [keptAs.slice(dataDir.length + 1)]);
    assert.ok(readFileSync(keptAs).equals(journal), 'the damaged journal is kept as it was found');
    assert.equal(statSync(keptAs).mode & 0o777, 0o600);
    assert.match(second.child.stderr(), /recovery: the journal was damaged: 1 acknowledged write\(s\) lost.*kept as /);
    assert.equal(
      (await new BridgeClient({ baseUrl: second.child.baseUrl }).status()).recovery,
      undefined,
      'no file names without a token',
    );

    // New writes follow the intact records; a second crash and start reports nothing new and loses nothing.
    await addCards(second.client, set.topicid, N, 1);
    await kill9(second);
    const third = await start(dataDir);
    assert.deepEqual(await titles(third.client, set.topicid), [...expected, title(N)]);
    assert.equal((await third.client.status()).recovery, undefined);
    assert.doesNotMatch(third.child.stderr(), /recovery/);
    assert.equal(keptFiles(dataDir, 'damaged').length, 1);
    await stop(third);
  }

  it(`one flipped bit in record ~${N / 2} of ${N}: only that card is lost, the journal is kept aside and reported`, async () => {
    await damagedRun((journal, [start, end]) => {
      journal[Math.floor((start + 8 + end) / 2)] ^= 0x04;
    });
  });

  it('a damaged length field (resync on the next record)', async () => {
    await damagedRun((journal, [start]) => {
      journal.writeUInt32LE(journal.readUInt32LE(start) ^ 0x00100000, start);
    });
  });

  it('a complete, checksummed redo file from an older checkpoint is set aside and reported, never applied', async () => {
    const dataDir = tempDir('sb-stale-redo-');
    const dbPath = join(dataDir, 'library.db');
    // Three clean stops: three checkpoints A, B, C of 10 more cards each.
    const images: Buffer[] = [];
    let topicid = '';
    for (let round = 0; round < 3; round++) {
      const r = await start(dataDir);
      topicid ||= (await r.client.createStudySet('stale')).topicid;
      await addCards(r.client, topicid, round * 10, 10);
      await stop(r);
      images.push(readFileSync(dbPath));
    }
    const [a, b] = images;
    // The redo file the A → B checkpoint would have written, found next to C.
    const pageSize = a.readUInt16BE(16);
    const changed: number[] = [];
    for (let i = 0; i < b.length / pageSize; i++)
      if (!a.subarray(i * pageSize, (i + 1) * pageSize).equals(b.subarray(i * pageSize, (i + 1) * pageSize)))
        changed.push(i);
    writeFileSync(`${dbPath}.redo`, encodeRedo(b, pageSize, changed, preImageOf(a, pageSize)));

    const r = await start(dataDir);
    assert.deepEqual(
      await titles(r.client, topicid),
      Array.from({ length: 30 }, (_, i) => title(i)),
      'no acknowledged card is lost',
    );
    const recovery = (await r.client.status()).recovery;
    assert.equal(recovery?.lostRecords, 0);
    assert.ok(recovery.staleRedoKeptAs && existsSync(recovery.staleRedoKeptAs), 'the stale redo file is kept aside');
    assert.ok(!existsSync(`${dbPath}.redo`));
    assert.match(r.child.stderr(), /redo file that does not match library\.db was set aside/);
    await kill9(r);
    const again = await start(dataDir);
    assert.equal((await again.client.status()).recovery, undefined, 'a second start reports nothing new');
    assert.equal((await titles(again.client, topicid)).length, 30);
    await stop(again);
  });
});
