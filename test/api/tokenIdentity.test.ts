import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BridgeClient } from '../../src/client/bridgeClient';
import { Store } from '../../src/server/ground/store/store';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile } from '../unit/pdfCorpus';
import { card, newSet } from './noteEditsFixture';

/** Every file under `dir`, recursively, as bytes. */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

describe('identity is the token: owner, write agent, read agent, revoked, forged actor (issue 18)', function () {
  this.timeout(120_000);
  const dataDir = tempDir('sb-identity-');
  let t: TestBridge;
  let writer: { tokenId: string; token: string };
  let reader: { tokenId: string; token: string };
  let writeAgent: BridgeClient;
  let readAgent: BridgeClient;
  const store = () => t.bridge.services.store;
  const lastOp = () =>
    store().get<{ kind: string; actor: string; token_id: string | null }>(
      'SELECT kind, actor, token_id FROM operations ORDER BY op_seq DESC LIMIT 1',
    )!;
  const errorOf = (res: { json: <T>() => T }) => res.json<any>().error;

  before(async () => {
    t = await startBridge({ dataDir });
    writer = await t.owner.tokens.create('Claude Code', 'write');
    reader = await t.owner.tokens.create('Read-only helper', 'read');
    writeAgent = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: writer.token });
    readAgent = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: reader.token });
  });
  after(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the owner lists the agent tokens by name and scope, never a secret', async () => {
    const res = await t.owner.raw('GET', '/tokens');
    assert.equal(res.status, 200);
    const tokens = res.json<any>().tokens as any[];
    assert.deepEqual(
      tokens.map((x) => [x.name, x.scope]),
      [
        ['test agent', 'write'],
        ['Claude Code', 'write'],
        ['Read-only helper', 'read'],
      ],
    );
    for (const x of tokens) {
      assert.deepEqual(Object.keys(x).sort(), ['createdAt', 'lastUsedAt', 'name', 'scope', 'tokenId']);
      assert.match(x.tokenId, /^tok_[0-9a-f]{16}$/);
    }
    for (const secret of [writer.token, reader.token, t.bridge.token]) assert.ok(!res.text().includes(secret));
    assert.match(writer.token, /^sbt0\./);
  });

  it('POST /tokens needs confirm and a name; the answer holds the secret once', async () => {
    const before = storeDigest(store());
    const unconfirmed = await t.owner.raw('POST', '/tokens', { body: { name: 'x', scope: 'read' } });
    assert.equal(unconfirmed.status, 422);
    assert.equal(errorOf(unconfirmed).code, 'CONFIRM_REQUIRED');
    const nameless = await t.owner.raw('POST', '/tokens', { body: { name: '  ', confirm: true } });
    assert.equal(nameless.status, 422);
    assert.equal(errorOf(nameless).code, 'INVALID_INPUT');
    const badScope = await t.owner.raw('POST', '/tokens', { body: { name: 'x', scope: 'owner', confirm: true } });
    assert.equal(badScope.status, 422, 'an agent token is never an owner');
    assert.equal(storeDigest(store()), before);
  });

  it('the write agent writes, and the operation log names its token, not the person', async () => {
    const set = await writeAgent.createStudySet('Agent set');
    const res = await writeAgent.call('POST /study-sets/{id}/notes', {
      params: { id: set.topicid },
      body: { parentNoteId: set.rootNoteId!, title: 'By the agent', confirm: true },
    });
    assert.equal(res.persisted, true);
    assert.deepEqual({ ...lastOp() }, { kind: 'create', actor: 'agent', token_id: writer.tokenId });
    const listed = (await t.owner.tokens.list()).find((x) => x.tokenId === writer.tokenId)!;
    assert.ok(listed.lastUsedAt && Date.parse(listed.lastUsedAt) > Date.now() - 60_000, 'last use is now');
  });

  it("a write agent's grade is logged as that agent's (review log and operation log); a read agent's grade is refused", async () => {
    const set = await writeAgent.createStudySet('Deck source');
    const noteid = await card(writeAgent, set.topicid, { title: 'Q1', text: 'A1' });
    const deckId = (await writeAgent.createDeck('Agent deck')).deckId;
    const added = await writeAgent.call('POST /decks/{id}/cards', {
      params: { id: deckId },
      body: { cards: [{ sourceNoteId: noteid }], confirm: true },
    });
    const cardNoteId = added.cards[0].cardNoteId;
    const before = storeDigest(store());
    const refused = await readAgent.raw('POST', `/decks/${deckId}/reviews`, {
      body: { cardNoteId, rating: 'good', confirm: true },
    });
    assert.equal(errorOf(refused).code, 'SCOPE_REQUIRED');
    assert.equal(storeDigest(store()), before);
    await writeAgent.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId, rating: 'good', confirm: true },
    });
    const log = store().get<{ actor: string; token_id: string }>(
      'SELECT actor, token_id FROM review_logs WHERE card_note_id = ?',
      [cardNoteId],
    );
    assert.deepEqual({ ...log }, { actor: 'agent', token_id: writer.tokenId });
    assert.deepEqual({ ...lastOp() }, { kind: 'review', actor: 'agent', token_id: writer.tokenId });
    const listed = (await t.owner.call('GET /decks/{id}/reviews', { params: { id: deckId } })).reviews;
    assert.deepEqual(
      listed.map((r) => [r.actor, r.tokenId]),
      [['agent', writer.tokenId]],
    );
  });

  it("the owner's writes are the person's", async () => {
    const set = await t.owner.createStudySet('Person set');
    await t.owner.call('POST /study-sets/{id}/notes', {
      params: { id: set.topicid },
      body: { parentNoteId: set.rootNoteId!, title: 'By the person', confirm: true },
    });
    assert.deepEqual({ ...lastOp() }, { kind: 'create', actor: 'user', token_id: null });
  });

  it('the read agent reads (GET, search, batch-get, check-like POSTs) and dry-runs; a confirmed write is 403 SCOPE_REQUIRED and changes nothing', async () => {
    const s = await newSet(t, 'Read scope');
    const a = await card(t, s.topicid, { title: 'Alpha card', text: 'Alpha body' });
    assert.ok((await readAgent.listStudySets()).some((x) => x.topicid === s.topicid));
    assert.equal((await readAgent.raw('GET', `/study-sets/${s.topicid}/tree`)).status, 200);
    assert.equal((await readAgent.raw('GET', '/search', { query: { q: 'Alpha' } })).status, 200);
    const got = await readAgent.raw('POST', '/notes/batch-get', { body: { noteIds: [a] } });
    assert.equal(got.status, 200);
    assert.equal(got.json<any>().notes[0].title, 'Alpha card');

    const before = storeDigest(store());
    const dry = await readAgent.raw('POST', '/notes/delete', { body: { noteIds: [a] } });
    assert.equal(dry.status, 422, dry.text());
    assert.equal(errorOf(dry).code, 'CONFIRM_REQUIRED');
    assert.equal(errorOf(dry).details.dryRun, true, 'the dry-run answers what it would do');
    for (const [path, body] of [
      ['/notes/delete', { noteIds: [a], confirm: true }],
      [`/notes/${a}/title`, { text: 'Renamed', expectedPrefix: 'Alpha card', confirm: true }],
      ['/library/study-sets', { title: 'Nope', confirm: true }],
      [`/study-sets/${s.topicid}/snapshots`, {}],
    ] as const) {
      const res = await readAgent.raw('POST', path, { body });
      assert.equal(res.status, 403, `${path}: ${res.text()}`);
      const e = errorOf(res);
      assert.equal(e.code, 'SCOPE_REQUIRED');
      assert.equal(e.details.scopeRequired, 'write');
      assert.equal(e.details.scope, 'read');
      assert.match(e.message, /Read-only helper/);
    }
    assert.equal(storeDigest(store()), before);
  });

  it('a read agent uploading a corpus book with confirm → 403 SCOPE_REQUIRED before a byte is kept; nothing changed', async () => {
    const bytes = readFileSync(corpusFile('4ti2_manual.pdf'));
    const before = storeDigest(store());
    const libraryBefore = filesUnder(join(dataDir, 'library')).map((f) => f.path);
    const res = await readAgent.raw('POST', '/library/documents/upload', {
      bytes,
      query: { filename: '4ti2_manual.pdf', confirm: 1 },
    });
    assert.equal(res.status, 403, res.text());
    assert.equal(errorOf(res).code, 'SCOPE_REQUIRED');
    assert.equal(errorOf(res).details.scopeRequired, 'write');
    assert.equal(storeDigest(store()), before);
    assert.deepEqual(
      filesUnder(join(dataDir, 'library')).map((f) => f.path),
      libraryBefore,
    );
  });

  it('an agent calling /tokens (list, make, revoke) or making codes → 403 SCOPE_REQUIRED (owner), nothing changed', async () => {
    const before = storeDigest(store());
    for (const agent of [writeAgent, readAgent]) {
      for (const [method, path, body] of [
        ['GET', '/tokens', undefined],
        ['POST', '/tokens', { name: 'escalate', scope: 'write', confirm: true }],
        ['POST', `/tokens/${writer.tokenId}/revoke`, { confirm: true }],
        ['POST', '/install/code', { kind: 'install' }],
      ] as const) {
        const res = await agent.raw(method, path, { body });
        assert.equal(res.status, 403, `${method} ${path}: ${res.text()}`);
        assert.equal(errorOf(res).code, 'SCOPE_REQUIRED');
        assert.equal(errorOf(res).details.scopeRequired, 'owner');
      }
    }
    assert.equal(storeDigest(store()), before);
    assert.equal((await t.owner.tokens.list()).length, 3);
  });

  it("a forged X-Study-Bridge-Actor: user from an agent token is ignored: the edit is the agent's, and restore still protects the person's edits", async () => {
    const s = await newSet(t, 'Forgery');
    const a = await card(t, s.topicid, { title: 'Original title' });
    const snap = await writeAgent.call('POST /study-sets/{id}/snapshots', {
      params: { id: s.topicid },
      body: { description: 'before the person edits' },
    });
    // The person edits the card in VS Code (owner token).
    await t.owner.call('POST /notes/{id}/title', {
      params: { id: a },
      body: { text: "The person's title", expectedPrefix: 'Original title', confirm: true },
    });
    assert.deepEqual({ ...lastOp() }, { kind: 'title', actor: 'user', token_id: null });

    const forged = { 'X-Study-Bridge-Actor': 'user' };
    // An agent's edit claiming to be the person is logged as the agent.
    const other = await card(t, s.topicid, { title: 'Agent card' });
    await writeAgent.call('POST /notes/{id}/title', {
      params: { id: other },
      body: { text: 'Agent renamed', expectedPrefix: 'Agent card', confirm: true },
      headers: forged,
    });
    assert.deepEqual({ ...lastOp() }, { kind: 'title', actor: 'agent', token_id: writer.tokenId });

    // Restore with the forged header: the person's newer title is protected.
    const before = storeDigest(store());
    const res = await writeAgent.raw('POST', `/snapshots/${snap.snapshotId}/restore`, {
      body: { confirm: true },
      headers: forged,
    });
    assert.equal(res.status, 409, res.text());
    assert.equal(errorOf(res).code, 'USER_EDITS_PRESENT');
    assert.deepEqual(
      errorOf(res).details.changedNodes.map((n: any) => n.noteid),
      [a],
    );
    assert.equal(storeDigest(store()), before);
    const title = (await t.owner.call('POST /notes/batch-get', { body: { noteIds: [a] } })).notes[0].title;
    assert.equal(title, "The person's title");
  });

  it("MCP study_call runs with the caller's token: a read agent is refused a write (SCOPE_REQUIRED), its reads work", async () => {
    const mcp = new Client({ name: 'read-agent', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${reader.token}` } },
      }),
    );
    try {
      const before = storeDigest(store());
      const write = (await mcp.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'Via MCP', confirm: true } },
      })) as any;
      assert.equal(write.isError, true);
      assert.equal(JSON.parse(write.content[0].text).error.code, 'SCOPE_REQUIRED');
      assert.equal(storeDigest(store()), before);
      const read = (await mcp.callTool({
        name: 'study_call',
        arguments: { method: 'GET', path: '/library/study-sets' },
      })) as any;
      assert.equal(read.isError, false);
      assert.ok(Array.isArray(JSON.parse(read.content[0].text).studySets));
    } finally {
      await mcp.close();
    }
  });

  it('revoke ends a token at once: its next request is 401, the list drops it, nothing else changes', async () => {
    const doomed = await t.owner.tokens.create('Short-lived', 'write');
    const agent = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: doomed.token });
    assert.equal((await agent.raw('GET', '/library/study-sets')).status, 200);
    const unconfirmed = await t.owner.raw('POST', `/tokens/${doomed.tokenId}/revoke`, { body: {} });
    assert.equal(errorOf(unconfirmed).code, 'CONFIRM_REQUIRED');
    const revoked = await t.owner.tokens.revoke(doomed.tokenId);
    assert.equal(revoked.revoked.name, 'Short-lived');
    const before = storeDigest(store());
    for (const [method, path] of [
      ['GET', '/library/study-sets'],
      ['POST', '/library/study-sets'],
    ] as const) {
      const res = await agent.raw(method, path, {
        body: method === 'POST' ? { title: 'After revoke', confirm: true } : undefined,
      });
      assert.equal(res.status, 401);
      assert.equal(errorOf(res).code, 'UNAUTHORIZED');
    }
    assert.equal((await agent.status()).authorized, false);
    assert.equal(storeDigest(store()), before);
    assert.ok(!(await t.owner.tokens.list()).some((x) => x.tokenId === doomed.tokenId));
    const again = await t.owner.raw('POST', `/tokens/${doomed.tokenId}/revoke`, { body: { confirm: true } });
    assert.equal(again.status, 404);
    assert.equal(errorOf(again).code, 'TOKEN_NOT_FOUND');
  });

  it('restart keeps the tokens, their scopes and last use; no file of the data dir holds an agent secret', async () => {
    const ids = (await t.owner.tokens.list()).map((x) => [x.tokenId, x.name, x.scope, x.lastUsedAt]);
    const owner = t.bridge.token;
    await t.bridge.close();
    const secrets = [writer.token, reader.token];
    for (const f of filesUnder(dataDir)) {
      for (const secret of secrets) {
        assert.ok(!f.bytes.includes(secret), `${f.path} holds an agent token`);
        assert.ok(!f.bytes.includes(secret.slice(5)), `${f.path} holds an agent token's random part`);
        // Nor a bare hash of it: only HMACs keyed by the secret file.
        assert.ok(!f.bytes.includes(createHash('sha256').update(secret).digest('hex')), `${f.path} holds a bare hash`);
      }
    }
    assert.equal(readFileSync(join(dataDir, 'token'), 'utf8').trim(), owner, 'the token file is the owner token alone');
    assert.equal(statSync(join(dataDir, 'token')).mode & 0o777, 0o600);

    t = await startBridge({ dataDir });
    assert.equal(t.bridge.token, owner, 'the owner token survives restarts');
    const after = (await t.owner.tokens.list()).filter(
      (x) => x.name !== 'test agent' || ids.some((i) => i[0] === x.tokenId),
    );
    assert.deepEqual(
      after.map((x) => [x.tokenId, x.name, x.scope, x.lastUsedAt]),
      ids,
      'same tokens; last uses were written at close',
    );
    assert.equal(
      (await new BridgeClient({ baseUrl: t.bridge.baseUrl, token: writer.token }).status()).authorized,
      true,
    );
    const stillRead = await new BridgeClient({ baseUrl: t.bridge.baseUrl, token: reader.token }).raw(
      'POST',
      '/library/study-sets',
      { body: { title: 'x', confirm: true } },
    );
    assert.equal(errorOf(stillRead).code, 'SCOPE_REQUIRED');
  });
});

