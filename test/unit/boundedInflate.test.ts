import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { deflateRawSync, deflateSync, inflateRawSync, inflateSync } from 'node:zlib';
import { boundedInflate } from '../../src/server/ground/pdf/pdfjsThreadFixes';

const MB = 1024 * 1024;

describe('boundedInflate: the Flate streams pdf.js reads, within the stream budget', () => {
  it('a small stream and one past the 8 MB first pass (inflated again in big chunks) come out whole', () => {
    const small = randomFillSync(Buffer.alloc(100_000));
    assert.deepEqual(boundedInflate(inflateSync, deflateSync(small), 64 * MB), small);
    const big = Buffer.alloc(20 * MB, 'BT (page text) Tj ET\n');
    randomFillSync(big, 5 * MB, 1000);
    assert.ok(boundedInflate(inflateRawSync, deflateRawSync(big), 64 * MB).equals(big));
  });

  it('a bomb past the budget ends with ERR_BUFFER_TOO_LARGE (what the worker answers as PDF_TOO_COMPLEX)', () => {
    const bomb = deflateSync(Buffer.alloc(96 * MB, 32));
    assert.ok(bomb.length < MB);
    assert.throws(() => boundedInflate(inflateSync, bomb, 40 * MB), { code: 'ERR_BUFFER_TOO_LARGE' });
    assert.throws(() => boundedInflate(inflateSync, bomb, 4 * MB), { code: 'ERR_BUFFER_TOO_LARGE' });
  });

  it('damaged data throws zlib’s own error, so pdf.js can fall back to its inflater', () => {
    const cut = deflateSync(randomFillSync(Buffer.alloc(50_000)));
    cut[10] ^= 0xff;
    assert.throws(
      () => boundedInflate(inflateSync, cut, 64 * MB),
      (e: { code?: string }) => e.code !== 'ERR_BUFFER_TOO_LARGE',
    );
  });
});
