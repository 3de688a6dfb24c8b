import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allRoutes } from '../../src/server/api/routes';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { fill, literalRequests, routeOf, type LiteralRequest } from '../helpers/guideRequests';
import { corpusFile } from '../unit/pdfCorpus';

/**
 * An agent that knows only GET /guide: every request it sends is one of the
 * guide's literal requests, its `<name>`s filled from the answers it got
 * before. It splits a corpus book, makes a deck and grades a card; the only
 * things it writes itself are result.md and the PDF bytes (#18 §3).
 */

/** Whole sentences of a page's text (what an agent would quote verbatim). */
const sentences = (text: string) => (text.match(/[A-Z][^.!?]{48,218}[.]/g) ?? []).filter((s) => !/[=;{}\\$]/.test(s));

describe('a guide-only agent: splits a corpus book, makes a deck and grades a card with zero 4xx (#18 §3)', function () {
  this.timeout(240_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('follows the literal bodies of GET /guide', async () => {
    const guide = await t.client.guide();
    const literals = literalRequests(guide);
    /** What the answers so far said: the latest value of each field name (the first one an answer holds). */
    const values: Record<string, string> = {};
    const calls: string[] = [];
    const remember = (answer: unknown) => {
      const seen = new Set<string>();
      const walk = (v: unknown) => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object')
          for (const [k, x] of Object.entries(v)) {
            if (typeof x === 'string' && !seen.has(k)) {
              seen.add(k);
              values[k] = x;
            }
            walk(x);
          }
      };
      walk(answer);
    };
    /** The guide's literal request for this route (the first one, as the workflow lists it). */
    const step = (method: string, path: string): LiteralRequest => {
      const r = literals.find(
        (l) =>
          l.method === method &&
          routeOf(allRoutes, method, l.target.split('?')[0].replace(/<[^>]+>/g, 'X'))?.route.path === path,
      );
      assert.ok(r, `the guide has a literal ${method} ${path}`);
      return r;
    };
    const send = async (method: string, path: string, bytes?: Buffer) => {
      const req = fill(step(method, path), values);
      const res = await t.client.raw(req.method, req.path, {
        query: req.query,
        ...(bytes ? { bytes } : req.body === undefined ? {} : { body: req.body }),
      });
      calls.push(`${req.method} ${req.path} → ${res.status}`);
      assert.ok(res.status < 400, `${req.method} ${req.path}: ${res.status} ${res.text().slice(0, 400)}`);
      const answer = (res.headers.get('content-type') ?? '').startsWith('application/json')
        ? res.json<any>()
        : res.text();
      if (typeof answer === 'object') {
        assert.equal(
          answer.ignoredFields,
          undefined,
          `${req.method} ${req.path}: the guide's body has no ignored field`,
        );
        remember(answer);
      }
      return answer;
    };

    // Start, a study set and the book.
    assert.equal((await send('GET', '/status')).ok ?? true, true);
    const set = await send('POST', '/library/study-sets');
    assert.equal(set.isStudySet, true);
    const book = await send('POST', '/library/documents/upload', readFileSync(corpusFile('asymptote.pdf')));
    assert.deepEqual([book.created, book.addedToStudySet], [true, true]);

    // Read a book: its outline (until the text is read), then pages.
    for (let i = 0; (await send('GET', '/documents/{id}/outline')).extraction.state !== 'ready'; i++) {
      assert.ok(i < 240, 'extraction finished');
      await new Promise((r) => setTimeout(r, 500));
    }
    const pages = await send('GET', '/documents/{id}/pages');
    assert.ok(pages.pages.length >= 3);

    // Split a book into cards.
    const prepared = await send('POST', '/bundles/prepare');
    assert.ok(values.bundleId && values.bundlePath, 'prepare answered bundleId and bundlePath');
    assert.equal(prepared.bundleId, values.bundleId);
    for (let i = 0; ; i++) {
      const list = await send('GET', '/bundles');
      const mine = list.bundles.find((b: any) => b.bundleId === prepared.bundleId);
      if (mine.state === 'prepared') break;
      assert.notEqual(mine.state, 'failed');
      assert.ok(i < 600, 'prepared');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Those answers named other values under the same keys: the bundle's own stay (one bundle here).
    const source = await send('GET', '/bundles/{id}/files');
    const quotes = (source.pages as { text: string }[]).flatMap((p) => sentences(p.text));
    // The agent's own work: result.md in bundlePath (same machine), from the draft, each heading with verbatim quotes.
    const resultFile = join(values.bundlePath, 'result.md');
    const heads = readFileSync(resultFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('#'));
    assert.ok(
      heads.length >= 3 && quotes.length >= heads.length * 2,
      `${heads.length} headings, ${quotes.length} sentences`,
    );
    writeFileSync(
      resultFile,
      heads
        .map((h, i) => [h, `[excerpt: ${quotes[2 * i]}]`, `[excerpt: ${quotes[2 * i + 1]}]`, ''].join('\n'))
        .join('\n'),
    );
    const check = await send('POST', '/bundles/{id}/check');
    assert.equal(check.ok, true, JSON.stringify({ problems: check.problems, warnings: check.warnings }));
    assert.deepEqual([check.parsed.headings, check.parsed.excerptsAnchored], [heads.length, heads.length * 2]);
    const receipt = await send('POST', '/bundles/{id}/submit');
    assert.equal(receipt.persisted, true);
    assert.equal(receipt.cardsCreated, check.cardsCreated);
    assert.equal(
      receipt.cardsCreated,
      1 + heads.length * 3,
      'the root, a card per heading and one per excerpt (child mode)',
    );

    // Make and review a deck: the card to study is the first card the receipt names (values.noteid).
    const deck = await send('POST', '/decks');
    assert.equal(deck.isDeck, true);
    assert.equal(values.noteid, receipt.receipt[0].noteid);
    const added = await send('POST', '/decks/{id}/cards');
    assert.equal(added.persisted, true);
    const due = await send('GET', '/decks/{id}/due');
    assert.equal(due.count, 1);
    assert.equal(values.cardNoteId, added.cards[0].cardNoteId);
    const graded = await send('POST', '/decks/{id}/reviews');
    assert.deepEqual(
      [graded.persisted, graded.rating, graded.cardNoteId, graded.reps],
      [true, 'good', added.cards[0].cardNoteId, 1],
    );
    assert.ok(Date.parse(graded.due) > Date.now(), 'good on a new card schedules it later');
    // And the search the guide shows answers.
    assert.ok(Array.isArray((await send('GET', '/search')).notes));

    // What the bridge holds now, read back through other routes.
    const tree = await t.client.call('GET /study-sets/{id}/tree', {
      params: { id: set.topicid },
      query: { root: receipt.rootNoteId },
    });
    assert.equal(tree.count, receipt.cardsCreated);
    assert.deepEqual(
      tree.nodes.filter((n) => n.title && n.noteid !== receipt.rootNoteId).map((n) => n.title),
      heads.map((h) => h.replace(/^#+ /, '')),
    );
    const decks = await t.client.call('GET /decks');
    assert.deepEqual(
      decks.decks.map((d) => [d.deckId, d.title, d.cardCount, d.dueCount]),
      [[deck.deckId, 'Asymptote review', 1, 0]],
    );
    const log = await t.client.call('GET /decks/{id}/reviews', { params: { id: deck.deckId } });
    assert.deepEqual(
      log.reviews.map((r) => [r.cardNoteId, r.rating, r.stateBefore, r.actor]),
      [[added.cards[0].cardNoteId, 'good', 'new', 'agent']],
    );
    assert.ok(calls.length >= 14, calls.join('\n'));
  });
});
