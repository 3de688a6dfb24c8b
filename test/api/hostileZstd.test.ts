/**
 * Newer Anki packages (collection.anki21b) whose zstd costs the decoder far
 * more than its output: tiny RLE blocks under an 8 MiB window (the largest
 * window the bridge accepts). fzstd moves its window once per block, so
 * 2,000 one-byte blocks cost ~16 GiB of copying for 2 KB of output, all in
 * one call before. Refused before decoding; the bridge answers meanwhile.
 */
import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/** A zstd frame (window 2^windowLog, no declared size) of `blocks` RLE blocks of `size` bytes each. */
function tinyBlocksZstd(blocks: number, windowLog: number, size = 1): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3]);
  const body = Buffer.alloc(blocks * 4);
  for (let i = 0; i < blocks; i++) {
    const h = (size << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    body.set([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0x61], i * 4);
  }
  return Buffer.concat([header, body]);
}

describe('hostile zstd in .apkg: window work bounded by the output (real bridge)', function () {
  this.timeout(120_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());
  /** What an import would add to: the decks and the study sets. */
  const listed = async () => [
    await t.client.request<unknown>('GET', '/decks'),
    await t.client.request<unknown>('GET', '/library/study-sets'),
  ];

  it(`the collection as 2,000 one-byte RLE blocks under an 8 MiB window → 413 APKG_TOO_LARGE, nothing stored, the bridge answers`, async () => {
    const entries: Record<string, [Uint8Array, { level: 0 }]> = {
      'collection.anki21b': [tinyBlocksZstd(2000, 23), { level: 0 }],
      media: [strToU8(''), { level: 0 }],
    };
    const before = await listed();
    const status = t.client.raw('GET', '/status');
    const res = await t.client.raw('POST', '/decks/import', {
      bytes: zipSync(entries),
      query: { filename: 'tiny-blocks.apkg', confirm: 1 },
    });
    assert.equal(res.status, 413, res.text().slice(0, 300));
    const err = res.json<any>().error;
    assert.equal(err.code, 'APKG_TOO_LARGE');
    assert.match(err.message, /more zstd blocks than its size explains/);
    assert.deepEqual(await listed(), before, 'nothing was stored');
    assert.equal((await status).status, 200);
    assert.equal((await t.client.raw('GET', '/status')).status, 200, 'the bridge still answers');
  });
});
