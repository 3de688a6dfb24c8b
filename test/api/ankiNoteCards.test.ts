import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import {
  BASIC_AND_REVERSED,
  buildApkg,
  crtDaysAgo,
  type BuildPackage,
  type BuildTemplate,
} from '../helpers/ankiPackageBuilder';

/**
 * Anki's note → cards model: every card Anki generated of a note comes in
 * (each template of a multi-template type, both directions of a reversed
 * note, every cloze number), each with its own scheduling, and goes back out
 * as the same note with the same cards.
 */

const CRT_DAYS_AGO = 40;
const SIX = ['Word', 'Reading', 'Meaning', 'Example', 'Audio', 'Picture'];
const CLOZE = '{{c1::Paris}} is the capital of {{c2::France}}, on the {{c3::Seine::river}}.';

/** The fixture, read back by the independent reader before use. */
function notesPackage(crt: number, reversedCards = 2): BuildPackage {
  return {
    crt,
    decks: ['Languages::French'],
    models: [
      {
        name: 'Six ways',
        fields: SIX,
        templates: [
          { name: 'Recognise', qfmt: '{{Word}}', afmt: '{{FrontSide}}<hr id=answer>{{Meaning}}' },
          { name: 'Read', qfmt: '{{Reading}}', afmt: '{{FrontSide}}<hr id=answer>{{Word}}' },
          { name: 'Recall', qfmt: '{{Meaning}}', afmt: '{{FrontSide}}<hr id=answer>{{Word}}' },
          {
            name: 'In context',
            qfmt: '{{#Example}}{{Example}}{{/Example}}',
            afmt: '{{FrontSide}}<hr id=answer>{{Meaning}}',
          },
          { name: 'Type it', qfmt: '{{Meaning}} {{type:Word}}', afmt: '{{FrontSide}}<hr id=answer>{{type:Word}}' },
          {
            name: 'Hint',
            qfmt: '{{#Example}}{{hint:Example}}{{/Example}}{{^Example}}{{/Example}}',
            afmt: '{{FrontSide}}<hr id=answer>{{Word}}{{^Reading}} (no reading){{/Reading}}',
          },
        ],
      },
      BASIC_AND_REVERSED,
      { name: 'Cloze', fields: ['Text', 'Back Extra'], cloze: true },
    ],
    notes: [
      {
        guid: 'six-full',
        model: 'Six ways',
        fields: ['le chat', 'ʃa', 'the cat', 'Le chat dort.', '', ''],
        tags: ['fr::nouns'],
        cards: [0, 1, 2, 3, 4, 5].map((ord) => ({ ord, due: ord + 1 })),
      },
      {
        // No example: Anki generated no card for the two templates whose front would be empty.
        guid: 'six-short',
        model: 'Six ways',
        fields: ['le chien', 'ʃjɛ̃', 'the dog', '', '', ''],
        cards: [0, 1, 2, 4].map((ord) => ({ ord, due: 10 + ord })),
      },
      {
        guid: 'rev-1',
        model: 'Basic (and reversed card)',
        fields: ['parler', 'to speak'],
        cards: [
          { ord: 0, type: 2, queue: 2, due: CRT_DAYS_AGO + 3, ivl: 9, reps: 4, lapses: 0, reviews: [] },
          { ord: 1, type: 0, due: 20 },
        ].slice(0, reversedCards),
      },
      {
        guid: 'cloze-3',
        model: 'Cloze',
        fields: [CLOZE, 'Geography'],
        cards: [
          { ord: 0, type: 0, due: 30 },
          {
            ord: 1,
            type: 2,
            queue: 2,
            due: CRT_DAYS_AGO + 12,
            ivl: 21,
            reps: 6,
            lapses: 2,
            data: JSON.stringify({ s: 30.5, d: 6.2 }),
          },
          // Suspended in Anki: set aside here too.
          { ord: 2, type: 0, queue: -1, due: 31 },
        ],
      },
    ],
  };
}

async function readBack(bytes: Uint8Array) {
  const { readAnkiPackage } = await import('anki-reader');
  const { collection } = await readAnkiPackage(new Blob([new Uint8Array(bytes)]));
  const db = collection.getRawCollection();
  const rows = (sql: string) => (db.exec(sql)[0]?.values ?? []) as unknown[][];
  const notes = rows('SELECT n.guid, n.flds, count(c.id) FROM notes n JOIN cards c ON c.nid = n.id GROUP BY n.id');
  const cards = rows('SELECT n.guid, c.ord, c.type, c.due, c.ivl, c.queue FROM cards c JOIN notes n ON n.id = c.nid');
  const models = JSON.parse(String(rows('SELECT models FROM col')[0][0])) as Record<string, any>;
  return { notes, cards, models, crt: Number(rows('SELECT crt FROM col')[0][0]) };
}

