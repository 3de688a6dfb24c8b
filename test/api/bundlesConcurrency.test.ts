import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { projectRoot } from '../helpers/childBridge';
import { corpusFile } from '../unit/pdfCorpus';
import { upload } from './documentsFixture';
import { pollPrepared } from './bundlesFixture';

const code = (r: { json<T>(): T }) => r.json<{ error: { code: string; details: Record<string, unknown> } }>().error;

describe('bundles: concurrency', function () {
  this.timeout(240_000);
  let t: TestBridge;
  let topicid: string;

  before(async () => {
    t = await startBridge();
    topicid = (await t.client.createStudySet('Concurrency')).topicid;
  });
  after(async () => t.stop());

  it('two prepares at once: one 202, one 429 PREPARE_BUSY with runningJob and retryAfterSeconds', async () => {
    const asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    const body = (start: number) => ({
      topicid,
      bookmd5: asy,
      segments: [{ startPage: start, endPage: start + 19 }],
      async: true,
    });
    const [a, b] = await Promise.all([
      t.client.raw('POST', '/bundles/prepare', { body: body(100) }),
      t.client.raw('POST', '/bundles/prepare', { body: body(150) }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [202, 429]);
    const [ok, busy] = a.status === 202 ? [a, b] : [b, a];
    const e = code(busy);
    assert.equal(e.code, 'PREPARE_BUSY');
    assert.equal((e.details.runningJob as { jobId: string }).jobId, ok.json<{ jobId: string }>().jobId);
    assert.ok((e.details.retryAfterSeconds as number) >= 1);
    assert.ok(busy.headers.get('retry-after'));
    assert.equal(
      (await t.client.request<{ bundles: unknown[] }>('GET', '/bundles')).bundles.length,
      1,
      'the refused prepare left no bundle',
    );
    assert.equal((await pollPrepared(t, ok.json<{ bundleId: string }>().bundleId)).state, 'prepared');
  });

  it('discard during prepare cancels the job (cancelledJob); the next prepare gets 429 until the checkpoint, then 202', async () => {
    // OCR pages read right after upload: the job waits for them, so it is still running when discarded.
    const scan = (await upload(t, 'scanned-4ti2-p5-8.pdf')).bookmd5;
    const prep = await t.client.request<{ bundleId: string; bundlePath: string }>('POST', '/bundles/prepare', {
      body: {
        topicid,
        bookmd5: scan,
        segments: [{ startPage: 1, endPage: 4 }],
        anchorMode: 'block',
        preset: 'source-structure',
        async: true,
      },
    });
    const d = await t.client.request<{ cancelledJob: { jobId: string } | null }>(
      'POST',
      `/bundles/${prep.bundleId}/discard`,
    );
    assert.ok(d.cancelledJob, 'cancelledJob is non-null');
    const next = {
      topicid,
      bookmd5: scan,
      segments: [{ startPage: 1, endPage: 2 }],
      anchorMode: 'block',
      preset: 'source-structure',
      async: true,
    };
    const refused = await t.client.raw('POST', '/bundles/prepare', { body: next });
    assert.equal(refused.status, 429);
    assert.equal((code(refused).details.runningJob as { cancelling: boolean }).cancelling, true);
    let accepted: { bundleId: string } | undefined;
    let refusals = 1;
    for (let i = 0; i < 600 && !accepted; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await t.client.raw('POST', '/bundles/prepare', { body: next });
      if (r.status === 202) accepted = r.json();
      else {
        assert.equal(r.status, 429);
        refusals++;
      }
    }
    assert.ok(accepted, 'a prepare is accepted once the cancelled job reached its checkpoint');
    assert.ok(refusals >= 1);
    assert.equal(existsSync(prep.bundlePath), false, 'the cancelled bundle left no folder');
    assert.equal(existsSync(`${prep.bundlePath}.partial`), false);
    assert.equal((await pollPrepared(t, accepted.bundleId)).state, 'prepared');
    const listed = (await t.client.request<{ bundles: { bundleId: string }[] }>('GET', '/bundles')).bundles.map(
      (b) => b.bundleId,
    );
    assert.ok(!listed.includes(prep.bundleId));
  });

  it('a submit while one runs: 409 SUBMIT_IN_FLIGHT, nothing changed; two at once never import twice at once', async () => {
    const cad = (await upload(t, 'CAD.pdf')).bookmd5;
    const b = await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
      body: { topicid, bookmd5: cad, segments: [{ startPage: 1, endPage: 7 }] },
    });
    const md = bigResult(300);
    const send = () => t.client.raw('POST', `/bundles/${b.bundleId}/submit`, { body: { resultMarkdown: md } });
    const imports = () =>
      t.bridge.services.store.all<{ n: number }>(
        `SELECT count(*) AS n FROM operations WHERE topicid = ? AND kind = 'import'`,
        [topicid],
      )[0].n;
    // The refusal itself, whatever the machine's speed: the bundle is marked running as a submit marks it before its
    // first await, and the HTTP submit meets that mark.
    const running = t.bridge.services.bundles.submitting;
    running.add(b.bundleId);
    const refused = await send().finally(() => running.delete(b.bundleId));
    assert.equal(refused.status, 409, refused.text());
    assert.equal(code(refused).code, 'SUBMIT_IN_FLIGHT');
    assert.ok((code(refused).details.retryAfterSeconds as number) > 0);
    assert.equal(imports(), 0, 'the refused submit imported nothing');
    // Two at once over HTTP: they overlap (one 409) or, on a loaded machine, the first ends before the second
    // arrives (the second replaces the tree: version 2). Never two imports of one version, never a doubled tree.
    const statuses = (await Promise.all([send(), send()])).map((r) => r.status).sort();
    const listed = (
      await t.client.request<{ bundles: { bundleId: string; version: number; state: string }[] }>('GET', '/bundles')
    ).bundles.find((r) => r.bundleId === b.bundleId)!;
    const overlapped = statuses[1] === 409;
    assert.deepEqual(statuses, overlapped ? [200, 409] : [200, 200]);
    assert.deepEqual([listed.state, listed.version, imports()], ['imported', overlapped ? 1 : 2, overlapped ? 1 : 2]);
    const tree = await t.client.request<{ nodes: unknown[] }>('GET', `/study-sets/${topicid}/tree`);
    const cards = tree.nodes.length;
    await send(); // once more, alone: the tree is replaced, not added to
    const again = await t.client.request<{ nodes: unknown[] }>('GET', `/study-sets/${topicid}/tree`);
    assert.equal(again.nodes.length, cards, 'one copy of the cards');
  });
});

