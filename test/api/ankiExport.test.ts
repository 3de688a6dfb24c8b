import assert from 'node:assert/strict';
import { storeDigest } from '../helpers/storeDigest';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import {
  cardImagesFixture,
  decode,
  EXCERPT_PAGE,
  makePng,
  VERBATIM,
  type CardImagesFixture,
} from './cardImagesFixture';
import { vocabPackage } from './ankiFixture';

/** Reads an .apkg with the independent reader (anki-reader: zip.js + its own sql.js queries). */
async function readBack(bytes: Buffer) {
  const { readAnkiPackage } = await import('anki-reader');
  const { collection, media } = await readAnkiPackage(new Blob([new Uint8Array(bytes)]));
  const decks = Object.values(collection.getDecks()) as any[];
  const deck = decks.find((d) => Object.keys(d.getCards()).length > 0);
  const cards = deck ? Object.values<any>(deck.getCards()).map((c) => c.cardData) : [];
  const db = collection.getRawCollection();
  const notes = db.exec('SELECT id, guid, mid, tags, flds, csum FROM notes ORDER BY id')[0]?.values ?? [];
  const models = JSON.parse(db.exec('SELECT models FROM col')[0].values[0][0] as string);
  const crt = db.exec('SELECT crt FROM col')[0].values[0][0] as number;
  return { deck, decks, cards, notes, models, crt, db, media };
}

describe('GET /decks/{id}/apkg (read back with anki-reader)', () => {
  let f: CardImagesFixture;
  let deckId: string;
  const ids: Record<string, string> = {};
  before(async function () {
    this.timeout(180_000); // a PDF upload and extraction on a shared machine
    f = await cardImagesFixture();
    ids.excerpt = (await f.create({ excerpt: { bookmd5: f.book, page: EXCERPT_PAGE, text: VERBATIM } })).noteid;
    ids.plain = (await f.create({ title: 'Asymptote', text: 'A vector graphics language <for> figures' })).noteid;
    ids.picture = (await f.create({ title: 'A red square', text: 'see the picture' })).noteid;
    ids.cloze = (await f.create({ title: '2x', text: 'power rule' })).noteid;
    const red = await makePng(30, 20, (ctx) => {
      ctx.fillStyle = '#ff0000';
      ctx.fillRect(0, 0, 30, 20);
    });
    await f.addPart(ids.picture, { kind: 'image', mimeType: 'image/png', blob: red, contentId: 'Pred0001' });
    await f.t.client.request('POST', '/notes/hashtags', {
      body: { noteIds: [ids.plain], operation: 'add', hashtags: ['Tools/Graphics', 'exam'], confirm: true },
    });
    deckId = (await f.t.client.createDeck('Asymptote deck')).deckId;
    await f.t.client.request('POST', `/decks/${deckId}/cards`, {
      body: {
        cards: [
          { sourceNoteId: ids.excerpt },
          { sourceNoteId: ids.plain },
          { sourceNoteId: ids.picture },
          { sourceNoteId: ids.cloze, question: 'The derivative of x² is {{cloze}}' },
        ],
        confirm: true,
      },
    });
  });
  after(() => f?.t.stop());

  const exportDeck = async (t: TestBridge, id: string) => {
    const res = await t.client.raw('GET', `/decks/${id}/apkg`);
    assert.equal(res.status, 200, res.text().slice(0, 300));
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="Asymptote deck\.apkg"/);
    return res.bytes;
  };

  it("every card, its fields, tags, media and a graded card's review state", async () => {
    const cards = (await f.t.client.cards.deckCards(deckId)).cards;
    const graded = cards.find((c: any) => c.sourceNoteId === ids.plain)!;
    // Easy on a new card graduates it at once (FSRS): a review card with a memory state.
    const g = await f.t.client.reviews.grade(deckId, { cardNoteId: graded.cardNoteId, rating: 'easy' });
    const after = (await f.t.client.cards.deckCards(deckId)).cards.find(
      (c: any) => c.cardNoteId === graded.cardNoteId,
    )!;
    assert.ok(g);
    assert.equal(after.state, 'review');

    const r = await readBack(await exportDeck(f.t, deckId));
    assert.equal(r.deck.getRawDeck().name, 'Asymptote deck');
    assert.equal(r.cards.length, 4);
    assert.equal(r.notes.length, 4);
    const byFront = new Map(r.notes.map((n: any[]) => [String(n[4]).split('\x1f')[0], n]));
    const plain = byFront.get('Asymptote')!;
    assert.equal(String(plain[4]).split('\x1f')[1], 'A vector graphics language &lt;for&gt; figures');
    assert.equal(plain[3], ' Tools::Graphics exam ');
    assert.equal(r.models[String(plain[2])].type, 0);
    const cloze = r.notes.find((n: any[]) => String(n[4]).startsWith('The derivative'))!;
    assert.equal(String(cloze[4]).split('\x1f')[0], 'The derivative of x² is {{c1::2x}}');
    assert.equal(r.models[String(cloze[2])].type, 1);
    // Media: the excerpt region drawn as a PNG, the stored picture as it is.
    const names = Object.keys(r.media).sort();
    assert.equal(names.length, 2);
    const red = await decode(Buffer.from(await r.media['sb-Pred0001.png'].arrayBuffer()));
    assert.deepEqual([red.width, red.height], [30, 20]);
    const excerptName = names.find((n) => n.startsWith('sb-excerpt-'))!;
    const excerpt = await decode(Buffer.from(await r.media[excerptName].arrayBuffer()));
    assert.ok(excerpt.width > 100 && excerpt.height > 10);
    const excerptNote = r.notes.find((n: any[]) => String(n[4]).includes(excerptName))!;
    assert.ok(String(excerptNote[4]).includes(`<img src="${excerptName}">`));
    // The graded card: review state, due day, interval, reps and the FSRS memory state in data.
    const card = r.cards.find((c: any) => c.nid === plain[0])!;
    assert.equal(card.type, 2);
    assert.equal(card.queue, 2);
    assert.equal(card.reps, 1);
    assert.equal(card.lapses, 0);
    assert.equal(
      card.ivl,
      Math.round(
        JSON.parse(
          f.t.bridge.services.store.get<{ fsrs: string }>('SELECT fsrs FROM deck_cards WHERE card_note_id = ?', [
            graded.cardNoteId,
          ])!.fsrs,
        ).scheduled_days,
      ),
    );
    assert.equal(r.crt + card.due * 86400, Math.floor(Date.parse(after.due) / 86_400_000) * 86400);
    const data = JSON.parse(card.data);
    assert.ok(Math.abs(data.s - after.stability) < 1e-3 && Math.abs(data.d - after.difficulty) < 1e-3);
    // The grade is in Anki's revlog: ease 4 (easy), the interval it gave, learn type (the card was new).
    const revlog = r.db.exec(`SELECT ease, ivl, type FROM revlog WHERE cid = ${card.id}`)[0]?.values ?? [];
    assert.deepEqual(revlog, [[4, card.ivl, 0]]);
    const fresh = r.cards.find((c: any) => c.nid !== plain[0] && c.type === 0);
    assert.ok(fresh && fresh.queue === 0 && fresh.ivl === 0);
  });

  it('the same card keeps its guid from one export to the next (Anki updates instead of duplicating)', async () => {
    const a = await readBack(await exportDeck(f.t, deckId));
    const b = await readBack(await exportDeck(f.t, deckId));
    assert.deepEqual(a.notes.map((n: any[]) => n[1]).sort(), b.notes.map((n: any[]) => n[1]).sort());
    assert.equal(new Set(a.notes.map((n: any[]) => n[1])).size, 4);
    assert.deepEqual(a.deck.getId(), b.deck.getId());
  });

  it('an unknown deck → 404, a study set → 422 NOT_A_DECK; nothing changed', async () => {
    const before = storeDigest(f.t.bridge.services.store);
    const res = await f.t.client.raw('GET', '/decks/11111111-2222-4333-8444-555555555555/apkg');
    assert.equal(res.status, 404);
    assert.equal(res.json<any>().error.code, 'TOPIC_NOT_FOUND');
    const set = await f.t.client.raw('GET', `/decks/${f.setId}/apkg`);
    assert.equal(set.status, 422);
    assert.equal(set.json<any>().error.code, 'NOT_A_DECK');
    assert.equal(storeDigest(f.t.bridge.services.store), before);
  });
});

