import assert from 'node:assert/strict';
import { HostChannel, type WebviewPort } from '../../src/webviews/channel/hostChannel';
import { PageChannel, type MessageSource } from '../../src/webviews/channel/pageChannel';
import {
  anything,
  ChannelError,
  fields,
  isInt,
  isString,
  type ChannelProtocol,
  type RequestType,
} from '../../src/webviews/channel/protocol';

// The channel's own logic over a fake postMessage pair: each side's posts reach
// the other asynchronously and structured-cloned, as VS Code delivers them.

interface TestProtocol extends ChannelProtocol {
  hostEvents: { state: { n: number }; bytes: ArrayBuffer };
  pageEvents: { clicked: { id: string }; refresh: void };
  hostRequests: { selection: RequestType<void, string | null>; slow: RequestType<{ ms: number }, number> };
  pageRequests: { add: RequestType<{ a: number; b: number }, number>; fail: RequestType<{ how: string }, void> };
}

const guards = {
  clicked: fields({ id: isString }),
  refresh: anything,
  add: fields({ a: isInt, b: isInt }),
  fail: fields({ how: isString }),
};

const tick = () => new Promise((r) => setTimeout(r, 5));

function pair(opts: { timeoutMs?: number } = {}) {
  const toPage = new Set<(e: { data: unknown }) => void>();
  const toHost = new Set<(m: unknown) => void>();
  const sentToPage: unknown[] = [];
  let inflight = 0;
  const deliver = <T>(listeners: Set<(x: T) => void>, x: T) => {
    inflight++;
    setTimeout(() => {
      inflight--;
      listeners.forEach((l) => l(x));
    }, 1);
  };
  /** Waits until nothing is on its way in either direction (however slow the machine). */
  const settle = async () => {
    do await new Promise((r) => setTimeout(r, 2));
    while (inflight > 0);
  };
  const webview: WebviewPort = {
    postMessage: (m: unknown) => {
      sentToPage.push(m);
      deliver(toPage, { data: structuredClone(m) });
      return Promise.resolve(true);
    },
    onDidReceiveMessage: ((listener: (m: unknown) => void) => {
      toHost.add(listener);
      return { dispose: () => toHost.delete(listener) };
    }) as WebviewPort['onDidReceiveMessage'],
  };
  const source: MessageSource = {
    addEventListener: (_t, l) => toPage.add(l),
    removeEventListener: (_t, l) => toPage.delete(l),
  };
  const logs: string[] = [];
  const host = new HostChannel<TestProtocol>(webview, { guards, timeoutMs: opts.timeoutMs, log: (m) => logs.push(m) });
  const newPage = () =>
    new PageChannel<TestProtocol>({ postMessage: (m) => deliver(toHost, structuredClone(m)) }, source);
  /** What a misbehaving page could post, bypassing the page channel. */
  const raw = (m: unknown) => deliver(toHost, m);
  return { host, newPage, sentToPage, logs, raw, settle, listeners: toPage };
}

