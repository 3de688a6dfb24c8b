// A data dir written by the previous build (schema v5: page text and search
// index inside library.db, snapshot contents as blobs in it) opens with this
// build, migrates, and answers what the old build answered.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { withoutAdditions, withoutRects } from '../helpers/anchorAnswers';
import { loadSqlite } from '../../src/server/ground/store/sqlite';

const fixture = join(__dirname, '../fixtures/legacy-v5');
const corpus = join(__dirname, '../../../shared/corpus');

interface Answer {
  path: string;
  status: number;
  body: any;
  request?: unknown;
}
interface Manifest {
  books: Record<string, { bookmd5: string; filename: string; folder: string }>;
  topicid: string;
  notes: { a: string; b: string; d: string };
  snapshots: [string, string];
  answers: Answer[];
}

const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as Manifest;

/** The old data dir as the previous build left it: its database, its token, the books where it filed them. */
function legacyDataDir(): string {
  const dir = tempDir('sb-legacy-');
  writeFileSync(join(dir, 'library.db'), gunzipSync(readFileSync(join(fixture, 'data/library.db.gz'))));
  copyFileSync(join(fixture, 'data/token'), join(dir, 'token'));
  for (const [file, b] of Object.entries(manifest.books)) {
    mkdirSync(join(dir, 'library', b.folder), { recursive: true });
    copyFileSync(join(corpus, file), join(dir, 'library', b.folder, b.filename));
  }
  return dir;
}

/** What a search answer says, without the figures that describe how the index was read. */
const searchHits = (body: any) => ({
  notes: body.notes.map((n: any) => [n.noteid, n.title]).sort(),
  studySets: body.studySets.map((s: any) => s.topicid).sort(),
  documents: body.documents.map((d: any) => [d.bookmd5, d.pages, d.matchingPages, d.pagesTruncated]).sort(),
});

async function replay(t: TestBridge, a: Answer) {
  const [path, qs] = a.path.split('?');
  const query = Object.fromEntries(new URLSearchParams(qs ?? ''));
  const r = await t.client.raw(a.request === undefined ? 'GET' : 'POST', path, {
    query,
    ...(a.request === undefined ? {} : { body: a.request }),
  });
  return { status: r.status, body: r.json<any>() };
}

describe('migration of a data dir written by the previous build (schema v5)', function () {
  this.timeout(120_000);
  let dir: string;
  let t: TestBridge;

  before(async () => {
    dir = legacyDataDir();
    t = await startBridge({ dataDir: dir });
  });
  after(async () => t?.stop());

  it('answers every recorded request as the previous build did', async () => {
    for (const a of manifest.answers) {
      const now = await replay(t, a);
      assert.equal(now.status, a.status, `${a.path}: status`);
      if (a.path.startsWith('/search')) assert.deepEqual(searchHits(now.body), searchHits(a.body), `${a.path}: hits`);
      else assert.deepEqual(withoutAdditions(withoutRects(now.body)), withDisplayTitles(a.body), `${a.path}: body`);
    }
  });

  it('keeps no page text, page index or snapshot content in library.db any more', async () => {
    const { store } = t.bridge.services;
    assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM pages')!.n, 0);
    assert.equal(
      store.get(`SELECT name FROM sqlite_master WHERE name = 'pages_fts'`),
      undefined,
      'the old page index table is dropped (schema 9)',
    );
    const inDb = store.get<{ n: number }>(`SELECT count(*) AS n FROM snapshots WHERE length(data) > 0`)!.n;
    assert.equal(inDb, 0, 'every snapshot content moved to a file');
    await store.checkpoint();
    const fixtureDb = gunzipSync(readFileSync(join(fixture, 'data/library.db.gz')));
    const before = fixtureDb.length;
    const after = statSync(join(dir, 'library.db')).size;
    // The moved content was over half the file; every table and index a later migration made adds a 4 KB page.
    const SQL = await loadSqlite();
    const old = new SQL.Database(fixtureDb);
    const oldNames = new Set(
      (old.exec('SELECT name FROM sqlite_master WHERE rootpage > 0')[0]?.values ?? []).map((r) => String(r[0])),
    );
    old.close();
    const laterTables = store
      .all<{ name: string }>('SELECT name FROM sqlite_master WHERE rootpage > 0')
      .filter((r) => !oldNames.has(r.name)).length;
    assert.ok(
      after < before / 2 + laterTables * 4096,
      `library.db shrank (${before} → ${after} bytes; ${laterTables} later tables and indexes)`,
    );
  });

  it('restores a snapshot the previous build wrote', async () => {
    const [first] = manifest.snapshots;
    const r = await t.client.raw('POST', `/snapshots/${first}/restore`, { body: { confirm: true, force: true } });
    assert.equal(r.status, 200, r.text());
    const tree = await t.client.request<{ nodes: Array<{ noteid: string; title: string }> }>(
      'GET',
      `/study-sets/${manifest.topicid}/tree`,
    );
    const titles = tree.nodes.map((n) => n.title);
    assert.ok(titles.includes('Markov bases') && titles.includes('Graver basis'), titles.join(', '));
    assert.ok(!titles.includes('Hilbert basis'), 'the card added after the snapshot is gone');
  });

  it('opens again without migrating twice, with the same answers', async () => {
    await t.bridge.close();
    t = await startBridge({ dataDir: dir });
    for (const a of manifest.answers.filter((x) => /\/pages\?|\/outline|\/search\?q=markov/.test(x.path))) {
      const now = await replay(t, a);
      assert.equal(now.status, a.status, a.path);
      if (a.path.startsWith('/search')) assert.deepEqual(searchHits(now.body), searchHits(a.body));
      else assert.deepEqual(withoutRects(now.body), a.body, a.path);
    }
  });
});

/** Tree nodes gained displayTitle after the fixture was recorded (#17): the title, as every fixture card has one. */
function withDisplayTitles(body: any): any {
  if (!body || !Array.isArray(body.nodes)) return body;
  return {
    ...body,
    nodes: body.nodes.map((n: any) =>
      typeof n.title === 'string' && !('displayTitle' in n) ? { ...n, displayTitle: n.title } : n,
    ),
  };
}
