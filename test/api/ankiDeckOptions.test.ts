import assert from 'node:assert/strict';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { loadSqlite } from '../../src/server/ground/store/sqlite';
import { buildCollection, crtDaysAgo } from '../helpers/ankiPackageBuilder';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/** FSRS-6 weights as Anki's optimizer would have written them (21 numbers, none of them the defaults). */
const WEIGHTS = [
  0.3, 1.1, 2.9, 9.5, 6.2, 0.7, 2.8, 0.01, 1.7, 0.15, 0.9, 1.5, 0.07, 0.3, 1.6, 0.55, 1.9, 0.5, 0.1, 0.07, 0.2,
];

const EXAM = {
  id: 77,
  name: 'Exam',
  new: { perDay: 35, delays: [2, 15, 1440], bury: true, initialFactor: 2500, ints: [1, 4, 0], order: 1 },
  rev: { perDay: 500, maxIvl: 400, bury: true, ease4: 1.3, ivlFct: 1, hardFactor: 1.2 },
  lapse: { delays: [5, 60], leechFails: 5, leechAction: 0, minInt: 1, mult: 0 },
  buryInterdayLearning: true,
  desiredRetention: 0.85,
  fsrsParams6: WEIGHTS,
};

/** A legacy package whose deck uses the options group `dconf` (as Anki exports one), with `rollover` as its day start. */
async function packageWith(dconf: Record<string, unknown> | string, rollover = 6, guid = 'opt') {
  const SQL = await loadSqlite();
  const db = new SQL.Database(
    await buildCollection({
      crt: crtDaysAgo(20),
      models: [{ name: 'Basic', fields: ['Front', 'Back'] }],
      decks: ['Exam deck'],
      notes: [1, 2, 3].map((i) => ({ guid: `${guid}${i}`, model: 'Basic', fields: [`front ${i}`, `back ${i}`] })),
    }),
  );
  const decks = JSON.parse(String(db.exec('SELECT decks FROM col')[0].values[0][0])) as Record<string, any>;
  for (const d of Object.values(decks)) if (d.name === 'Exam deck') d.conf = 77;
  const conf = { ...JSON.parse(String(db.exec('SELECT conf FROM col')[0].values[0][0])), rollover };
  db.run('UPDATE col SET decks = ?, dconf = ?, conf = ?', [
    JSON.stringify(decks),
    typeof dconf === 'string' ? dconf : JSON.stringify(dconf),
    JSON.stringify(conf),
  ]);
  const bytes = db.export();
  db.close();
  return zipSync({ 'collection.anki2': bytes, media: strToU8('{}') });
}

/** The exported deck's options group and the collection's rollover, read from the package's SQL directly. */
async function exportedOptions(bytes: Uint8Array) {
  const SQL = await loadSqlite();
  const db = new SQL.Database(unzipSync(bytes)['collection.anki2']);
  try {
    const [decks, dconf, conf] = db
      .exec('SELECT decks, dconf, conf FROM col')[0]
      .values[0].map<any>((v) => JSON.parse(String(v)));
    const deck = Object.values(decks).find((d: any) => d.id !== 1) as any;
    return { group: dconf[String(deck.conf)], rollover: conf.rollover };
  } finally {
    db.close();
  }
}

