import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../helpers/bridgeFixture';

const ROOT = resolve(__dirname, '..', '..');
const LOADER = join(ROOT, 'src', 'server', 'ground', 'threads', 'codeCache.ts');
const TSX = require.resolve('tsx/cjs/api');
const mode = (f: string) => statSync(f).mode & 0o777;

/** A module with enough code for V8 to cache, which says where it runs from and requires a builtin. */
function fixture(dir: string, answer: number): string {
  const file = join(dir, 'bundle.js');
  const fns = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${answer}; }`).join('\n');
  writeFileSync(
    file,
    `${fns}\nexports.answer = f1(0);\nexports.dir = __dirname;\nexports.sep = require('node:path').sep;\nexports.self = module.exports === exports;\n`,
  );
  return file;
}

/**
 * Loads `file` through the code cache in a process of its own (V8 keeps what it compiled for the life of an
 * isolate, so a second load in one process would not read the cache file at all), saves, and says what it saw.
 */
function load(
  file: string,
  cacheDir: string,
  opts: { save?: boolean } = {},
): { state: string; exports: Record<string, unknown> } {
  const child = `
    require(${JSON.stringify(TSX)}).register();
    const { requireWithCodeCache } = require(${JSON.stringify(LOADER)});
    const m = requireWithCodeCache(process.argv[1], process.argv[2]);
    if (process.argv[3] === 'save') m.save();
    process.stdout.write(JSON.stringify({ state: m.state, exports: m.exports }));`;
  const r = spawnSync(process.execPath, ['-e', child, file, cacheDir, opts.save === false ? '' : 'save'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { state: string; exports: Record<string, unknown> };
}

describe('requireWithCodeCache: the bridge bundle through V8’s code cache', () => {
  it('makes the cache when saved after the first load, uses it on the next, and the module runs the same either way', () => {
    const dir = tempDir('code-cache-');
    const cacheDir = join(dir, 'cache');
    const file = fixture(dir, 42);
    const exports = { answer: 42, dir, sep: '/', self: true };
    assert.deepEqual(load(file, cacheDir, { save: false }), { state: 'made', exports });
    assert.equal(existsSync(cacheDir), false, 'nothing written without save()');
    assert.deepEqual(load(file, cacheDir), { state: 'made', exports });
    const [cache] = readdirSync(cacheDir);
    assert.match(cache, /^bundle\.js\.[0-9a-f]{16}\.v8$/);
    assert.equal(mode(cacheDir), 0o700, 'the cache folder is private');
    assert.equal(mode(join(cacheDir, cache)), 0o600, 'the cache file is private');
    assert.deepEqual(load(file, cacheDir), { state: 'used', exports });
  });

  it('a damaged cache is refused by V8, the module still runs, and save() writes a good one', () => {
    const dir = tempDir('code-cache-');
    const cacheDir = join(dir, 'cache');
    const file = fixture(dir, 7);
    load(file, cacheDir);
    const cacheFile = join(cacheDir, readdirSync(cacheDir)[0]);
    const bytes = readFileSync(cacheFile);
    for (let i = 0; i < bytes.length; i += 7) bytes[i] ^= 0xff;
    writeFileSync(cacheFile, bytes);
    const damaged = load(file, cacheDir);
    assert.equal(damaged.state, 'rejected');
    assert.equal(damaged.exports.answer, 7);
    assert.equal(load(file, cacheDir).state, 'used');
  });

  it('a new build of the bundle never meets the old cache, and its save removes the old one', () => {
    const dir = tempDir('code-cache-');
    const cacheDir = join(dir, 'cache');
    const file = fixture(dir, 1);
    load(file, cacheDir);
    const old = readdirSync(cacheDir);
    fixture(dir, 2);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const rebuilt = load(file, cacheDir);
    assert.equal(rebuilt.state, 'made');
    assert.equal(rebuilt.exports.answer, 2);
    const now = readdirSync(cacheDir);
    assert.equal(now.length, 1);
    assert.notDeepEqual(now, old);
    assert.equal(load(file, cacheDir).state, 'used');
  });

  it('an unwritable cache folder costs only the cache: the module runs, save() does not throw', () => {
    const dir = tempDir('code-cache-');
    const file = fixture(dir, 3);
    writeFileSync(join(dir, 'blocked'), 'a file where the folder would be');
    const blocked = join(dir, 'blocked', 'cache');
    assert.deepEqual(load(file, blocked).exports.answer, 3);
    assert.equal(load(file, blocked).state, 'made');
  });

  it('the real server bundle (dist/bridgeWorker.js) serves through it, its native canvas included, and a second process uses the cache', function () {
    this.timeout(60_000);
    const bundle = join(ROOT, 'dist', 'bridgeWorker.js');
    if (!existsSync(bundle)) this.skip(); // npm test builds dist/ first
    const dir = tempDir('code-cache-');
    // A card rendered as a PNG loads @napi-rs/canvas, which the bundle once reached by import(): with the cache, Node 20 refused it.
    const child = `
      require(${JSON.stringify(TSX)}).register();
      const { requireWithCodeCache } = require(${JSON.stringify(LOADER)});
      const { BridgeClient } = require(${JSON.stringify(join(ROOT, 'src', 'client', 'bridgeClient.ts'))});
      (async () => {
        const m = requireWithCodeCache(${JSON.stringify(bundle)}, process.argv[1]);
        const bridge = await m.exports.createBridge({ dataDir: process.argv[2], port: 0 });
        const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
        const set = await client.createStudySet('Cached');
        const card = await client.cards.create(set.topicid, { title: 'Entropy never decreases' });
        const res = await fetch(bridge.baseUrl + '/notes/' + card.noteid + '/render', { headers: { authorization: 'Bearer ' + bridge.token } });
        const png = Buffer.from(await res.arrayBuffer()).subarray(1, 4).toString('latin1');
        m.save();
        await bridge.close();
        process.stdout.write(JSON.stringify({ state: m.state, status: res.status, png }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const run = (dataDir: string) => {
      const r = spawnSync(process.execPath, ['-e', child, join(dir, 'cache'), dataDir], {
        encoding: 'utf8',
        timeout: 50_000,
      });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { state: string; status: number };
    };
    assert.deepEqual(run(join(dir, 'data1')), { state: 'made', status: 200, png: 'PNG' });
    assert.deepEqual(run(join(dir, 'data2')), { state: 'used', status: 200, png: 'PNG' });
  });
});
