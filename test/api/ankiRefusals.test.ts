import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { buildCollection } from '../helpers/ankiPackageBuilder';
import { vocabPackage } from './ankiFixture';

/** The central-directory record of `name` in a zip (fflate writes one per entry). */
function centralRecord(zip: Uint8Array, name: string): number {
  const buf = Buffer.from(zip);
  for (let p = buf.length - 22; p >= 0; p--) {
    if (buf.readUInt32LE(p) === 0x02014b50 && buf.toString('utf8', p + 46, p + 46 + buf.readUInt16LE(p + 28)) === name)
      return p;
  }
  throw new Error(`no ${name}`);
}

/** A copy of `zip` whose entry `name` declares `size` inflated bytes. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = Buffer.from(zip);
  out.writeUInt32LE(size, centralRecord(zip, name) + 24);
  return out;
}

describe('POST /decks/import refusals: 4xx with a clear code, nothing written', () => {
  let t: TestBridge;
  let small: TestBridge;
  before(async () => {
    t = await startBridge();
    small = await startBridge({ limits: { uploadBytes: 2048 } });
  });
  after(async () => {
    await t.stop();
    await small.stop();
  });

  const refused = async (
    b: TestBridge,
    bytes: Uint8Array,
    status: number,
    code: string,
    query: Record<string, string | number> = { filename: 'x.apkg', confirm: 1 },
  ) => {
    const before = storeDigest(b.bridge.services.store);
    const res = await b.client.raw('POST', '/decks/import', { bytes, query });
    assert.equal(res.status, status, res.text().slice(0, 300));
    const err = res.json<any>().error;
    assert.equal(err.code, code);
    assert.match(err.message, /Nothing was stored|Nothing was changed|limit/);
    assert.equal(storeDigest(b.bridge.services.store), before);
    return err;
  };

  it('bytes that are not a zip → 422 APKG_NOT_A_ZIP (with and without confirm)', async () => {
    const pdf = strToU8('%PDF-1.7\n' + 'x'.repeat(2000));
    await refused(t, pdf, 422, 'APKG_NOT_A_ZIP');
    await refused(t, pdf, 422, 'APKG_NOT_A_ZIP', { filename: 'x.apkg' });
  });

  it('a cut-off zip → 422 APKG_DAMAGED', async () => {
    const { bytes } = await vocabPackage();
    await refused(t, bytes.subarray(0, Math.floor(bytes.length / 2)), 422, 'APKG_DAMAGED');
  });

  it('a zip without a collection, or with a collection that is not SQLite → 422 APKG_DAMAGED', async () => {
    await refused(t, zipSync({ 'readme.txt': strToU8('hello') }), 422, 'APKG_DAMAGED');
    await refused(
      t,
      zipSync({ 'collection.anki2': strToU8('not a database at all, '.repeat(100)), media: strToU8('{}') }),
      422,
      'APKG_DAMAGED',
    );
  });

  it('a newer-format collection.anki21b the bridge cannot read (beside the stub) → 422 APKG_FORMAT_UNSUPPORTED naming "Support older Anki versions"', async () => {
    const stub = await buildCollection({
      crt: 0,
      models: [{ name: 'Basic', fields: ['Front', 'Back'] }],
      decks: ['Default'],
      notes: [
        {
          guid: 'stub',
          model: 'Basic',
          fields: ['Please update to the latest Anki version, then import the .colpkg/.apkg file again.', ''],
        },
      ],
    });
    const pkg = zipSync({
      'collection.anki2': stub,
      'collection.anki21b': new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]),
      media: new Uint8Array([0x28, 0xb5, 0x2f, 0xfd]),
    });
    const err = await refused(t, pkg, 422, 'APKG_FORMAT_UNSUPPORTED');
    assert.match(err.message, /Support older Anki versions/);
  });

  it('an entry that declares more than the bridge inflates → 413 APKG_TOO_LARGE, before inflating it', async () => {
    const { bytes } = await vocabPackage();
    await refused(t, declareSize(bytes, 'collection.anki2', 0xfffffff0), 413, 'APKG_TOO_LARGE');
  });

  it('an entry that inflates beyond what it declares (a lying header) → 413 APKG_TOO_LARGE, never inflated past the declared size', async () => {
    const bomb = zipSync({ 'collection.anki2': new Uint8Array(4 * 1024 * 1024), media: strToU8('{}') });
    const err = await refused(t, declareSize(bomb, 'collection.anki2', 1024), 413, 'APKG_TOO_LARGE');
    assert.equal(err.details.limitBytes, 1024);
  });

  it('a package bigger than the upload limit → 413 PAYLOAD_TOO_LARGE', async () => {
    const { bytes } = await vocabPackage();
    assert.ok(bytes.length > 2048);
    await refused(small, bytes, 413, 'PAYLOAD_TOO_LARGE');
    await refused(small, bytes, 413, 'PAYLOAD_TOO_LARGE', { filename: 'x.apkg' });
  });

  it('JSON instead of the bytes → 415 RAW_BODY_REQUIRED; a file name that is not .apkg → 422', async () => {
    const before = storeDigest(t.bridge.services.store);
    const json = await t.client.raw('POST', '/decks/import', {
      body: { path: '/tmp/x.apkg' },
      query: { filename: 'x.apkg', confirm: 1 },
    });
    assert.equal(json.status, 415);
    assert.equal(json.json<any>().error.code, 'RAW_BODY_REQUIRED');
    const { bytes } = await vocabPackage();
    await refused(t, bytes, 422, 'APKG_NOT_A_ZIP', { filename: 'deck.pdf', confirm: 1 });
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