/** n headings, each with a body line; no excerpts needed for write-path timing. */
function bigResult(n: number): string {
  return Array.from({ length: n }, (_, i) => `## Card ${i}\nBody text of card ${i} with some words to index.\n`).join(
    '\n',
  );
}

describe('bundles: kill -9 during a submit', function () {
  this.timeout(240_000);

  it('after a restart the import is either complete or absent', async () => {
    const dataDir = tempDir('sb-bundle-crash-');
    const start = () =>
      new Promise<{ kill(): Promise<void>; stop(): Promise<void>; client: BridgeClient }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(projectRoot, 'src/cli.ts'), 'serve', '--data', dataDir, '--port', '0'],
          { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.stderr.on('data', (d) => (err += d));
        child.stdout.on('data', (d) => {
          out += d;
          const m = /listening on (http:\S+)\n/.exec(out);
          if (m) {
            const client = new BridgeClient({
              baseUrl: m[1],
              token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
            });
            resolve({
              client,
              kill: async () => (child.kill('SIGKILL'), exited),
              stop: async () => (child.kill('SIGTERM'), exited),
            });
          }
        });
        void exited.then(() => reject(new Error(`bridge exited: ${err}`)));
      });
    let b = await start();
    const topicid = (await b.client.createStudySet('Crash')).topicid;
    const up = await b.client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
      bytes: readFileSync(corpusFile('CAD.pdf')),
      query: { filename: 'CAD.pdf', confirm: '1' },
    });
    const prep = await b.client.request<{ bundleId: string; rootNoteId: string }>('POST', '/bundles/prepare', {
      body: { topicid, bookmd5: up.bookmd5, segments: [{ startPage: 1, endPage: 7 }] },
    });
    const md = bigResult(2000);
    const would = await b.client.request<{ tree: unknown[] }>('POST', `/bundles/${prep.bundleId}/check`, {
      body: { resultMarkdown: md },
    });
    const full = would.tree.length;
    const outcomes: number[] = [];
    for (const delayMs of [5, 40, 120, 400]) {
      void b.client
        .raw('POST', `/bundles/${prep.bundleId}/submit`, { body: { resultMarkdown: md } })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, delayMs));
      await b.kill();
      b = await start();
      const tree = await b.client.request<{ nodes: { noteid: string; parent: string | null }[] }>(
        'GET',
        `/study-sets/${topicid}/tree`,
      );
      const under = tree.nodes.filter(
        (n) => n.noteid === prep.rootNoteId || isBelow(tree.nodes, n.noteid, prep.rootNoteId),
      ).length;
      assert.ok(under === 0 || under === full, `all or nothing: ${under} of ${full} cards after kill at ${delayMs} ms`);
      const listed = (
        await b.client.request<{ bundles: { bundleId: string; state: string; version: number }[] }>('GET', '/bundles')
      ).bundles.find((x) => x.bundleId === prep.bundleId)!;
      // The bundle's state moves in the same transaction as the cards.
      assert.equal(listed.state, under ? 'imported' : 'prepared');
      outcomes.push(under);
    }
    // After the crashes the bundle still submits.
    const r = await b.client.request<{ persisted: boolean; receipt: unknown[] }>(
      'POST',
      `/bundles/${prep.bundleId}/submit`,
      { body: { resultMarkdown: md } },
    );
    assert.deepEqual([r.persisted, r.receipt.length], [true, full]);
    await b.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

function isBelow(nodes: { noteid: string; parent: string | null }[], id: string, root: string): boolean {
  const parent = new Map(nodes.map((n) => [n.noteid, n.parent]));
  for (let p = parent.get(id); p; p = parent.get(p)) if (p === root) return true;
  return false;
}
