// Hostile single inputs against the headless bridge (child process, RSS from
// /proc): peak RSS over the start per input, against the goal of +300 MB, and
// the time a crafted zstd package takes to be answered while /status is
// probed, and the longest event-loop delay a perf_hooks probe preloaded into
// the child saw meanwhile. Linux only (reads /proc).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { BridgeClient } from '../src/client/bridgeClient';
import { tempDir } from '../test/helpers/bridgeFixture';
import { loopProbe } from '../test/helpers/loopProbe';
import { spawnBridge } from '../test/helpers/childBridge';
import { rssOf, sampleRss, streamUpload } from '../test/helpers/hostileInput';
import { highlightPagesPdf, hugeContentsPdf, manyHighlightsPdf } from '../test/helpers/hostileAnnotations';
import { brokenChainPdf } from '../test/helpers/brokenChainPdf';
import { printTable } from './table';

const MB = 1024 * 1024;

function* chunksOf(buf: Uint8Array, size = 256 * 1024): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield Buffer.from(buf.subarray(i, i + size));
}

/** A zstd frame (8 MiB window) of `blocks` one-byte RLE blocks: 8 MiB of window work per byte of output. */
function tinyBlocksZstd(blocks: number): Buffer {
  const body = Buffer.alloc(blocks * 4);
  for (let i = 0; i < blocks; i++) {
    const h = (1 << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    body.set([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0x61], i * 4);
  }
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3]), body]);
}

async function main() {
  const dataDir = tempDir('sb-bench-hostile-');
  const probe = loopProbe(dataDir);
  const bridge = await spawnBridge(
    ['--data', join(dataDir, 'data'), '--port', '0', '--max-upload-mb', '300', '--ankiconnect-port', '0'],
    probe.env,
  );
  const token = readFileSync(join(dataDir, 'data', 'token'), 'utf8').trim();
  const ankiPort = JSON.parse(readFileSync(join(dataDir, 'data', 'bridge.json'), 'utf8')).ankiConnectPort as number;
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
  const pid = bridge.child.pid!;
  const rows: (string | number)[][] = [];
  /** Runs `fn`, adding a row: its answer, time, RSS before, the peak over it and the longest loop delay. */
  const measure = async (label: string, fn: () => Promise<number>, goal = '+300 MB') => {
    const before = rssOf(pid);
    const rss = sampleRss(pid);
    const t0 = performance.now();
    const from = Date.now();
    const status = await fn();
    const ms = performance.now() - t0;
    const peak = rss.stop();
    await new Promise((r) => setTimeout(r, 120)); // the probe's last window
    const delay = Math.round(probe.delaySince(from));
    rows.push([
      label,
      status,
      Math.round(ms),
      Math.round(before / MB),
      `+${Math.round((peak - before) / MB)}`,
      delay,
      goal,
    ]);
  };
  const upload = async (bytes: Uint8Array, filename: string) =>
    streamUpload(bridge.baseUrl, token, { filename, confirm: '1' }, () => chunksOf(bytes));
  const newSet = async (title: string) =>
    (await client.request<any>('POST', '/library/study-sets', { body: { title, confirm: true } })).topicid as string;
  const importInto = async (bookmd5: string, title: string) =>
    (
      await client.raw('POST', `/documents/${bookmd5}/annotations/import`, {
        body: { topicid: await newSet(title), confirm: true },
      })
    ).status;
  const addNotes = async (n: number) => {
    const notes = Array.from({ length: n }, (_, i) => ({
      deckName: 'Bulk',
      modelName: 'Basic',
      fields: { Front: `front ${i} ${'word '.repeat(20)}`, Back: `back ${i} ${'more text '.repeat(30)}` },
      tags: ['bulk'],
    }));
    const res = await fetch(`http://127.0.0.1:${ankiPort}`, {
      method: 'POST',
      body: JSON.stringify({ action: 'addNotes', version: 6, key: token, params: { notes } }),
    });
    const body = (await res.json()) as { error: string | null };
    return body.error === null ? res.status : 500;
  };
  try {
    await measure('AnkiConnect addNotes: 1,000 notes', () => addNotes(1000), 'loop delay < 250 ms');
    await measure(
      'upload: 200 MB, valid xref, page not where it says',
      async () =>
        (
          await streamUpload(bridge.baseUrl, token, { filename: 'chain.pdf', confirm: '1' }, () =>
            brokenChainPdf(200 * MB),
          )
        ).status,
      '4xx, +300 MB',
    );
    const fiveK = await upload(highlightPagesPdf(10, 500), 'five-thousand.pdf');
    await measure(
      'import: 5,000 highlights over 10 pages (5,000 cards)',
      () => importInto(fiveK.json.bookmd5, 'Five thousand'),
      'loop delay < 250 ms',
    );
    const many = await upload(manyHighlightsPdf(50_000), 'many.pdf');
    await measure('import: a page of 50,000 highlights', () => importInto(many.json.bookmd5, 'Many'));
    const plain = await upload(await hugeContentsPdf(20 * MB, false), 'plain.pdf');
    await measure('import: 20 MB /Contents, plain object', () => importInto(plain.json.bookmd5, 'Plain'));
    const objstm = await hugeContentsPdf(20 * MB, true);
    await measure(
      'upload: 20 MB /Contents in an object stream',
      async () => (await upload(objstm, 'objstm.pdf')).status,
    );
    const apkg = zipSync({ 'collection.anki21b': [tinyBlocksZstd(2000), { level: 0 }], media: strToU8('') });
    await measure(
      'apkg: zstd of 2,000 one-byte blocks, 8 MiB window',
      async () =>
        (await client.raw('POST', '/decks/import', { bytes: apkg, query: { filename: 'z.apkg', confirm: 1 } })).status,
      '4xx, no stall',
    );
  } finally {
    bridge.child.kill('SIGTERM');
    await bridge.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  printTable(['hostile input', 'status', 'ms', 'RSS before MB', 'peak MB', 'loop delay ms', 'goal'], rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
