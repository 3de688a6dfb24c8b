import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { isProse, pdftotextPage, shuffle } from '../anchoring/labelledSet';
import { INVENTED, paraphrase } from '../anchoring/negatives';
import { rng } from '../anchoring/rng';
import { corpusFile } from '../unit/pdfCorpus';
import { foldKey } from '../../src/server/ground/text/fold';
import { tokenize } from '../../src/server/ground/text/tokenize';
import { upload } from './documentsFixture';
import { pollPrepared } from './bundlesFixture';

/**
 * Bundle check and submit on part of the labelled anchoring set: quotes
 * pdftotext (reading order and -layout) takes from the 4ti2 manual's pages,
 * against shuffled, paraphrased and invented sentences, over HTTP.
 */

type Box = { x: number; y: number; width: number; height: number };
interface CheckExcerpt {
  line: number;
  anchored: boolean;
  page?: number;
  rect?: Box;
  rects?: Box[];
  reason?: string;
}

const FIRST = 3;
const LAST = 30;

/** Every token of the quote is in our text of the page (else a miss would be the text layer's, not the matcher's). */
function wordsOnPage(pageText: string, quote: string): boolean {
  const have = new Map<string, number>();
  for (const t of tokenize(pageText)) have.set(t.key, (have.get(t.key) ?? 0) + 1);
  return tokenize(quote).every((t) => {
    const n = have.get(t.key) ?? 0;
    have.set(t.key, n - 1);
    return n > 0;
  });
}

const union = (rs: Box[]) => {
  const x = Math.min(...rs.map((r) => r.x));
  const y = Math.min(...rs.map((r) => r.y));
  return [x, y, Math.max(...rs.map((r) => r.x + r.width)) - x, Math.max(...rs.map((r) => r.y + r.height)) - y].map(
    (v) => Math.round(v),
  );
};

describe('bundles: check and submit on the labelled anchoring set', function () {
  this.timeout(240_000);
  let t: TestBridge;
  after(async () => t?.stop());

  it('quotes of another extractor anchor on their page with one rect per line; shuffled, paraphrased and invented ones do not', async () => {
    // pdftotext first: its synchronous runs would stall the in-process bridge's keep-alive timers mid-test.
    const random = rng(2017);
    const windows: { page: number; text: string }[] = [];
    for (let page = FIRST; page <= LAST; page++) {
      for (const args of [[], ['-layout']]) {
        const words = pdftotextPage(corpusFile('4ti2_manual.pdf'), page, args).split(/\s+/).filter(Boolean);
        if (words.length < 40) continue;
        for (let k = 0; k < 2; k++) {
          const at = Math.floor(random() * (words.length - 14));
          windows.push({ page, text: words.slice(at, at + 14).join(' ') });
        }
      }
    }
    t = await startBridge();
    const book = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    const topicid = (await t.client.createStudySet('Anchoring')).topicid;
    await t.client.addDocumentToStudySet(topicid, book);
    const prep = await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
      body: {
        topicid,
        bookmd5: book,
        segments: [{ startPage: FIRST, endPage: LAST }],
        anchorMode: 'page_text',
        async: true,
      },
    });
    await pollPrepared(t, prep.bundleId);
    const source = JSON.parse(
      (await t.client.raw('GET', `/bundles/${prep.bundleId}/files`, { query: { path: 'source.json' } })).text(),
    ) as { pages: { page: number; text: string }[] };
    const textOf = new Map(source.pages.map((p) => [p.page, p.text]));
    // Windows of 40+ letters and digits (a run of table digits is on many pages), all of whose words our text layer has.
    const positives = windows.filter(
      (q) => !/[[\]]/.test(q.text) && foldKey(q.text).length >= 40 && wordsOnPage(textOf.get(q.page) ?? '', q.text),
    );
    const prose = positives.filter((q) => isProse(q.text));
    const negatives = [
      ...prose.slice(0, 15).map((q) => shuffle(q.text.split(' '), random).join(' ')),
      ...prose.slice(0, 15).map((q) => paraphrase(q.text, random)),
      ...INVENTED.slice(0, 15),
    ];
    assert.ok(positives.length >= 40 && negatives.length >= 40, `${positives.length} / ${negatives.length}`);
    const all = [...positives.map((q) => q.text), ...negatives];
    const md = all.map((text, i) => `## Card ${i}\n[excerpt: ${text}]\n`).join('\n');

    const check = await t.client.request<{
      excerpts: CheckExcerpt[];
      parsed: { excerptsTotal: number; excerptsAnchored: number };
    }>('POST', `/bundles/${prep.bundleId}/check`, { body: { resultMarkdown: md } });
    assert.equal(check.excerpts.length, all.length);
    const pos = check.excerpts.slice(0, positives.length);
    const neg = check.excerpts.slice(positives.length);
    const misses = pos.map((e, i) => [e, positives[i]] as const).filter(([e, q]) => !(e.anchored && e.page === q.page));
    assert.ok(
      misses.length <= Math.floor(positives.length / 100),
      misses.map(([e, q]) => `p${q.page} ${e.reason ?? e.page}: ${q.text}`).join(' | '),
    );
    assert.deepEqual(
      neg.filter((e) => e.anchored).map((e) => all[positives.length + neg.indexOf(e)]),
      [],
      'no false anchor',
    );
    // One rect per line, rect their union; quotes of 14 words mostly span two lines.
    for (const e of pos.filter((x) => x.anchored)) assert.deepEqual(union(e.rects!), union([e.rect!]));
    assert.ok(pos.filter((e) => (e.rects?.length ?? 0) >= 2).length >= positives.length / 3);

    const receipt = await t.client.request<{ parsed: { excerptsAnchored: number } }>(
      'POST',
      `/bundles/${prep.bundleId}/submit`,
      { body: { resultMarkdown: md } },
    );
    assert.equal(receipt.parsed.excerptsAnchored, check.parsed.excerptsAnchored, 'submit anchors as check did');
    const tree = await t.client.request<{ nodes: { noteid: string; hasExcerpt: boolean; page: number | null }[] }>(
      'GET',
      `/study-sets/${topicid}/tree`,
    );
    const anchored = tree.nodes.filter((n) => n.hasExcerpt && n.page !== null);
    assert.equal(anchored.length, check.parsed.excerptsAnchored);
    const got = await t.client.request<{
      notes: { texts: { text: string }[]; sourceAnchor: { page: number; rect: Box; rects: Box[] } }[];
    }>('POST', '/notes/batch-get', { body: { noteIds: anchored.slice(0, 200).map((n) => n.noteid) } });
    for (const n of got.notes) {
      const i = all.indexOf(n.texts[0].text);
      const e = check.excerpts[i];
      assert.deepEqual(n.sourceAnchor.rects, e.rects, 'stored rects are the ones check answered');
      assert.deepEqual(n.sourceAnchor.rect, e.rect);
    }
  });
});
