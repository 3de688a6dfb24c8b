// What "Go to Card…" lists (src/views/excerptCards.ts): the excerpt cards of the
// library, of one set, or of one card's subtree, each with its book and page,
// read from a real bridge with the person's token, as the extension does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { listExcerptCards } from '../../src/views/excerptCards';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { corpusFile } from '../unit/pdfCorpus';

/** A line of the page the excerpt anchoring can place: plain prose, not too short. */
async function proseLine(t: TestBridge, bookmd5: string, page: number): Promise<string> {
  const text = (await t.client.pages(bookmd5, page)).pages[0].text;
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length >= 40 && l.length <= 140 && /^[A-Z][a-z]/.test(l) && !/[{}\\$_]/.test(l));
  assert.ok(line, `a prose line on page ${page}`);
  return line;
}

describe('Go to Card: the excerpt cards listed with their book and page', function () {
  this.timeout(90_000);
  let t: TestBridge;
  let a: { topicid: string };
  let b: { topicid: string };
  let bookmd5: string;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startBridge();
    a = await t.client.createStudySet('Asymptote notes');
    b = await t.client.createStudySet('Another look');
    bookmd5 = (
      await t.client.uploadDocument(readFileSync(corpusFile('asymptote.pdf')), {
        filename: 'asymptote.pdf',
        topicid: a.topicid,
      })
    ).bookmd5;
    await t.client.addDocumentToStudySet(b.topicid, bookmd5);
    const topic = await t.client.cards.create(a.topicid, { title: 'Drawing basics' });
    ids.topic = topic.noteid;
    ids.plain = (await t.client.cards.create(a.topicid, { title: 'No source here' })).noteid;
    ids.p12 = (
      await t.client.cards.create(a.topicid, {
        title: 'What Asymptote draws',
        parentNoteId: topic.noteid,
        excerpt: { bookmd5, page: 12, text: await proseLine(t, bookmd5, 12) },
      })
    ).noteid;
    ids.p20 = (
      await t.client.cards.create(a.topicid, {
        title: 'Page twenty',
        excerpt: { bookmd5, page: 20, text: await proseLine(t, bookmd5, 20) },
      })
    ).noteid;
    ids.b15 = (
      await t.client.cards.create(b.topicid, {
        title: 'From the other set',
        excerpt: { bookmd5, page: 15, text: await proseLine(t, bookmd5, 15) },
      })
    ).noteid;
  });
  after(() => t.stop());

  it('the whole library: sets by title, tree order within a set, only cards with a place in a book, each at its anchor', async () => {
    const cards = await listExcerptCards(t.owner);
    assert.deepEqual(
      cards.map((c) => [c.setTitle, c.title, c.filename, c.page]),
      [
        ['Another look', 'From the other set', 'asymptote.pdf', 15],
        ['Asymptote notes', 'What Asymptote draws', 'asymptote.pdf', 12],
        ['Asymptote notes', 'Page twenty', 'asymptote.pdf', 20],
      ],
    );
    // Book and page are the cards' own anchors (batch-get), not the tree's guess.
    const { notes } = await t.owner.cards.batchGet(cards.map((c) => c.noteid));
    for (const c of cards) {
      const anchor = notes.find((n) => n.noteid === c.noteid)!.sourceAnchor;
      assert.deepEqual([c.bookmd5, c.page], [anchor.bookmd5, anchor.page]);
      assert.equal(c.bookmd5, bookmd5);
    }
    assert.ok(
      !cards.some((c) => c.noteid === ids.plain || c.noteid === ids.topic),
      'cards without an excerpt are not listed',
    );
  });

  it("one set's cards; one card's subtree (itself and below); a card with no excerpt below lists nothing", async () => {
    assert.deepEqual(
      (await listExcerptCards(t.owner, { topicid: a.topicid })).map((c) => c.noteid),
      [ids.p12, ids.p20],
    );
    assert.deepEqual(
      (await listExcerptCards(t.owner, { topicid: b.topicid })).map((c) => c.noteid),
      [ids.b15],
    );
    assert.deepEqual(
      (await listExcerptCards(t.owner, { topicid: a.topicid, under: ids.topic })).map((c) => c.noteid),
      [ids.p12],
    );
    assert.deepEqual(
      (await listExcerptCards(t.owner, { topicid: a.topicid, under: ids.p20 })).map((c) => [c.noteid, c.page]),
      [[ids.p20, 20]],
    );
    assert.deepEqual(await listExcerptCards(t.owner, { topicid: a.topicid, under: ids.plain }), []);
  });

  it('a card whose book left its set lost its place in the book: it is no longer listed (the others stay)', async () => {
    await t.client.request('POST', `/study-sets/${b.topicid}/documents/${bookmd5}/delete`, { body: { confirm: true } });
    assert.deepEqual(await listExcerptCards(t.owner, { topicid: b.topicid }), []);
    assert.deepEqual(
      (await listExcerptCards(t.owner)).map((c) => c.noteid),
      [ids.p12, ids.p20],
    );
  });
});
