import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { strToU8, zipSync } from 'fflate';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { loopProbe, type LoopProbe } from '../helpers/loopProbe';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { rssOf, sampleRss } from '../helpers/hostileInput';
import { deflated, entriesOf, writeZip, zeroBomb, zstdRleBomb } from '../helpers/hostileZip';
import { vocabPackage } from './ankiFixture';

const MB = 1024 * 1024;

/**
 * Hostile imports through the child bridge (its RSS from /proc, its event
 * loop watched by a preloaded perf_hooks probe): zips and zstd that lie about
 * their sizes, ZIP64, Markdown built to make a parser quadratic, and a stop
 * asked for while requests run. Each case asserts behaviour: the answer, the
 * bridge answering GET /status meanwhile, memory bounds; delays are printed.
 */

/** GET /status answers (200) within `ms`; false when it does not. */
async function statusAnswers(baseUrl: string, ms = 3000): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/status`, { signal: AbortSignal.timeout(ms) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Runs `hostile` while probing /status; every probe must be answered. */
async function whileProbing<T>(baseUrl: string, hostile: Promise<T>): Promise<{ result: T; probes: number }> {
  let done = false;
  const settled = hostile.finally(() => (done = true));
  let probes = 0;
  const misses: number[] = [];
  await new Promise((r) => setTimeout(r, 20));
  do {
    probes++;
    if (!(await statusAnswers(baseUrl))) misses.push(probes);
    await new Promise((r) => setTimeout(r, 20));
  } while (!done);
  assert.deepEqual(misses, [], `GET /status was not answered while the import ran (probes ${misses.join(', ')})`);
  return { result: await settled, probes };
}

describe('hostile imports: lying zips and zstd, ZIP64, quadratic Markdown, stopping mid-request (child bridge)', function () {
  this.timeout(300_000);
  let dataDir: string;
  let probe: LoopProbe;
  let bridge: ChildBridge;
  let client: BridgeClient;

  const start = async (dir: string) => {
    const b = await spawnBridge(['--data', dir, '--port', '0'], probe.env);
    return { b, c: new BridgeClient({ baseUrl: b.baseUrl, token: readFileSync(join(dir, 'token'), 'utf8').trim() }) };
  };

  before(async () => {
    const root = tempDir('sb-hostile-imports-');
    probe = loopProbe(root);
    dataDir = join(root, 'data');
    ({ b: bridge, c: client } = await start(dataDir));
  });

  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
  });

  /** POSTs `bytes` to /decks/import with /status probed meanwhile; prints time, loop delay and RSS; checks RSS. */
  async function hostileImport(label: string, bytes: Uint8Array, rssBound = 300 * MB) {
    const pid = bridge.child.pid!;
    const before = rssOf(pid);
    const rss = sampleRss(pid);
    const t0 = Date.now();
    const { result: res, probes } = await whileProbing(
      bridge.baseUrl,
      client.raw('POST', '/decks/import', { bytes, query: { filename: 'x.apkg', confirm: 1 } }),
    );
    const ms = Date.now() - t0;
    const peak = rss.stop();
    console.log(
      `      ${label}: ${res.status} in ${ms} ms, ${probes} /status probes answered, longest loop delay ${probe.delaySince(t0)} ms, RSS ${(before / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB`,
    );
    assert.ok(
      peak < before + rssBound,
      `peak RSS ${(peak / MB).toFixed(0)} MB within ${rssBound / MB} MB of ${(before / MB).toFixed(0)} MB`,
    );
    return res;
  }

  const refusedAs = (res: { status: number; json<T>(): T; text(): string }, status: number, code: string) => {
    assert.equal(res.status, status, res.text().slice(0, 300));
    assert.equal(res.json<any>().error.code, code);
  };

  it('a collection entry that declares 1 MiB but inflates to 1 GiB → 413 APKG_TOO_LARGE, stopped at the declared size', async () => {
    const bomb = await zeroBomb(1024 * MB);
    const zip = writeZip([
      { name: 'collection.anki2', packed: bomb, method: 8, size: MB, crc: 0 },
      deflated('media', strToU8('{}')),
    ]);
    const res = await hostileImport('lying collection', zip, 100 * MB);
    refusedAs(res, 413, 'APKG_TOO_LARGE');
    assert.equal(res.json<any>().error.details.limitBytes, MB);
  });

  it('a media entry that declares 1 KiB but inflates to 1 GiB → 413 APKG_TOO_LARGE, nothing imported', async () => {
    const { bytes } = await vocabPackage();
    const bomb = await zeroBomb(1024 * MB);
    // Entry "0" is gato.png, named by the first note.
    const entries = entriesOf(bytes).map((e) =>
      e.name === '0' ? { name: '0', packed: bomb, method: 8 as const, size: 1024, crc: e.crc } : e,
    );
    const res = await hostileImport('lying media', writeZip(entries), 100 * MB);
    refusedAs(res, 413, 'APKG_TOO_LARGE');
    const sets = await client.call('GET /library/study-sets');
    assert.equal(JSON.stringify(sets).includes('Spanish'), false, 'no study set was made');
  });

  it('zstd that declares 1 MiB but decodes to 4 GiB, and zstd asking for a 1 GiB window → 413 APKG_TOO_LARGE, memory flat', async () => {
    const lying = zipSync({
      'collection.anki21b': [zstdRleBomb(32768, { fcs: MB }), { level: 0 }],
      media: strToU8(''),
    });
    refusedAs(await hostileImport('lying zstd', lying, 100 * MB), 413, 'APKG_TOO_LARGE');
    const window = zipSync({
      'collection.anki21b': [zstdRleBomb(64, { windowLog: 30 }), { level: 0 }],
      media: strToU8(''),
    });
    refusedAs(await hostileImport('1 GiB zstd window', window, 100 * MB), 413, 'APKG_TOO_LARGE');
  });

  it('a ZIP64 package (sizes, offsets and count in ZIP64 records) imports like the classic one', async () => {
    const { bytes } = await vocabPackage();
    const res = await client.raw('POST', '/decks/import', {
      bytes: writeZip(entriesOf(bytes), { zip64: true }),
      query: { filename: 'vocab64.apkg', confirm: 1 },
    });
    assert.equal(res.status, 200, res.text().slice(0, 300));
    const out = res.json<any>();
    assert.ok(
      out.notes > 0 || out.created?.notes > 0 || JSON.stringify(out).includes('Spanish'),
      res.text().slice(0, 300),
    );
  });

  /** 800 KB of `[` then `](`: quadratic in a link-label scan that retries from every `[`. */
  const brackets = () => '# Brackets\n\n' + '['.repeat(400 * 1024) + ']('.repeat(200 * 1024);

  it('800 KB of [ and ]( as a Markdown outline: imported, its dry run by a read token too, /status answered meanwhile', async () => {
    const content = brackets();
    const t0 = Date.now();
    const { result: res } = await whileProbing(
      bridge.baseUrl,
      client.raw('POST', '/library/study-sets/import', { body: { format: 'md', content, confirm: true } }),
    );
    console.log(
      `      brackets import: ${res.status} in ${Date.now() - t0} ms, longest loop delay ${probe.delaySince(t0)} ms`,
    );
    assert.ok(res.status === 200 || res.status === 413, res.text().slice(0, 300));
    const reader = await client.tokens.create('hostile reader', 'read');
    const asReader = new BridgeClient({ baseUrl: bridge.baseUrl, token: reader.token });
    const t1 = Date.now();
    const { result: dry } = await whileProbing(
      bridge.baseUrl,
      asReader.raw('POST', '/library/study-sets/import', { body: { format: 'md', content } }),
    );
    console.log(
      `      brackets dry run (read token): ${dry.status} in ${Date.now() - t1} ms, longest loop delay ${probe.delaySince(t1)} ms`,
    );
    assert.ok(dry.status === 422 || dry.status === 413 || dry.status === 403, dry.text().slice(0, 300));
  });

  it('SIGTERM while an upload hangs and a Markdown import runs: the bridge exits (code 0)', async () => {
    const root = tempDir('sb-hostile-stop-');
    const { b, c } = await start(root);
    const { port } = new URL(b.baseUrl);
    const token = readFileSync(join(root, 'token'), 'utf8').trim();
    // An upload whose body never ends: a request that would run until the client gives up.
    const hanging = request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/bridge/v1/library/documents/upload?filename=slow.pdf&confirm=1',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/pdf',
        'Content-Length': String(50 * MB),
      },
    });
    hanging.on('error', () => undefined);
    hanging.write(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MB, 0x20)]));
    const importing = c
      .raw('POST', '/library/study-sets/import', { body: { format: 'md', content: brackets(), confirm: true } })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    b.child.kill('SIGTERM');
    const exit = await Promise.race([b.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 10_000))]);
    console.log(`      SIGTERM → exit in ${Date.now() - t0} ms`);
    if (exit === 'running') b.child.kill('SIGKILL');
    hanging.destroy();
    await importing;
    assert.notEqual(exit, 'running', 'the bridge exits after SIGTERM while requests run');
    assert.equal((exit as { code: number | null }).code, 0);
  });
});
