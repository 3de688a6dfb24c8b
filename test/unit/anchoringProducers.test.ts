import assert from 'node:assert/strict';
import { producerBooks, type ProducerBook } from '../anchoring/producers';
import { producerQuotes, scoreProducers, type ProducerQuote } from '../anchoring/producerSet';

describe('anchoring: no false anchors on books of five producers (pdfTeX, groff, Chromium, LibreOffice, pdf-lib)', function () {
  this.timeout(900_000);
  let books: ProducerBook[];
  let quotes: ProducerQuote[];

  before(async () => {
    books = await producerBooks();
    quotes = producerQuotes(books);
  });

  it('holds books of each producer, and ≥ 50 shuffled sentences of each', () => {
    const producers = new Set(books.map((b) => b.producer.split(/\s|-\d/)[0]));
    for (const p of ['pdfTeX', 'gropdf', 'Skia/PDF', 'pdf-lib'])
      assert.ok(producers.has(p), `${p} in ${[...producers].join(', ')}`);
    for (const p of new Set(books.map((b) => b.producer)))
      assert.ok(quotes.filter((q) => q.producer === p && !q.positive).length >= 50, p);
  });

  it('0 false anchors; ≥ 99 % of the quotes anchored on their page', () => {
    const scores = scoreProducers(books, quotes);
    for (const s of scores)
      console.log(
        `      ${s.producer}: ${s.anchored}/${s.positives} anchored (${((100 * s.anchored) / s.positives).toFixed(1)} %), ${s.falseAnchors.length}/${s.negatives} false anchors`,
      );
    const pos = scores.reduce((n, s) => n + s.positives, 0);
    const anchored = scores.reduce((n, s) => n + s.anchored, 0);
    assert.deepEqual(
      scores.flatMap((s) => s.falseAnchors),
      [],
    );
    assert.ok(anchored >= pos * 0.99, `${anchored}/${pos}`);
  });
});
