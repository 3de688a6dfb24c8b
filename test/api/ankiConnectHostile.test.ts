import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';

/**
 * A hostile local client on the AnkiConnect port (child bridge, port 0): a
 * search whose wildcards a backtracking matcher would try every split of,
 * queries and numbers past any sense, files past the size limit or not what
 * their name says, names past the title limit, text the store cannot hold,
 * a foreign page's preflight. Each is answered in AnkiConnect's shape with a
 * clear error, nothing is stored, and the bridge keeps answering meanwhile.
 */

const PAGE = 'chrome-extension://hostilesuiteorigin';
const MiB = 1024 * 1024;
/** A request that declares `bytes` of body and sends the first KiB: the answer comes before the rest would be read. */
function declaredOverAt(port: number, bytes: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Length': String(bytes) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Answer['json'] });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.write(`{"action":"storeMediaFile","version":6,"params":{"filename":"huge.png","data":"${'A'.repeat(1024)}`);
  });
}

/**
 * A POST on a connection of its own. (fetch, after two calls on its pooled
 * connections, gets EPIPE sending a body of tens of MB to this port, on the
 * code before these limits too: a transport matter, not what is tested here.)
 */
function postFresh(port: number, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 1)]);

interface Answer {
  status: number;
  json: { result: any; error: string | null };
}

