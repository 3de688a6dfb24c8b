import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';
import { pollPrepared } from './bundlesFixture';

/** Whole sentences of a page's text (capital start, full stop end, 50..220 characters, no formulas). */
const sentences = (text: string) => (text.match(/[A-Z][^.!?]{48,218}[.]/g) ?? []).filter((s) => !/[=;{}\\$]/.test(s));

describe('bundles: the receipt counts every card it made, as check predicted (#18 §3)', function () {
  this.timeout(240_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('asymptote pp. 70–80 (mid-chapter): the draft is a valid outline; check cardsCreated = submit cardsCreated = cards in the tree, excerpt children included', async () => {
    const topicid = (await t.client.createStudySet('Asymptote functions')).topicid;
    const bookmd5 = (await upload(t, 'asymptote.pdf', { topicid })).bookmd5;
    const prep = await t.client.raw('POST', '/bundles/prepare', {
      body: {
        topicid,
        bookmd5,
        segments: [{ startPage: 70, endPage: 80 }],
        preset: 'book-breakdown',
        anchorMode: 'page_text',
        async: true,
      },
    });
    assert.equal(prep.status, 202);
    const { bundleId } = prep.json<{ bundleId: string }>();
    assert.equal((await pollPrepared(t, bundleId)).state, 'prepared');
    const file = async (path: string) =>
      (await t.client.raw('GET', `/bundles/${bundleId}/files`, { query: { path } })).text();

    // The draft: the chapter and section the range starts in, then the sections inside; no orphan deeper heading.
    const draft = await file('result.md');
    const heads = draft.split('\n').filter((l) => l.startsWith('#'));
    assert.deepEqual(heads.slice(0, 3), ['# 6 Programming', '## Functions', '### Default arguments']);
    let prev = 0;
    for (const h of heads) {
      const depth = h.indexOf(' ');
      assert.ok(depth <= prev + 1, `${h} after level ${prev}`);
      prev = depth;
    }

    // result.md: the draft's headings, each with verbatim sentences of the pages, one heading merged into another.
    const pages = (JSON.parse(await file('source.json')) as { pages: { text: string }[] }).pages;
    const quotes = pages.flatMap((p) => sentences(p.text)).slice(0, heads.length * 3);
    assert.ok(quotes.length >= heads.length * 2, `${quotes.length} sentences`);
    const lines: string[] = [];
    heads.forEach((h, i) =>
      lines.push(
        h,
        i === 0 ? 'The chapter in my own words.' : '',
        ...quotes.filter((_, q) => q % heads.length === i).map((q) => `[excerpt: ${q}]`),
        '',
      ),
    );
    lines.push('## [[Functions]]', 'Merged into the Functions card.', `[excerpt: ${quotes[0]}]`, '');
    const resultMarkdown = lines.join('\n');
    const excerpts = quotes.length + 1;

    const check = await t.client.call('POST /bundles/{id}/check', {
      params: { id: bundleId },
      body: { resultMarkdown, excerptMode: 'child' },
    });
    assert.equal(
      check.parsed.excerptsAnchored,
      excerpts,
      JSON.stringify(check.excerpts.filter((e) => !e.anchored)).slice(0, 500),
    );
    assert.equal(check.parsed.headings, heads.length + 1);
    // The root, one card per heading but the merged one, and one child card per excerpt: more than the headings alone.
    assert.equal(check.cardsCreated, 1 + heads.length + excerpts);
    assert.equal(check.cardsCreated, check.tree.length);
    assert.ok(
      check.cardsCreated > check.parsed.importedCards * 2,
      `${check.cardsCreated} vs ${check.parsed.importedCards}`,
    );
    const linked = await t.client.call('POST /bundles/{id}/check', {
      params: { id: bundleId },
      body: { resultMarkdown, excerptMode: 'link' },
    });
    assert.equal(linked.cardsCreated, 1 + heads.length, 'link: excerpts go into their cards');

    const count = async (rootNoteId: string) =>
      (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid }, query: { root: rootNoteId } }))
        .count;
    const submit = await t.client.call('POST /bundles/{id}/submit', {
      params: { id: bundleId },
      body: { resultMarkdown, excerptMode: 'child' },
    });
    assert.equal(submit.persisted, true);
    assert.equal(submit.cardsCreated, check.cardsCreated);
    assert.equal(submit.receipt.length, submit.cardsCreated);
    assert.equal(await count(submit.rootNoteId), submit.cardsCreated, 'cards actually present under the import root');
    const excerptCards = (
      await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid }, query: { root: submit.rootNoteId } })
    ).nodes.filter((n) => n.title === '');
    assert.equal(excerptCards.length, excerpts, 'one untitled excerpt card per excerpt');

    // Again with blanks: check and submit agree, and the replaced tree holds exactly that many.
    const blanks = await t.client.call('POST /bundles/{id}/check', {
      params: { id: bundleId },
      body: { resultMarkdown, excerptMode: 'child', withBlank: true },
    });
    assert.equal(blanks.cardsCreated, check.cardsCreated + excerpts);
    const again = await t.client.call('POST /bundles/{id}/submit', {
      params: { id: bundleId },
      body: { resultMarkdown, excerptMode: 'child', withBlank: true },
    });
    assert.deepEqual(
      [again.replaced, again.cardsCreated, again.blankInsertion?.created],
      [true, blanks.cardsCreated, excerpts],
    );
    assert.equal(await count(again.rootNoteId), again.cardsCreated);
  });
});
