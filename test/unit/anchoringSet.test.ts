import assert from 'node:assert/strict';
import { ACCEPT_SCORE } from '../../src/server/ground/text/align';
import { curve, scoreSet, type Scored } from '../anchoring/evaluate';
import { labelledSet, type LabelledSet } from '../anchoring/labelledSet';

describe('anchoring: the labelled set (quotes of another extractor vs shuffled, paraphrased and invented sentences)', function () {
  this.timeout(600_000);
  let set: LabelledSet;
  let scored: Scored[];

  before(async () => {
    set = await labelledSet();
    scored = scoreSet(set);
  });

  it('holds ≥ 280 quotes of pdftotext (reading order, -layout, -raw) and of the pdf.js text layer over corpus books and made layouts, and ≥ 300 negatives', () => {
    const pos = set.quotes.filter((q) => q.positive);
    const neg = set.quotes.filter((q) => !q.positive);
    assert.ok(pos.length >= 280, String(pos.length));
    assert.ok(neg.length >= 300, String(neg.length));
    for (const kind of ['pdftotext', 'layout', 'raw', 'pdfjs', 'shuffled', 'paraphrase', 'invented'])
      assert.ok(set.quotes.filter((q) => q.kind === kind).length >= 90, kind);
    for (const book of ['two-columns.pdf', 'code-blocks.pdf', 'side-notes.pdf', 'asymptote.pdf', '4ti2_manual.pdf'])
      assert.ok(
        pos.some((q) => q.book === book),
        book,
      );
    assert.ok(neg.filter((q) => q.kind === 'shuffled').length >= 120);
  });

  it('at the chosen threshold: ≥ 99 % anchored and located, 0 false anchors', () => {
    const [at] = curve(scored, [ACCEPT_SCORE]);
    const misses = scored
      .filter((s) => s.quote.positive && !(s.anchor >= ACCEPT_SCORE && s.rightPage))
      .map((s) => `${s.quote.book} p${s.quote.page} ${s.anchor}: ${s.quote.text}`);
    assert.ok(at.anchorPct >= 99, `${at.anchorPct} %: ${misses.join(' | ')}`);
    assert.ok(at.locatePct >= 99, String(at.locatePct));
    const falses = scored
      .filter((s) => !s.quote.positive && Math.max(s.anchor, s.locate) >= ACCEPT_SCORE)
      .map((s) => `${s.quote.kind} ${s.locate}: ${s.quote.text}`);
    assert.deepEqual(falses, []);
  });

  it('the threshold has room: no negative scores within 0.05 below it, and the curve is monotone', () => {
    const c = curve(scored, [0.5, 0.6, 0.7, 0.75, ACCEPT_SCORE, 0.85, 0.9]);
    for (let i = 1; i < c.length; i++) {
      assert.ok(c[i].anchorPct <= c[i - 1].anchorPct && c[i].falseAnchor <= c[i - 1].falseAnchor);
    }
    assert.equal(
      curve(scored, [ACCEPT_SCORE - 0.05])[0].falseAnchor,
      0,
      'a negative scores within 0.05 of the threshold',
    );
  });
});