const importBytes = (t: TestBridge, bytes: Uint8Array) =>
  t.client.raw('POST', '/decks/import', { bytes, query: { filename: 'French.apkg', confirm: 1 } });

/** Each review card as its study-set card reads, with its scheduling, sorted. */
async function reviewCards(t: TestBridge, deckId: string) {
  const cards = (await t.client.cards.deckCards(deckId)).cards;
  const notes = (await t.client.cards.batchGet(cards.map((c: any) => c.sourceNoteId))).notes;
  const byId = new Map(notes.map((n) => [n.noteid, n]));
  return cards
    .map((c: any) => ({
      title: byId.get(c.sourceNoteId)!.title,
      back: byId.get(c.sourceNoteId)!.texts.find((x) => x.index === 0)?.text ?? '',
      state: c.state,
      due: c.state === 'new' ? 'new' : c.due.slice(0, 10),
      reps: c.reps,
      lapses: c.lapses,
      suspended: c.suspended,
    }))
    .sort((a, b) => `${a.title}|${a.back}`.localeCompare(`${b.title}|${b.back}`));
}

describe('Anki notes with several cards: every card comes in and goes out', () => {
  let t: TestBridge;
  let u: TestBridge;
  const crt = crtDaysAgo(CRT_DAYS_AGO);
  before(async () => {
    t = await startBridge();
    u = await startBridge();
  });
  after(async () => {
    await t.stop();
    await u.stop();
  });

  it('the fixture is a package the independent reader reads: 4 notes, 15 cards', async () => {
    const r = await readBack(await buildApkg(notesPackage(crt)));
    assert.deepEqual(
      r.notes.map((n) => [n[0], n[2]]),
      [
        ['six-full', 6],
        ['six-short', 4],
        ['rev-1', 2],
        ['cloze-3', 3],
      ],
    );
  });

  let first: any;
  it('imports each template, both directions and every cloze as its own review card under the note', async () => {
    const res = await importBytes(t, await buildApkg(notesPackage(crt)));
    assert.equal(res.status, 200, res.text());
    first = res.json<any>();
    assert.deepEqual([first.notes, first.created, first.cards, first.skipped.length], [4, 4, 15, 0]);
    const deck = (await t.client.listDecks()).find((d) => d.deckId === first.deckId)!;
    assert.equal(deck.cardCount, 15);

    const tree = await t.client.cards.tree(first.topicid);
    const top = tree.nodes.filter((n: any) => n.level === 1);
    assert.deepEqual(
      top.map((n: any) => n.title),
      ['le chat', 'le chien', 'parler', 'Paris is the capital of France, on the Seine.'],
    );
    const children = (i: number) => tree.nodes.filter((n: any) => n.parent === top[i].noteid).map((n: any) => n.title);
    assert.deepEqual(children(0), ['le chat', 'ʃa', 'the cat', 'Le chat dort.', 'the cat [...]', 'Le chat dort.']);
    assert.deepEqual(children(1), ['le chien', 'ʃjɛ̃', 'the dog', 'the dog [...]']);
    assert.deepEqual(children(2), ['parler', 'to speak']);
    assert.deepEqual(children(3), [
      '[...] is the capital of France, on the Seine.',
      'Paris is the capital of [...], on the Seine.',
      'Paris is the capital of France, on the [river].',
    ]);

    const cards = await reviewCards(t, first.deckId);
    assert.equal(cards.length, 15);
    // Each card keeps its own scheduling: the reversed direction is new, the forward one in review.
    const day = (n: number) => new Date((crt + n * 86_400) * 1000).toISOString().slice(0, 10);
    assert.deepEqual(
      cards.filter((c) => c.title === 'parler' || c.title === 'to speak'),
      [
        {
          title: 'parler',
          back: 'to speak',
          state: 'review',
          due: day(CRT_DAYS_AGO + 3),
          reps: 4,
          lapses: 0,
          suspended: false,
        },
        { title: 'to speak', back: 'parler', state: 'new', due: 'new', reps: 0, lapses: 0, suspended: false },
      ],
    );
    const c2 = cards.find((c) => c.title.startsWith('Paris is the capital of [...]'))!;
    assert.deepEqual([c2.state, c2.due, c2.reps, c2.lapses], ['review', day(CRT_DAYS_AGO + 12), 6, 2]);
    assert.equal(c2.back, 'Paris is the capital of France, on the Seine.\nGeography');
    assert.deepEqual(
      cards.filter((c) => c.suspended).map((c) => c.title),
      ['Paris is the capital of France, on the [river].'],
    );
    // {{type:…}} is shown as text on the back; {{^Reading}} shows only where Reading is empty.
    assert.ok(cards.some((c) => c.title === 'the cat [...]' && c.back === 'le chat'));
    assert.ok(cards.some((c) => c.title === 'Le chat dort.' && c.back === 'le chat'));
  });

  let exported: Uint8Array;
  it('exports the same notes, note types and cards (read back by anki-reader)', async () => {
    const res = await t.client.raw('GET', `/decks/${first.deckId}/apkg`);
    assert.equal(res.status, 200);
    exported = res.bytes;
    const r = await readBack(exported);
    const original = notesPackage(crt);
    assert.deepEqual(
      r.notes.map((n) => [n[0], String(n[1]).split('\x1f'), n[2]]).sort(),
      original.notes.map((n) => [n.guid, n.fields, n.cards!.length]).sort(),
    );
    const ords = (guid: string) =>
      r.cards
        .filter((c) => c[0] === guid)
        .map((c) => c[1])
        .sort();
    assert.deepEqual(ords('six-short'), [0, 1, 2, 4]);
    assert.deepEqual(ords('cloze-3'), [0, 1, 2]);
    assert.deepEqual(
      r.cards.filter((c) => c[5] === -1).map((c) => [c[0], c[1]]),
      [['cloze-3', 2]],
    );
    const six = Object.values(r.models).find((m: any) => m.name === 'Six ways');
    assert.deepEqual(
      six.tmpls.map((x: any) => [x.ord, x.name]),
      (original.models[0].templates as BuildTemplate[]).map((x, ord) => [ord, x.name]),
    );
    assert.equal(Object.values(r.models).find((m: any) => m.name === 'Cloze').type, 1);
    // The review card keeps its interval and its due day.
    const fwd = r.cards.find((c) => c[0] === 'rev-1' && c[1] === 0)!;
    assert.equal(fwd[2], 2);
    assert.equal(fwd[4], 9);
    assert.equal(new Date((r.crt + Number(fwd[3]) * 86_400) * 1000).toISOString().slice(0, 10), dayOf(crt, 3));
  });

  it('importing the export into another library gives the same cards and due dates', async () => {
    const second = (await importBytes(u, exported)).json<any>();
    assert.deepEqual([second.notes, second.created, second.cards], [4, 4, 15]);
    assert.deepEqual(await reviewCards(u, second.deckId), await reviewCards(t, first.deckId));
  });

  it('importing the export again into the first library updates: no new card', async () => {
    const again = (await importBytes(t, exported)).json<any>();
    assert.deepEqual([again.deckId, again.created, again.updated, again.cards], [first.deckId, 0, 4, 15]);
    assert.equal((await t.client.cards.deckCards(first.deckId)).cards.length, 15);
    const tree = await t.client.cards.tree(first.topicid);
    assert.equal(tree.nodes.filter((n: any) => n.level === 2).length, 15);
  });
});

