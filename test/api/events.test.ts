import assert from 'node:assert/strict';
import { readEventStream, type ServerSentEvent } from '../../src/client/sseParser';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { rmSync } from 'node:fs';
import { BridgeClient } from '../../src/client/bridgeClient';
import { followEvents } from '../../src/client/eventsApi';
import { createBridge } from '../../src/server/bridge';
import { allRoutes } from '../../src/server/api/routes';
import { tempDir } from '../helpers/bridgeFixture';
import { rawRequest } from '../helpers/rawHttp';

/** One open GET /events stream, read like an agent would (fetch + SSE), its events collected as they arrive. */
class Stream {
  readonly events: ServerSentEvent[] = [];
  readonly comments: string[] = [];
  readonly ended: Promise<'clean' | 'error'>;
  private readonly abort = new AbortController();
  private wake: () => void = () => undefined;
  status = 0;

  constructor(t: TestBridge, token: string, lastEventId?: string) {
    this.ended = (async () => {
      const res = await fetch(`${t.bridge.baseUrl}/events`, {
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'text/event-stream',
          ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
        },
        signal: this.abort.signal,
      });
      this.status = res.status;
      assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
      try {
        await readEventStream(
          res.body!,
          (e) => (this.events.push(e), this.wake()),
          (c) => (this.comments.push(c), this.wake()),
        );
        return 'clean' as const;
      } catch {
        return 'error' as const;
      }
    })();
    this.ended.catch(() => undefined).finally(() => this.wake());
  }

  /** Waits (no timing assertion: the mocha timeout is the limit) until `pred` holds over what arrived. */
  async until<T>(pred: () => T | undefined | false): Promise<T> {
    for (;;) {
      const v = pred();
      if (v) return v;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  opened(): Promise<ServerSentEvent> {
    return this.until(() => this.events.find((e) => e.event === 'open'));
  }

  /** Card ids in the order they first arrived. */
  cardIds(): string[] {
    const ids = this.events
      .filter((e) => e.event === 'card')
      .flatMap((e) => (JSON.parse(e.data) as { ids: string[] }).ids);
    return [...new Set(ids)];
  }

  close(): void {
    this.abort.abort();
  }
}

describe('GET /events (server-sent library changes)', function () {
  this.timeout(30_000);
  let t: TestBridge;
  let topicid: string;
  before(async () => {
    t = await startBridge();
    topicid = (await t.owner.createStudySet('Events')).topicid;
  });
  after(() => t.stop());

  it('a card written by another client arrives as `card` with its id, and its set as `set`; id is the revision', async () => {
    const s = new Stream(t, t.bridge.token);
    const open = await s.opened();
    assert.equal(s.status, 200);
    assert.ok(Number(open.id) > 0 && Number(open.id) <= t.bridge.services.store.revision, `open id ${open.id}`);
    const card = await t.client.cards.create(topicid, { title: 'seen live' });
    const got = await s.until(() =>
      s.events.find((e) => e.event === 'card' && JSON.parse(e.data).ids.includes(card.noteid)),
    );
    const revision = JSON.parse(got.data).revision as number;
    assert.ok(revision > Number(open.id));
    // The revision's last event carries it as `id:` (what a reconnect sends back as Last-Event-ID).
    await s.until(() => s.events.find((e) => e.id === String(revision)));
    await s.until(() => s.events.find((e) => e.event === 'set' && JSON.parse(e.data).ids.includes(topicid)));
    s.close();
  });

  it("a deleted card is named (from the batch's operation-log row); a new deck arrives as `deck`, not `set`", async () => {
    const s = new Stream(t, t.bridge.token);
    await s.opened();
    const card = await t.client.cards.create(topicid, { title: 'short-lived' });
    await t.client.cards.delete([card.noteid]);
    const deck = await t.client.createDeck('Events deck');
    const deckId = deck.deckId;
    await s.until(() => s.events.find((e) => e.event === 'deck' && JSON.parse(e.data).ids.includes(deckId)));
    const cardEvents = s.events.filter((e) => e.event === 'card' && JSON.parse(e.data).ids.includes(card.noteid));
    assert.equal(cardEvents.length, 2, 'created, then deleted');
    assert.ok(
      !s.events.some((e) => e.event === 'set' && JSON.parse(e.data).ids.includes(deckId)),
      'a deck is never a set',
    );
    s.close();
  });

  it('a read-scope agent may subscribe', async () => {
    const reader = await t.bridge.services.tokens.issue('events reader', 'read');
    const s = new Stream(t, reader.token);
    await s.opened();
    assert.equal(s.status, 200);
    s.close();
  });

  it('resuming with Last-Event-ID replays the 3 cards written while disconnected, in order', async () => {
    const first = new Stream(t, t.client.token!);
    const lastId = (await first.opened()).id!;
    first.close();
    await first.ended;
    const written: string[] = [];
    for (const title of ['one', 'two', 'three']) written.push((await t.owner.cards.create(topicid, { title })).noteid);
    const again = new Stream(t, t.client.token!, lastId);
    const open = await again.opened();
    assert.ok(Number(open.id) > Number(lastId) && Number(open.id) <= t.bridge.services.store.revision);
    assert.ok(!again.events.some((e) => e.event === 'reset'));
    assert.deepEqual(
      again.cardIds().filter((id) => written.includes(id)),
      written,
    );
    again.close();
  });

  it('a Last-Event-ID older than the kept changes (or not a revision) gets one `reset`', async () => {
    const small = await startBridge({ limits: { eventRingSize: 2 } });
    try {
      const set = (await small.owner.createStudySet('Ring')).topicid;
      const from = String(small.bridge.services.store.revision);
      for (let i = 0; i < 4; i++) await small.owner.cards.create(set, { title: `card ${i}` });
      const s = new Stream(small, small.bridge.token, from);
      await s.opened();
      assert.deepEqual(
        s.events.map((e) => e.event),
        ['reset', 'open'],
      );
      assert.equal(JSON.parse(s.events[0].data).revision, small.bridge.services.store.revision);
      s.close();
      const bad = new Stream(small, small.bridge.token, 'yesterday');
      await bad.opened();
      assert.deepEqual(
        bad.events.map((e) => e.event),
        ['reset', 'open'],
      );
      bad.close();
      // Resuming inside the ring replays instead.
      const recent = new Stream(small, small.bridge.token, String(small.bridge.services.store.revision - 1));
      await recent.opened();
      assert.ok(!recent.events.some((e) => e.event === 'reset'));
      recent.close();
    } finally {
      await small.stop();
    }
  });

  it('sends a `: ping` heartbeat comment (interval set by the bridge option)', async () => {
    const quick = await startBridge({ limits: { eventHeartbeatMs: 50 } });
    try {
      const s = new Stream(quick, quick.bridge.token);
      await s.until(() => s.comments.includes('ping'));
      s.close();
    } finally {
      await quick.stop();
    }
  });

  it('no token → 401, an Origin → 403, a foreign Host → 403', async () => {
    const port = t.bridge.port;
    const path = '/bridge/v1/events';
    const noToken = await rawRequest(port, { method: 'GET', path, headers: { Host: `127.0.0.1:${port}` } });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.json().error.code, 'UNAUTHORIZED');
    const auth = { Authorization: `Bearer ${t.bridge.token}` };
    const origin = await rawRequest(port, {
      method: 'GET',
      path,
      headers: { Host: `127.0.0.1:${port}`, Origin: 'http://127.0.0.1:8080', ...auth },
    });
    assert.equal(origin.status, 403);
    assert.equal(origin.json().error.code, 'FORBIDDEN_ORIGIN');
    const host = await rawRequest(port, { method: 'GET', path, headers: { Host: `evil.example:${port}`, ...auth } });
    assert.equal(host.status, 403);
  });

  it('bridge.close() ends an open stream cleanly (the stream ends, not the socket torn down) and returns', async () => {
    const own = await startBridge();
    const s = new Stream(own, own.bridge.token);
    await s.opened();
    await own.bridge.close();
    assert.equal(await s.ended, 'clean');
    await own.stop();
  });

  it("followEvents (the extension's feed) gets the events; on a bridge without /events it is refused with 404, so the feed long-polls", async () => {
    const seen: string[] = [];
    const abort = new AbortController();
    const following = followEvents(t.owner, { signal: abort.signal, onEvent: (e) => seen.push(e.event) }).catch(
      (e: Error) => e.name,
    );
    while (!seen.includes('open')) await new Promise((r) => setTimeout(r, 20)); // subscribed before the write
    await t.client.cards.create(topicid, { title: 'followed' });
    while (!seen.includes('card')) await new Promise((r) => setTimeout(r, 20)); // the mocha timeout is the limit
    abort.abort();
    assert.equal(await following, 'AbortError');
    assert.equal(seen[0], 'open');

    const dataDir = tempDir();
    const older = await createBridge(
      { port: 0, dataDir },
      allRoutes.filter((r) => r.path !== '/events'),
    );
    try {
      const client = new BridgeClient({ baseUrl: older.baseUrl, token: older.token });
      const err = await followEvents(client, { signal: new AbortController().signal, onEvent: () => undefined }).then(
        () => undefined,
        (e: { status: number; code: string }) => e,
      );
      assert.equal(err?.status, 404);
      assert.match(String(err?.code), /^(ROUTE_)?NOT_FOUND$/);
    } finally {
      await older.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