describe('data dirs from before issue 18 keep working', function () {
  this.timeout(120_000);

  it('the token file\'s token (handed out by install) becomes a write token named "installed agent"; a paired token still works and is rekeyed; the owner gets a new token', async () => {
    const dataDir = tempDir('sb-identity-old-');
    try {
      let t = await startBridge({ dataDir });
      await t.stop();
      // Made as an older build left it: no token scheme, the shared token in the file, a paired token as a bare hash.
      const handedOut = 'sbt0.' + 'A'.repeat(43);
      const paired = 'sbt0.' + 'B'.repeat(43);
      const pairedHash = createHash('sha256').update(paired).digest('hex');
      const old = await Store.open(dataDir);
      await old.write((tx) => {
        tx.run(`DELETE FROM meta WHERE key = 'token_scheme'`);
        tx.run('DELETE FROM agent_tokens');
        tx.run(
          `INSERT INTO agent_tokens(token_id, legacy_sha256, name, scope, created_at) VALUES (?, ?, 'Laptop', 'write', '2025-01-01T00:00:00.000Z')`,
          [`tok_${pairedHash.slice(0, 16)}`, pairedHash],
        );
      });
      await old.close();
      writeFileSync(join(dataDir, 'token'), handedOut + '\n', { mode: 0o600 });

      t = await startBridge({ dataDir });
      assert.notEqual(t.bridge.token, handedOut, 'the owner has a token nobody else holds');
      assert.equal(readFileSync(join(dataDir, 'token'), 'utf8').trim(), t.bridge.token);
      const listed = (await t.owner.tokens.list()).map((x) => [x.name, x.scope]);
      assert.deepEqual(listed.filter(([n]) => n !== 'test agent').sort(), [
        ['Laptop', 'write'],
        ['installed agent', 'write'],
      ]);

      const idOf = async (name: string) => (await t.owner.tokens.list()).find((x) => x.name === name)!.tokenId;
      for (const [token, name] of [
        [handedOut, 'installed agent'],
        [paired, 'Laptop'],
      ]) {
        const agent = new BridgeClient({ baseUrl: t.bridge.baseUrl, token });
        const set = await agent.createStudySet(`Made by ${name}`);
        await agent.call('POST /study-sets/{id}/notes', {
          params: { id: set.topicid },
          body: { parentNoteId: set.rootNoteId!, title: 'A card', confirm: true },
        });
        const op = t.bridge.services.store.get<{ actor: string; token_id: string }>(
          'SELECT actor, token_id FROM operations ORDER BY op_seq DESC LIMIT 1',
        );
        assert.deepEqual({ ...op }, { actor: 'agent', token_id: await idOf(name) });
        const owner = await agent.raw('GET', '/tokens');
        assert.equal(owner.status, 403, 'the old shared token is no longer the owner');
      }
      await t.stop();
      // The paired token's bare hash is gone once it was used.
      for (const f of filesUnder(dataDir))
        assert.ok(!f.bytes.includes(pairedHash), `${f.path} still holds the bare hash`);
      t = await startBridge({ dataDir });
      assert.equal((await new BridgeClient({ baseUrl: t.bridge.baseUrl, token: paired }).status()).authorized, true);
      await t.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