const dayOf = (crt: number, n: number) =>
  new Date((crt + (CRT_DAYS_AGO + n) * 86_400) * 1000).toISOString().slice(0, 10);

describe('Anki notes imported one card per note (before several cards were kept)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it("the note's review card moves to its first card, keeping its history; the other card is added", async () => {
    const crt = crtDaysAgo(CRT_DAYS_AGO);
    const one = (await importBytes(t, await buildApkg(notesPackage(crt, 1)))).json<any>();
    const store = t.bridge.services.store;
    const parlerNote = store.get<{ noteid: string }>("SELECT noteid FROM anki_notes WHERE guid = 'rev-1'")!.noteid;
    // As an older version left it: the one review card on the note's own card, nothing of the note type kept.
    await store.write((tx) => {
      tx.run("DELETE FROM anki_cards WHERE guid = 'rev-1'");
      tx.run("UPDATE anki_notes SET mid = NULL, fields = NULL, text_hash = NULL WHERE guid = 'rev-1'");
    });
    const old = (await t.client.cards.deckCards(one.deckId)).cards.find((c: any) => c.sourceNoteId === parlerNote)!;
    await t.client.request('POST', `/decks/${one.deckId}/reviews`, {
      body: { cardNoteId: old.cardNoteId, rating: 'good', confirm: true },
    });

    const again = (await importBytes(t, await buildApkg(notesPackage(crt)))).json<any>();
    assert.deepEqual([again.deckId, again.created, again.cards], [one.deckId, 0, 15]);
    const cards = (await t.client.cards.deckCards(one.deckId)).cards;
    assert.equal(cards.length, 15);
    assert.equal(
      cards.filter((c: any) => c.sourceNoteId === parlerNote).length,
      0,
      'no review card is left on the note itself',
    );
    const moved = cards.find((c: any) => c.cardNoteId === old.cardNoteId)!;
    const child = store.get<{ parent_id: string; title: string }>(
      'SELECT parent_id, title FROM notes WHERE noteid = ?',
      [moved.sourceNoteId],
    )!;
    assert.deepEqual([child.parent_id, child.title], [parlerNote, 'parler']);
    const logs = store.get<{ n: number }>('SELECT count(*) AS n FROM review_logs WHERE card_note_id = ?', [
      old.cardNoteId,
    ])!.n;
    assert.equal(logs, 1);
  });
});