describe('.apkg deck options (dconf): import reads them into a preset, export writes them back', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const importPackage = async (target: TestBridge, bytes: Uint8Array, filename = 'Exam.apkg') => {
    const res = await target.client.raw('POST', '/decks/import', { bytes, query: { filename, confirm: 1 } });
    assert.equal(res.status, 200, res.text().slice(0, 300));
    return res.json<any>();
  };
  const optionsOf = (target: TestBridge, deckId: string) =>
    target.client.call('GET /decks/{id}/options', { params: { id: deckId } });

  let deckId = '';
  let imported: any;

  it('import: the deck studies with the package\'s options group, as the preset "Anki: Exam"', async () => {
    imported = await importPackage(t, await packageWith({ 1: { id: 1, name: 'Default' }, 77: EXAM }));
    deckId = imported.deckId;
    const o = await optionsOf(t, deckId);
    assert.equal(o.presetId, imported.presetId);
    assert.equal(o.name, 'Anki: Exam');
    assert.deepEqual(o.options, {
      newPerDay: 35,
      reviewsPerDay: 500,
      desiredRetention: 0.85,
      learningSteps: ['2m', '15m', '1d'],
      relearningSteps: ['5m', '1h'],
      maximumInterval: 400,
      buryNewSiblings: true,
      buryReviewSiblings: true,
      buryInterdayLearningSiblings: true,
      leechThreshold: 5,
      leechAction: 'suspend',
      dayStartHour: 6,
      fsrsParameters: WEIGHTS,
    });
  });

  it('the same package again keeps one preset; a value the person changed in between is given the package value again', async () => {
    await t.client.request('POST', '/deck-presets', {
      body: { presetId: imported.presetId, options: { newPerDay: 5 }, confirm: true },
    });
    const again = await importPackage(t, await packageWith({ 77: EXAM }));
    assert.equal(again.deckId, deckId);
    assert.equal(again.presetId, imported.presetId);
    assert.equal((await optionsOf(t, deckId)).options.newPerDay, 35);
    const presets = (await t.client.call('GET /deck-presets')).presets;
    assert.equal(presets.filter((p) => p.name === 'Anki: Exam').length, 1);
  });

  it("export: the deck's options group carries them back in Anki's units (minutes, leech 0 = suspend), rollover the day start", async () => {
    const res = await t.client.raw('GET', `/decks/${deckId}/apkg`);
    assert.equal(res.status, 200);
    const { group, rollover } = await exportedOptions(res.bytes);
    assert.equal(rollover, 6);
    assert.equal(group.name, 'Exam');
    assert.deepEqual(
      [group.new.perDay, group.new.delays, group.new.bury, group.rev.perDay, group.rev.maxIvl, group.rev.bury],
      [35, [2, 15, 1440], true, 500, 400, true],
    );
    assert.deepEqual([group.lapse.delays, group.lapse.leechFails, group.lapse.leechAction], [[5, 60], 5, 0]);
    assert.equal(group.buryInterdayLearning, true);
    assert.equal(group.desiredRetention, 0.85);
    assert.deepEqual(group.fsrsParams6, WEIGHTS);
  });

  it('round trip: the export imported into another library studies with the same options', async () => {
    const other = await startBridge();
    try {
      const bytes = (await t.client.raw('GET', `/decks/${deckId}/apkg`)).bytes;
      const back = await importPackage(other, bytes);
      const a = await optionsOf(t, deckId);
      const b = await optionsOf(other, back.deckId);
      assert.equal(b.name, 'Anki: Exam');
      assert.deepEqual(b.options, a.options);
    } finally {
      await other.stop();
    }
  });

  it('FSRS-5 weights (19) go out as fsrsParams5; a deck on the defaults exports the defaults', async () => {
    const five = WEIGHTS.slice(0, 19);
    await t.client.request('POST', '/deck-presets', {
      body: { presetId: imported.presetId, options: { fsrsParameters: five }, confirm: true },
    });
    const { group } = await exportedOptions((await t.client.raw('GET', `/decks/${deckId}/apkg`)).bytes);
    assert.deepEqual([group.fsrsParams5, group.fsrsParams6], [five, []]);

    const plain = await t.client.createDeck('Plain deck');
    const out = await exportedOptions((await t.client.raw('GET', `/decks/${plain.deckId}/apkg`)).bytes);
    assert.equal(out.group.name, 'Default');
    assert.deepEqual([out.group.new.perDay, out.group.new.delays, out.group.lapse.delays], [20, [1, 10], [10]]);
    assert.deepEqual(out.group.fsrsParams6, []);
    assert.equal(out.rollover, 4);
  });

  it('values out of range or of the wrong kind are left out (the rest apply); a dconf that is not JSON imports with the defaults', async () => {
    const odd = {
      77: {
        ...EXAM,
        name: 'Odd',
        new: { perDay: -3, delays: ['x'], bury: 'yes' },
        rev: { perDay: 120, maxIvl: 0 },
        desiredRetention: 5,
        fsrsParams6: [1, 2],
      },
    };
    const r = await importPackage(t, await packageWith(odd, 30, 'odd'), 'Odd.apkg');
    const o = (await optionsOf(t, r.deckId)).options;
    assert.deepEqual(
      [o.newPerDay, o.learningSteps, o.buryNewSiblings, o.maximumInterval, o.desiredRetention, o.fsrsParameters],
      [20, ['1m', '10m'], false, 36500, 0.9, null],
    );
    assert.deepEqual(
      [o.reviewsPerDay, o.relearningSteps, o.leechAction, o.dayStartHour],
      [120, ['5m', '1h'], 'suspend', 4],
    );

    const broken = await importPackage(t, await packageWith('{not json', 6, 'broken'), 'Broken.apkg');
    assert.equal(broken.presetId, undefined);
    assert.equal((await optionsOf(t, broken.deckId)).presetId, 'default');
  });
});