describe('Anki round trip: import → export → import', () => {
  let t: TestBridge;
  let u: TestBridge;
  before(async () => {
    t = await startBridge();
    u = await startBridge();
  });
  after(async () => {
    await t.stop();
    await u.stop();
  });

  const summary = async (b: TestBridge, deckId: string) => {
    const cards = (await b.client.cards.deckCards(deckId)).cards;
    const notes = (await b.client.cards.batchGet(cards.map((c: any) => c.sourceNoteId))).notes;
    const byId = new Map(notes.map((n) => [n.noteid, n]));
    return cards
      .map((c: any) => {
        const n = byId.get(c.sourceNoteId)!;
        return {
          title: n.title,
          body: n.texts.find((x) => x.index === 0)?.text ?? '',
          tags: n.hashtagPaths.map((h) => h.path).sort(),
          images: n.parts.filter((p) => p.kind === 'image').length,
          state: c.state,
          dueDay: c.state === 'new' ? 'new' : c.due.slice(0, 10),
          reps: c.reps,
          stability: c.state === 'new' ? 0 : Math.round(c.stability * 1000),
          question: c.question ?? null,
        };
      })
      .sort((a: any, b: any) => a.title.localeCompare(b.title));
  };

  it('gives the same cards and due dates, and re-importing the export updates rather than duplicates', async () => {
    const { bytes } = await vocabPackage();
    const first = (
      await t.client.raw('POST', '/decks/import', { bytes, query: { filename: 'Spanish.apkg', confirm: 1 } })
    ).json<any>();
    const exported = await t.client.raw('GET', `/decks/${first.deckId}/apkg`);
    assert.equal(exported.status, 200);
    // Into another library: the same cards, due dates and pictures.
    const second = (
      await u.client.raw('POST', '/decks/import', {
        bytes: exported.bytes,
        query: { filename: 'Spanish.apkg', confirm: 1 },
      })
    ).json<any>();
    assert.equal(second.created, 4);
    assert.deepEqual(await summary(u, second.deckId), await summary(t, first.deckId));
    // Back into the first library: the guids it came with → updates the same set and deck.
    const before = (await t.client.listDecks()).length;
    const again = (
      await t.client.raw('POST', '/decks/import', {
        bytes: exported.bytes,
        query: { filename: 'Spanish.apkg', confirm: 1 },
      })
    ).json<any>();
    assert.equal(again.deckId, first.deckId);
    assert.equal(again.topicid, first.topicid);
    assert.equal(again.created, 0);
    assert.equal(again.updated, 4);
    assert.equal((await t.client.listDecks()).length, before);
    assert.equal((await t.client.cards.deckCards(first.deckId)).cards.length, 5);
  });
});