describe('AnkiConnect port under a hostile client: bounded time, size and text (child bridge)', function () {
  this.timeout(90_000);
  let child: ChildBridge;
  let owner: BridgeClient;
  let port: number;
  let key: string;

  const invoke = async (action: string, params: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ action, version: 6, key, params }),
    });
    return { status: res.status, json: (await res.json()) as Answer['json'] };
  };
  const refused = (a: Answer, message: RegExp, status = 200) => {
    assert.equal(a.status, status, JSON.stringify(a.json));
    assert.deepEqual(Object.keys(a.json).sort(), ['error', 'result']);
    assert.equal(a.json.result, null);
    assert.match(String(a.json.error), message);
    assert.doesNotMatch(String(a.json.error), /internal error/);
  };
  /** Runs `work` and asks GET /status on the main port while it runs: both must answer. */
  const whileAlive = async <T>(work: Promise<T>): Promise<T> => {
    const status = await owner.raw('GET', '/status');
    assert.equal(status.status, 200, 'the bridge answers /status while the hostile request runs');
    return work;
  };
  const addBasic = async (deckName: string, front: string, back = '') => {
    const a = await invoke('addNote', { note: { deckName, modelName: 'Basic', fields: { Front: front, Back: back } } });
    assert.equal(a.json.error, null);
    return a.json.result as number;
  };
  const declaredOver = (bytes: number) => declaredOverAt(port, bytes);
  const deckNames = async () => (await invoke('deckNames', {})).json.result as string[];

  let fits: number;
  before(async () => {
    const dataDir = tempDir('sb-anki-hostile-');
    child = await spawnBridge([
      ...['--data', dataDir, '--port', '0', '--ankiconnect-port', '0'],
      ...['--ankiconnect-allowed-origins', PAGE],
    ]);
    key = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    owner = new BridgeClient({ baseUrl: child.baseUrl, token: key });
    port = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')).ankiConnectPort;
    await addBasic('Hostile', 'a'.repeat(60));
    await addBasic('Hostile', 'a'.repeat(500));
    await addBasic('Hostile', 'a long back', 'a'.repeat(8000));
    fits = await addBasic('Hostile', `${'a'.repeat(40)}b`);
  });
  after(async () => {
    child?.child.kill('SIGKILL');
    await child?.exited;
  });

  it('findNotes with Front:*a*a*…*b (68 characters) answers, with the one note that fits, and /status answers meanwhile', async () => {
    const query = `Front:${'*a'.repeat(30)}*b`;
    assert.equal(query.length, 68);
    const found = await whileAlive(invoke('findNotes', { query }));
    assert.deepEqual(found.json, { result: [fits], error: null });
    const cards = await whileAlive(invoke('findCards', { query }));
    assert.equal(cards.json.error, null);
    assert.equal(cards.json.result.length, 1);
  });

  it('an 8,000-character field searched with Back:*a*a*b, and a 500-character one with four wildcards, answer (no match)', async () => {
    assert.deepEqual((await whileAlive(invoke('findNotes', { query: 'Back:*a*a*b' }))).json, {
      result: [],
      error: null,
    });
    assert.deepEqual((await whileAlive(invoke('findNotes', { query: 'Front:*a*a*a*c' }))).json, {
      result: [],
      error: null,
    });
    // Plain text is "contains": the same wildcards over every field.
    assert.deepEqual((await whileAlive(invoke('findNotes', { query: `${'a*'.repeat(40)}c` }))).json, {
      result: [],
      error: null,
    });
  });

  it('a 100,000- and a 1,000,000-character query, and 17 terms: refused with the limits of GET /search', async () => {
    for (const length of [100_000, 1_000_000]) {
      refused(await whileAlive(invoke('findNotes', { query: 'a*'.repeat(length / 2) })), /at most 200/);
      refused(await invoke('findCards', { query: 'x'.repeat(length) }), /at most 200/);
    }
    refused(
      await invoke('findNotes', { query: Array.from({ length: 17 }, (_, i) => `t${i}`).join(' ') }),
      /at most 16/,
    );
  });

  it('an id list (nid:) is bounded by its count, not by the 200 characters of a text search', async () => {
    // 2,000 ids (~30,000 characters): scripts select the notes they hold this way.
    const many = [fits, ...Array.from({ length: 1999 }, (_, i) => 1_000_000_000_000 + i)].join(',');
    assert.deepEqual((await whileAlive(invoke('findNotes', { query: `nid:${many}` }))).json, {
      result: [fits],
      error: null,
    });
    const tooMany = Array.from({ length: 10_001 }, (_, i) => i + 1).join(',');
    refused(await invoke('findNotes', { query: `nid:${tooMany}` }), /10001 ids; a search takes at most 10000/);
    // The text beside an id list still counts.
    refused(await invoke('findNotes', { query: `nid:${fits} ${'x'.repeat(200)}` }), /besides its id lists/);
  });

  it('added:99999999999999999999 (and added:0) are refused with the range of added:', async () => {
    refused(await invoke('findNotes', { query: 'added:99999999999999999999' }), /added:.*whole number of days/);
    refused(await invoke('notesInfo', { query: 'added:0' }), /added:.*whole number of days/);
    assert.equal((await invoke('findNotes', { query: 'added:2' })).json.result.length, 4, 'a sane range still finds');
  });

  it('storeMediaFile over 32 MiB decoded is refused, a body over the stated limit is 413; nothing is stored', async () => {
    const big = Buffer.alloc(32 * MiB + 1, 0);
    big.set(PNG);
    const body = JSON.stringify({
      action: 'storeMediaFile',
      version: 6,
      key,
      params: { filename: 'big.png', data: big.toString('base64') },
    });
    refused(await postFresh(port, body), /at most 33554432/);
    const huge = await declaredOver(50 * MiB);
    refused(huge, /PAYLOAD_TOO_LARGE/, 413);
    assert.deepEqual((await invoke('getMediaFilesNames', { pattern: '*' })).json.result, []);
  });

  it('media whose bytes are not what the extension says is refused; a real PNG is stored', async () => {
    refused(
      await invoke('storeMediaFile', { filename: 'zeros.png', data: Buffer.alloc(4096).toString('base64') }),
      /zeros\.png is not a PNG picture/,
    );
    const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
    refused(
      await invoke('storeMediaFile', { filename: 'photo.png', data: jpeg.toString('base64') }),
      /not a PNG picture \(its bytes are a JPEG\)/,
    );
    refused(
      await invoke('storeMediaFile', { filename: 'fake.gif', data: Buffer.from('hello').toString('base64') }),
      /not a GIF picture/,
    );
    assert.deepEqual((await invoke('getMediaFilesNames', { pattern: '*' })).json.result, []);
    assert.deepEqual((await invoke('storeMediaFile', { filename: 'real.png', data: PNG.toString('base64') })).json, {
      result: 'real.png',
      error: null,
    });
  });

  it('a 100,000-character deck name (addNote, createDeck) is refused as a study-set title would be; no deck is made', async () => {
    const before = await deckNames();
    const name = 'D'.repeat(100_000);
    refused(
      await invoke('addNote', { note: { deckName: name, modelName: 'Basic', fields: { Front: 'q', Back: 'a' } } }),
      /deck name .*200/,
    );
    refused(await invoke('createDeck', { deck: name }), /deck name .*200/);
    assert.deepEqual(await deckNames(), before);
  });

  it('NUL and lone surrogates in deck names, fields and tags → UNSTORABLE_TEXT as on REST; tags nested 100,000 deep refused', async () => {
    const before = await deckNames();
    const note = (over: Record<string, unknown>) => ({
      note: { deckName: 'Fine', modelName: 'Basic', fields: { Front: 'q', Back: 'a' }, ...over },
    });
    for (const params of [
      note({ deckName: 'a\u0000b' }),
      note({ deckName: 'bad\ud800deck' }),
      note({ fields: { Front: 'x\udc00', Back: 'a' } }),
      note({ tags: ['ok', 'bad\u0000tag'] }),
    ]) {
      refused(await invoke('addNote', params), /^UNSTORABLE_TEXT: .*(NUL|lone surrogate)/, 422);
    }
    refused(await invoke('addNote', note({ tags: [`${'a::'.repeat(100_000)}a`] })), /tag .*at most 200/);
    refused(await invoke('addNote', note({ fields: { Front: 'q'.repeat(2001), Back: 'a' } })), /at most 2000/);
    assert.deepEqual(await deckNames(), before);
  });

  it("an unlisted origin's preflight is refused as its POST is; a listed origin's preflight is granted", async () => {
    const preflight = (origin: string) =>
      fetch(`http://127.0.0.1:${port}`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
    const foreign = await preflight('https://evil.example');
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    const post = await invoke('deckNames', {}, { Origin: 'https://evil.example' });
    assert.equal(post.status, 403, 'its POST is refused too');
    const listed = await preflight(PAGE);
    assert.equal(listed.status, 204);
    assert.equal(listed.headers.get('access-control-allow-origin'), PAGE);
    assert.match(String(listed.headers.get('access-control-allow-methods')), /POST/);
  });
});
