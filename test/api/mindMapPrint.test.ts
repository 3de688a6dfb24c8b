import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallOptions } from '../../src/client/routeCalls';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card } from '../helpers/libraryFixtures';

type PreviewBody = NonNullable<CallOptions<'POST /study-sets/{id}/mind-map-print/preview'>['body']>;

const NOBODY = '00000000-0000-4000-8000-00000000ABCD';

describe('mind-map print', function () {
  this.timeout(90_000);
  let t: TestBridge;
  let setId: string;
  let root: string;
  const ids: Record<string, string> = {};
  const titles: string[] = [];
  const base = (id: string) => `/study-sets/${id}/mind-map-print`;
  const preview = (body: PreviewBody, id = setId) =>
    t.client.call('POST /study-sets/{id}/mind-map-print/preview', { params: { id }, body });
  const exportPlan = (plan: unknown, fileName?: string, id = setId) =>
    t.client.raw('POST', `${base(id)}/export`, { body: { plan, ...(fileName ? { fileName } : {}) } });
  const exportDir = () => join(t.dataDir, 'MindMapExports');
  const exported = () => (existsSync(exportDir()) ? readdirSync(exportDir()).sort() : []);
  const create = async (name: string, parent?: string, title = name) => {
    ids[name] = await card(t, setId, { title, ...(parent ? { parentNoteId: ids[parent] } : {}) });
    titles.push(title);
  };
  const name = (id: string) => (id === root ? 'R' : Object.keys(ids).find((k) => ids[k] === id));

  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Linear Algebra');
    setId = set.topicid;
    root = set.rootNoteId!;
    titles.push('Linear Algebra');
    // R → Ch1 (8 leaves), Ch2 (2 leaves), Ch3 (1 leaf), Ch4 (leaf), Ch5 (2 children with a child each): 21 cards.
    await create('Ch1', undefined, 'Vector spaces');
    for (let i = 1; i <= 8; i++) await create(`Ch1.${i}`, 'Ch1', `Axiom number ${i}`);
    await create('Ch2', undefined, 'Linear maps');
    await create('Ch2.1', 'Ch2', 'Kernel');
    await create('Ch2.2', 'Ch2', 'Image');
    await create('Ch3', undefined, 'Determinants');
    await create('Ch3.1', 'Ch3', 'Laplace expansion');
    await create('Ch4', undefined, 'Inner products');
    await create('Ch5', undefined, 'Eigenvalues');
    await create('Ch5.1', 'Ch5', 'Characteristic polynomial');
    await create('Ch5.1a', 'Ch5.1', 'Cayley Hamilton');
    await create('Ch5.2', 'Ch5', 'Diagonalisation');
    await create('Ch5.2a', 'Ch5.2', 'Spectral theorem');
  });
  after(() => t.stop());

  it('keepStructure, sparse: an overview, a big branch sliced, small siblings merged, writes nothing', async () => {
    const before = storeDigest(t.bridge.services.store);
    const p = await preview({ mode: 'keepStructure', densityValue: 0 });
    assert.equal(p.schema, 'study-bridge.mindMapPrintPlan.v0');
    assert.equal(p.exportOptions.cardsPerPage, 6);
    assert.equal(p.cardCount, 21);
    assert.equal(p.pageCountEstimate, p.pages.length);
    assert.match(p.planFingerprint, /^[0-9a-f]{64}$/);
    assert.match(p.treeFingerprint, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      p.pages.map((pg) => [
        pg.kind,
        pg.sliceIndex,
        pg.sliceCount,
        pg.visibleDepth,
        pg.visibleNoteIds.map(name).join(' '),
      ]),
      [
        ['branchOverview', 0, 1, 1, 'R Ch1 Ch2 Ch3 Ch4 Ch5'],
        ['branchOverview', 0, 2, 1, 'Ch1 Ch1.1 Ch1.2 Ch1.3 Ch1.4 Ch1.5'],
        ['branchOverview', 1, 2, 1, 'Ch1 Ch1.6 Ch1.7 Ch1.8'],
        ['mergedSiblingBranches', 0, 1, 1, 'Ch2 Ch2.1 Ch2.2 Ch3 Ch3.1'],
        ['branchOverview', 0, 1, 2, 'Ch5 Ch5.1 Ch5.1a Ch5.2 Ch5.2a'],
      ],
    );
    const every = new Set(p.pages.flatMap((pg) => pg.visibleNoteIds));
    assert.equal(every.size, 21, 'every card is on some page');
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.deepEqual(exported(), []);
  });

  it('denser = more cards per page; classic tiles the map; cardFlow prints cards as boxes; rootNoteId prints one branch', async () => {
    const dense = await preview({ mode: 'keepStructure', densityValue: 1 });
    assert.deepEqual(
      dense.pages.map((pg) => [pg.kind, pg.visibleNoteIds.length, pg.visibleDepth]),
      [['branchOverview', 21, 3]],
    );
    const counts = [];
    for (const d of [0, 0.25, 0.5, 0.75, 1])
      counts.push((await preview({ mode: 'classic', densityValue: d })).pageCountEstimate);
    assert.deepEqual(counts, [4, 2, 1, 1, 1], '6, 20, 33, 47, 60 cards per page');
    const classic = await preview({ mode: 'classic', densityValue: 0 });
    assert.deepEqual(
      classic.pages.map((pg) => [pg.kind, pg.sliceIndex, pg.sliceCount, pg.visibleNoteIds.length]),
      [
        ['branchOverview', 0, 4, 6],
        ['branchOverview', 1, 4, 6],
        ['branchOverview', 2, 4, 6],
        ['branchOverview', 3, 4, 3],
      ],
    );
    assert.equal((await preview({ mode: 'cardFlow', densityValue: 0 })).pageCountEstimate, 21);
    const flow = await preview({ mode: 'cardFlow', densityValue: 1 });
    assert.deepEqual(
      flow.pages.map((pg) => [pg.kind, pg.visibleNoteIds.length]),
      [
        ['singleCard', 12],
        ['singleCard', 9],
      ],
    );
    const branch = await preview({ mode: 'keepStructure', rootNoteId: ids.Ch5.toLowerCase() });
    assert.equal(branch.rootNoteId, ids.Ch5);
    assert.deepEqual(
      branch.pages.map((pg) => pg.visibleNoteIds.map(name).join(' ')),
      ['Ch5 Ch5.1 Ch5.1a Ch5.2 Ch5.2a'],
    );
    assert.equal(branch.densityValue, 0.5, 'default density');
    const leaf = await preview({ mode: 'keepStructure', rootNoteId: ids.Ch4 });
    assert.deepEqual(
      leaf.pages.map((pg) => pg.kind),
      ['singleCard'],
    );
    assert.ok(leaf.warnings?.some((w) => /single card/.test(String(w))));
  });

  it('export draws the saved plan: qpdf --check passes, pdfinfo has its page count, pdftotext shows every title', async () => {
    const plan = await preview({ mode: 'keepStructure', densityValue: 0 });
    const res = await exportPlan(plan, 'algebra-map');
    assert.equal(res.status, 200, res.text());
    const out = res.json<any>();
    assert.equal(out.path, join(exportDir(), 'algebra-map.pdf'));
    assert.equal(out.pageCount, 5);
    assert.equal(out.bytes, statSync(out.path).size);
    const check = spawnSync('qpdf', ['--check', out.path], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(execFileSync('pdfinfo', [out.path], { encoding: 'utf8' }), /^Pages:\s+5$/m);
    const text = execFileSync('pdftotext', ['-layout', out.path, '-'], { encoding: 'utf8' });
    for (const title of titles) assert.ok(text.includes(title), `"${title}" is in the PDF text`);
    const pages = text.split('\f');
    assert.ok(
      pages[3].includes('Kernel') && pages[3].includes('Laplace expansion') && !pages[3].includes('Axiom number 1'),
      'page 4 holds the merged branches only',
    );

    const again = await exportPlan(plan, 'algebra-map.pdf');
    const second = again.json<any>();
    assert.equal(second.fileName, 'algebra-map (2).pdf', 'never overwrites');
    assert.ok(second.warnings.some((w: string) => /never overwritten/.test(w)));

    const flow = await preview({ mode: 'cardFlow', densityValue: 1 });
    const f = (await exportPlan(flow)).json<any>();
    assert.equal(f.pageCount, 2);
    assert.match(execFileSync('pdfinfo', [f.path], { encoding: 'utf8' }), /^Pages:\s+2$/m);
    assert.equal(spawnSync('qpdf', ['--check', f.path]).status, 0);
    const flowText = execFileSync('pdftotext', [f.path, '-'], { encoding: 'utf8' });
    for (const title of ['Vector spaces', 'Spectral theorem', 'Cayley Hamilton'])
      assert.ok(flowText.includes(title), title);
  });

  it('an edited plan → 422, a plan of another set → 422, a changed tree → 409 PLAN_STALE; nothing written', async () => {
    const plan = await preview({ mode: 'keepStructure', densityValue: 0 });
    const files = exported();
    const digest = storeDigest(t.bridge.services.store);
    const edited = structuredClone(plan);
    edited.pages[0].visibleNoteIds.pop();
    const denser = { ...structuredClone(plan), densityValue: 0.9 };
    for (const bad of [edited, denser, { ...plan, planFingerprint: 'f'.repeat(64) }]) {
      const r = await exportPlan(bad);
      assert.equal(r.status, 422);
      assert.equal(r.json<any>().error.code, 'PLAN_FINGERPRINT_MISMATCH');
    }
    const other = await t.client.createStudySet('Other');
    const foreign = await exportPlan(plan, undefined, other.topicid);
    assert.equal(foreign.status, 422);
    assert.equal(foreign.json<any>().error.code, 'PLAN_FOR_OTHER_SET');
    assert.deepEqual(exported(), files);

    await create('Ch6', undefined, 'Jordan form');
    const stale = await exportPlan(plan);
    assert.equal(stale.status, 409);
    const err = stale.json<any>().error;
    assert.equal(err.code, 'PLAN_STALE');
    assert.equal(err.details.planTreeFingerprint, plan.treeFingerprint);
    assert.notEqual(err.details.currentTreeFingerprint, plan.treeFingerprint);
    assert.deepEqual(exported(), files);
    assert.notEqual(storeDigest(t.bridge.services.store), digest, 'the new card itself was written');
    // The branch printed alone is not affected by a card outside it.
    const branch = await preview({ mode: 'classic', rootNoteId: ids.Ch2 });
    await create('Ch7', undefined, 'Tensor products');
    assert.equal((await exportPlan(branch)).status, 200);
  });

  it('shares 429 EXPORT_BUSY with document export; nothing written while busy', async () => {
    const plan = await preview({ mode: 'classic', densityValue: 1 });
    const files = exported();
    let release!: () => void;
    const held = t.bridge.services.exportSlot.run(() => new Promise<void>((r) => (release = r)));
    try {
      const r = await exportPlan(plan);
      assert.equal(r.status, 429);
      const err = r.json<any>().error;
      assert.equal(err.code, 'EXPORT_BUSY');
      assert.ok(r.headers.get('retry-after'));
      assert.deepEqual(exported(), files);
    } finally {
      release();
      await held;
    }
    assert.equal((await exportPlan(plan)).status, 200, 'free again once the other export ends');
  });

  it('refusals: no set, a deck, bad mode / density / rootNoteId / plan / fileName; nothing changes', async () => {
    const deck = await t.client.createDeck('Exam');
    const other = await t.client.createStudySet('Elsewhere');
    const plan = await preview({ mode: 'classic', densityValue: 1 });
    const files = exported();
    const before = storeDigest(t.bridge.services.store);
    const cases: Array<[string, string, Record<string, unknown>, number, string]> = [
      ['preview', NOBODY, { mode: 'classic' }, 404, 'TOPIC_NOT_FOUND'],
      ['preview', deck.deckId, { mode: 'classic' }, 422, 'IS_A_DECK'],
      ['preview', setId, {}, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'poster' }, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'classic', densityValue: 1.5 }, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'classic', densityValue: -0.1 }, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'classic', densityValue: 'dense' }, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'classic', rootNoteId: 'nope' }, 422, 'INVALID_INPUT'],
      ['preview', setId, { mode: 'classic', rootNoteId: NOBODY }, 404, 'NOTE_NOT_FOUND'],
      ['preview', setId, { mode: 'classic', rootNoteId: other.rootNoteId }, 422, 'NOTES_IN_DIFFERENT_SETS'],
      ['preview', 'not-a-uuid', { mode: 'classic' }, 422, 'INVALID_INPUT'],
      ['export', NOBODY, { plan }, 404, 'TOPIC_NOT_FOUND'],
      ['export', deck.deckId, { plan }, 422, 'IS_A_DECK'],
      ['export', setId, {}, 422, 'INVALID_INPUT'],
      ['export', setId, { plan: { ...plan, schema: 'other.v1' } }, 422, 'INVALID_INPUT'],
      ['export', setId, { plan: { ...plan, pages: [] } }, 422, 'INVALID_INPUT'],
      ['export', setId, { plan, fileName: '../escape' }, 422, 'INVALID_FILENAME'],
      ['export', setId, { plan, fileName: '.hidden' }, 422, 'INVALID_FILENAME'],
      ['export', setId, { plan, fileName: 'a/b' }, 422, 'INVALID_FILENAME'],
    ];
    for (const [step, id, body, status, code] of cases) {
      const r = await t.client.raw('POST', `${base(id)}/${step}`, { body });
      assert.equal(r.status, status, `${step} ${id} ${JSON.stringify(body).slice(0, 80)}: ${r.text().slice(0, 200)}`);
      assert.equal(r.json<any>().error.code, code, `${step} ${JSON.stringify(body).slice(0, 80)}`);
    }
    assert.equal((await t.anonymous.raw('POST', `${base(setId)}/preview`, { body: { mode: 'classic' } })).status, 401);
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.deepEqual(exported(), files);
  });
});

describe('mind-map print without premium', function () {
  this.timeout(30_000);
  it('preview and export are free routes', async () => {
    const t = await startBridge({ premium: false });
    try {
      // Sets are created with premium; the first bridge has none, so the set is made through the service.
      const set = await t.bridge.services.studySets.create('Free print');
      const plan = await t.client.call('POST /study-sets/{id}/mind-map-print/preview', {
        params: { id: set.topicid },
        body: { mode: 'cardFlow' },
      });
      const r = await t.client.raw('POST', `/study-sets/${set.topicid}/mind-map-print/export`, { body: { plan } });
      assert.equal(r.status, 200, r.text());
      assert.equal(r.json<any>().pageCount, 1);
    } finally {
      await t.stop();
    }
  });
});
