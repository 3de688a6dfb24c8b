/**
 * An .apkg import writes its cards' index rows after all its cards, together, in large statements
 * (cardRowsBatch.ts INDEX_CHUNK_ROWS). Every card is still found by search and has one index row, and the import
 * makes few FTS4 segments: written beside each batch of 200 cards, as before, 700 notes made over a dozen, each
 * merged again by automerge.
 */
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, type BuildNote } from '../helpers/ankiPackageBuilder';

const NOTES = 700;

function reversedPackage(): Promise<Uint8Array> {
  const notes: BuildNote[] = [];
  for (let i = 0; i < NOTES; i++)
    notes.push({
      guid: `indexed${i}`,
      model: 'Basic (and reversed card)',
      fields: [`front ${i} f${i}end`, `back ${i} b${i}end`],
      cards: [
        { ord: 0, type: 0, due: i },
        { ord: 1, type: 0, due: i },
      ],
    });
  return buildApkg({ crt: crtDaysAgo(30), models: [BASIC_AND_REVERSED], decks: ['Indexed'], notes });
}

describe('.apkg import: the card index', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let segmentsMade = 0;
  let topicid = '';

  before(async () => {
    t = await startBridge();
    // Counts the FTS4 segments the import makes (its own and automerge's), through a trigger on the index's shadow table.
    const db = (t.bridge.services.store as unknown as { db: { exec(sql: string): { values: unknown[][] }[] } }).db;
    db.exec(`CREATE TEMP TABLE made(n INTEGER); INSERT INTO made VALUES (0);
      CREATE TEMP TRIGGER made_segment AFTER INSERT ON main.notes_fts_segdir BEGIN UPDATE made SET n = n + 1; END;`);
    const r = await t.client.anki.importPackage(await reversedPackage(), 'Indexed.apkg');
    assert.equal(r.cards, NOTES * 2);
    topicid = r.topicid;
    segmentsMade = Number(db.exec('SELECT n FROM made')[0].values[0][0]);
  });
  after(() => t.stop());

  it(`${NOTES} Basic+reversed notes: each card has one index row`, () => {
    const rows = t.bridge.services.store.get<{ n: number }>(
      'SELECT count(*) AS n FROM notes_fts_content WHERE c1topicid = ?',
      [topicid],
    )!.n;
    // The set's root, a card a note and a child card a template.
    assert.equal(rows, 1 + NOTES * 3);
  });

  it('the first, a middle and the last note are found by a word of their back: the note card and both child cards', async () => {
    for (const i of [0, 351, NOTES - 1]) {
      const r = await t.client.search(`b${i}end`, { scope: 'notes' });
      assert.equal(r.notes.length, 3, `b${i}end: ${JSON.stringify(r.notes.map((n) => n.title))}`);
      assert.deepEqual(
        r.notes.map((n) => n.title).sort(),
        [`back ${i} b${i}end`, `front ${i} f${i}end`, `front ${i} f${i}end`].sort(),
      );
    }
  });

  it('few FTS4 segments are made: one a statement of index rows and the set root’s, no merges', () => {
    // 2,100 cards' rows in two statements, and the root card's own row.
    assert.ok(segmentsMade <= 4, `${segmentsMade} segments made`);
  });
});
