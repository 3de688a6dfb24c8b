import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { decode } from './cardImagesFixture';
import { CRT_DAYS_AGO, FSRS_DATA, REVIEW_DUE_DAY, REVIEW_IVL, vocabPackage } from './ankiFixture';
import { buildNewerApkg } from '../helpers/ankiPackageBuilder';

const importApkg = (
  t: TestBridge,
  bytes: Uint8Array,
  query: Record<string, string | number> = { filename: 'Spanish.apkg', confirm: 1 },
) => t.client.raw('POST', '/decks/import', { bytes, query });

describe('POST /decks/import (an Anki package laid out as Anki writes it)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('without confirm=1 → 422 with a preview of what it would create; nothing written', async () => {
    const { bytes } = await vocabPackage();
    const before = storeDigest(t.bridge.services.store);
    const res = await importApkg(t, bytes, { filename: 'Spanish.apkg' });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.equal(err.details.dryRun, true);
    assert.deepEqual(err.details.wouldCreate, {
      studySetTitle: 'Spanish / Vocab',
      deckTitle: 'Spanish / Vocab',
      notes: 4,
      cards: 5,
      media: 2,
    });
    assert.equal(err.details.wouldUpdate, 0);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('imports notes as cards (fields, pictures, hashtags) and cards as review cards with their scheduling', async () => {
    const { bytes, crt, pictures } = await vocabPackage();
    const res = await importApkg(t, bytes);
    assert.equal(res.status, 200, res.text());
    const r = res.json<any>();
    assert.equal(r.notes, 4);
    assert.equal(r.created, 4);
    assert.equal(r.updated, 0);
    assert.equal(r.cards, 5);
    assert.equal(r.media, 2);
    assert.deepEqual(r.skipped, []);

    const sets = await t.client.listStudySets();
    const set = sets.find((s) => s.topicid === r.topicid)!;
    assert.equal(set.title, 'Spanish / Vocab');
    const tree = await t.client.cards.tree(r.topicid);
    const top = tree.nodes.filter((n: any) => n.level === 1);
    assert.deepEqual(
      top.map((n: any) => n.title),
      ['el gato', 'el perro', 'hablar', 'La capital de España es Madrid.'],
    );
    // The Basic-and-reversed note: one child card per direction, each reviewed on its own.
    const hablar = top[2].noteid;
    assert.deepEqual(
      tree.nodes.filter((n: any) => n.parent === hablar).map((n: any) => n.title),
      ['hablar', 'to speak'],
    );

    const ids = top.map((n: any) => n.noteid);
    const notes = (await t.client.cards.batchGet(ids)).notes;
    const gato = notes[0];
    assert.equal(gato.texts.find((x) => x.index === 0)?.text, 'the cat\n\nExample: El gato duerme.\nThe cat sleeps.');
    assert.deepEqual(gato.hashtagPaths.map((h) => h.path).sort(), ['Lang/Spanish/Nouns', 'core']);
    const gatoPic = gato.parts.find((p) => p.kind === 'image')!;
    assert.equal(gatoPic.mimeType, 'image/png');
    const png = await t.client.raw('GET', `/notes/${gato.noteid}/content/${gatoPic.contentId}`);
    assert.equal(png.status, 200);
    const decoded = await decode(png.bytes);
    assert.deepEqual([decoded.width, decoded.height], [64, 48]);
    assert.deepEqual([decoded.rgba[0], decoded.rgba[1], decoded.rgba[2]], [0xd0, 0x40, 0x20]);
    // A name written URL-encoded in the field (perro%201.png) finds its file.
    const perroPic = notes[1].parts.find((p) => p.kind === 'image')!;
    const perro = await decode(
      (await t.client.raw('GET', `/notes/${notes[1].noteid}/content/${perroPic.contentId}`)).bytes,
    );
    assert.deepEqual([perro.width, perro.height], [40, 80]);
    assert.ok(pictures['perro 1.png']);

    const deck = (await t.client.listDecks()).find((d) => d.deckId === r.deckId)!;
    assert.equal(deck.title, 'Spanish / Vocab');
    assert.equal(deck.cardCount, 5);
    assert.equal(deck.newCount, 4);
    const cards = (await t.client.cards.deckCards(r.deckId)).cards;
    const reviewed = cards.find((c: any) => c.sourceNoteId === gato.noteid)!;
    assert.equal(reviewed.state, 'review');
    assert.equal(reviewed.due, new Date((crt + REVIEW_DUE_DAY * 86400) * 1000).toISOString());
    // crt is a day's start, so `due` is that many days from now less the part of today gone by: ceil, not round
    // (round failed every afternoon, UTC).
    assert.equal(Math.ceil((Date.parse(reviewed.due) - Date.now()) / 86_400_000), REVIEW_DUE_DAY - CRT_DAYS_AGO);
    assert.equal(reviewed.stability, FSRS_DATA.s);
    assert.equal(reviewed.difficulty, FSRS_DATA.d);
    assert.equal(reviewed.reps, 5);
    assert.equal(reviewed.lapses, 1);
    assert.equal(reviewed.lastReviewAt, new Date((crt + 25 * 86400) * 1000).toISOString());
    const fsrs = JSON.parse(
      t.bridge.services.store.get<{ fsrs: string }>('SELECT fsrs FROM deck_cards WHERE card_note_id = ?', [
        reviewed.cardNoteId,
      ])!.fsrs,
    );
    assert.equal(fsrs.scheduled_days, REVIEW_IVL);
    const fresh = cards.find((c: any) => c.sourceNoteId === notes[1].noteid)!;
    assert.equal(fresh.state, 'new');
    assert.ok(Date.parse(fresh.due) <= Date.now());
    const cloze = cards.find((c: any) => c.sourceNoteId === notes[3].noteid)!;
    assert.equal(cloze.questionMode, 'custom_text');
    assert.equal(cloze.question, 'La capital de España es {{c1::Madrid}}.');
    // In review the Anki cloze is hidden like ours.
    const due = await t.client.reviews.due(r.deckId);
    assert.ok(
      due.cards.some((c: any) => c.question.text === 'La capital de España es […].'),
      JSON.stringify(due.cards.map((c: any) => c.question.text)),
    );
  });

  it('the same package again updates by note guid: no new cards, no new deck', async () => {
    const decksBefore = (await t.client.listDecks()).length;
    const setsBefore = (await t.client.listStudySets()).length;
    const { bytes } = await vocabPackage();
    const preview = (await importApkg(t, bytes, { filename: 'Spanish.apkg' })).json<any>().error.details;
    assert.equal(preview.wouldUpdate, 4);
    assert.equal(preview.wouldCreate.notes, 0);
    const r = (await importApkg(t, bytes)).json<any>();
    assert.equal(r.created, 0);
    assert.equal(r.updated, 4);
    assert.equal((await t.client.listDecks()).length, decksBefore);
    assert.equal((await t.client.listStudySets()).length, setsBefore);
    const tree = await t.client.cards.tree(r.topicid);
    assert.equal(tree.nodes.filter((n: any) => n.parent !== null).length, 6);
    const deck = (await t.client.listDecks()).find((d) => d.deckId === r.deckId)!;
    assert.equal(deck.cardCount, 5);
    // Pictures are replaced, not piled up.
    const ids = tree.nodes.filter((n: any) => n.level === 1).map((n: any) => n.noteid);
    const notes = (await t.client.cards.batchGet(ids)).notes;
    assert.equal(notes[0].parts.filter((p) => p.kind === 'image').length, 1);
  });

  it('reads the newer format too (collection.anki21b: zstd, note types in tables, protobuf media list, zstd media)', async () => {
    const { pkg } = await vocabPackage();
    const other = await startBridge();
    try {
      const res = await other.client.raw('POST', '/decks/import', {
        bytes: await buildNewerApkg(pkg),
        query: { filename: 'Spanish.apkg', confirm: 1 },
      });
      assert.equal(res.status, 200, res.text());
      const r = res.json<any>();
      assert.deepEqual([r.notes, r.created, r.cards, r.media], [4, 4, 5, 2]);
      const deck = (await other.client.listDecks()).find((d) => d.deckId === r.deckId)!;
      assert.equal(deck.title, 'Spanish / Vocab');
      const cards = (await other.client.cards.deckCards(r.deckId)).cards;
      const reviewed = cards.find((c: any) => c.state === 'review')!;
      assert.equal(reviewed.stability, FSRS_DATA.s);
      assert.equal(
        cards.find((c: any) => c.questionMode === 'custom_text')?.question,
        'La capital de España es {{c1::Madrid}}.',
      );
      const notes = (await other.client.cards.batchGet(cards.map((c: any) => c.sourceNoteId))).notes;
      const pic = notes.find((n) => n.title === 'el gato')!.parts.find((p) => p.kind === 'image')!;
      const png = await decode(
        (
          await other.client.raw(
            'GET',
            `/notes/${notes.find((n) => n.title === 'el gato')!.noteid}/content/${pic.contentId}`,
          )
        ).bytes,
      );
      assert.deepEqual([png.width, png.height], [64, 48]);
    } finally {
      await other.stop();
    }
  });
});