describe('webview channel (host ↔ page)', () => {
  it('queues what the host sends until the page says ready, then sends it in order and runs onReady', async () => {
    const { host, newPage, sentToPage, settle } = pair();
    const seen: number[] = [];
    let readies = 0;
    host.onReady(() => {
      readies++;
      host.notify('state', { n: 99 });
    });
    host.notify('state', { n: 1 });
    host.notify('state', { n: 2 });
    const page = newPage();
    page.on('state', (s) => seen.push(s.n));
    await settle();
    assert.equal(sentToPage.length, 0, 'nothing is posted before the page is ready');
    assert.equal(host.isReady, false);
    page.ready();
    await settle();
    assert.equal(host.isReady, true);
    assert.equal(readies, 1);
    assert.deepEqual(seen, [1, 2, 99], 'the queue in order, then what onReady sends');
    host.notify('state', { n: 3 });
    await settle();
    assert.deepEqual(seen, [1, 2, 99, 3], 'after ready: sent at once');
  });

  it('carries binary payloads (an ArrayBuffer) and page notifications without payload', async () => {
    const { host, newPage, settle } = pair();
    const page = newPage();
    let got: ArrayBuffer | undefined;
    let refreshed = 0;
    page.on('bytes', (b) => (got = b));
    host.on('refresh', () => refreshed++);
    page.ready();
    host.notify('bytes', new Uint8Array([1, 2, 3]).buffer);
    page.notify('refresh');
    await settle();
    assert.deepEqual([...new Uint8Array(got!)], [1, 2, 3]);
    assert.equal(refreshed, 1);
  });

  it('answers requests by id in both directions, each with its own answer', async () => {
    const { host, newPage } = pair();
    host.handle('add', async ({ a, b }) => {
      await tick();
      return a + b;
    });
    const page = newPage();
    page.handle('selection', () => 'selected text');
    page.ready();
    const [x, y, z] = await Promise.all([
      page.request('add', { a: 1, b: 2 }),
      page.request('add', { a: 40, b: 2 }),
      host.request('selection'),
    ]);
    assert.deepEqual([x, y, z], [3, 42, 'selected text']);
  });

  it('turns a thrown error into an error reply that rejects with its code and message', async () => {
    const { host, newPage } = pair();
    host.handle('fail', ({ how }) => {
      if (how === 'coded') throw new ChannelError('SUBMIT_IN_FLIGHT', 'A submit is already running.');
      if (how === 'foreign') throw Object.assign(new Error('bundle gone'), { code: 'BUNDLE_NOT_FOUND' });
      throw new Error('plain');
    });
    const page = newPage();
    page.ready();
    const outcome = (how: string) =>
      page.request('fail', { how }).then(
        () => 'resolved',
        (e: ChannelError) => `${e.name} ${e.code}: ${e.message}`,
      );
    assert.equal(await outcome('coded'), 'ChannelError SUBMIT_IN_FLIGHT: A submit is already running.');
    assert.equal(await outcome('foreign'), 'ChannelError BUNDLE_NOT_FOUND: bundle gone');
    assert.equal(await outcome('plain'), 'ChannelError ERROR: plain');
  });

  it('refuses malformed page messages (guards) and requests nobody handles; times out unanswered requests', async () => {
    const { host, newPage, logs, raw } = pair({ timeoutMs: 50 });
    const clicks: string[] = [];
    host.on('clicked', (c) => clicks.push(c.id));
    host.handle('add', ({ a, b }) => a + b);
    const page = newPage();
    page.ready();
    raw({ channel: 'event', name: 'clicked', data: { id: 7 } });
    raw({ channel: 'event', name: 'unknown', data: {} });
    raw({ type: 'clicked', id: 'x' }); // not an envelope
    page.notify('clicked', { id: 'n1' });
    const bad = page.request('add', { a: 1, b: 'two' as unknown as number }).catch((e: ChannelError) => e.code);
    const none = page.request('fail', { how: 'x' }).catch((e: ChannelError) => e.code);
    const silent = host.request('slow', { ms: 1 }).catch((e: ChannelError) => e.code);
    assert.equal(await bad, 'BAD_REQUEST');
    assert.equal(await none, 'NO_HANDLER', 'the host has no handler for fail');
    assert.equal(await silent, 'NO_HANDLER', 'the page has no handler for slow');
    page.handle('slow', ({ ms }) => new Promise((r) => setTimeout(() => r(ms), ms)));
    assert.equal(await host.request('slow', { ms: 500 }).catch((e: ChannelError) => e.code), 'TIMEOUT');
    assert.equal(await host.request('slow', { ms: 500 }, { timeoutMs: 2000 }), 500, 'a per-request timeout');
    assert.deepEqual(clicks, ['n1']);
    assert.equal(logs.filter((l) => l.includes('malformed')).length, 3, `${logs.join('; ')}`);
  });

  it('a page that reloads says ready again: its unanswered requests fail, onReady runs again', async () => {
    const { host, newPage, settle } = pair();
    let readies = 0;
    host.onReady(() => readies++);
    const first = newPage();
    first.handle('selection', () => new Promise<string>(() => {})); // never answers
    first.ready();
    await settle();
    const waiting = host.request('selection').catch((e: ChannelError) => e.code);
    await settle();
    first.dispose();
    const second = newPage();
    second.handle('selection', () => 'fresh');
    second.ready();
    assert.equal(await waiting, 'PAGE_RELOADED');
    assert.equal(readies, 2);
    assert.equal(await host.request('selection'), 'fresh');
  });

  it('disposal rejects what waits, drops the queue and stops both ends', async () => {
    const { host, newPage, sentToPage, listeners, settle } = pair();
    const page = newPage();
    const seen: unknown[] = [];
    page.on('state', (s) => seen.push(s));
    page.handle('selection', () => new Promise<string>(() => {}));
    host.notify('state', { n: 1 }); // queued: the page is not ready yet
    const pending = host.request('selection').catch((e: ChannelError) => e.code);
    host.dispose();
    assert.equal(await pending, 'DISPOSED');
    assert.equal(await host.request('selection').catch((e: ChannelError) => e.code), 'DISPOSED');
    page.ready();
    host.notify('state', { n: 2 });
    await settle();
    assert.equal(sentToPage.length, 0, 'the queue was dropped; nothing is sent after disposal');
    assert.deepEqual(seen, []);
    const pageWaits = page.request('add', { a: 1, b: 1 }).catch((e: ChannelError) => e.code);
    page.dispose();
    assert.equal(await pageWaits, 'DISPOSED');
    assert.equal(listeners.size, 0, 'the page stopped listening to the window');
  });
});
