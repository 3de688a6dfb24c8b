// The MCP byte budget's cutting rules on their own: whole items, every array of an
// answer read as one stream, at least one item per result, strings cut at character
// boundaries, and a cursor that resumes exactly where the cut was.
import assert from 'node:assert/strict';
import { cutJson, shorten } from '../../src/server/api/mcp/jsonCut';
import { budgetAnswer } from '../../src/server/api/mcp/resultBudget';
import { nextIdList, nextPageRange } from '../../src/server/api/mcp/continuation';
import { allRoutes as routes } from '../../src/server/api/routes';

const bytes = (s: string) => Buffer.byteLength(s);

/** Follows the item cursor until the answer is whole; returns the pieces. */
function pieces(answer: Record<string, unknown>, budget: number) {
  const out: Array<Record<string, any>> = [];
  let cursor: { field: string; from: number } | undefined;
  do {
    const cut = cutJson(answer, budget, cursor)!;
    assert.ok(bytes(cut.text) <= budget, `${bytes(cut.text)} > ${budget}`);
    out.push(JSON.parse(cut.text));
    cursor = cut.rest;
  } while (cursor && out.length < 1000);
  return out;
}

describe('MCP result cut (jsonCut, resultBudget)', () => {
  const search = {
    q: 'x',
    notes: Array.from({ length: 30 }, (_, i) => ({ noteid: `n${i}`, snippet: 'é'.repeat(40 + i) })),
    studySets: Array.from({ length: 5 }, (_, i) => ({ topicid: `s${i}` })),
    documents: Array.from({ length: 12 }, (_, i) => ({ bookmd5: `d${i}`, pages: [i, i + 1] })),
    truncated: false,
  };

  it('reads every top-level array as one stream: each item sent once, in order, scalars in every piece', () => {
    const got = pieces(search, 700);
    assert.ok(got.length > 3);
    for (const g of got) assert.deepEqual([g.q, g.truncated], ['x', false]);
    for (const field of ['notes', 'studySets', 'documents'] as const) {
      assert.deepEqual(
        got.flatMap((g) => g[field]),
        search[field],
        field,
      );
    }
  });

  it('a map of records (OpenAPI paths) is cut by entry: the pieces merge back to the whole map, other fields kept', () => {
    const paths = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`/route${i}`, { get: { summary: 's'.repeat(50 + i) } }]),
    );
    const answer = { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths };
    const got = pieces(answer, 900);
    assert.ok(got.length > 3);
    for (const g of got) assert.deepEqual(g.info, answer.info);
    assert.deepEqual(Object.assign({}, ...got.map((g) => g.paths)), paths);
    assert.deepEqual(
      got.flatMap((g) => Object.keys(g.paths)),
      Object.keys(paths),
      'each entry once, in order',
    );
  });

  it('an item over the budget alone is shortened (surrogate pairs whole), marked, and the cursor moves past it', () => {
    const answer = {
      pages: [
        { page: 1, text: '😀'.repeat(3000) },
        { page: 2, text: 'next page '.repeat(30) },
      ],
    };
    const cut = cutJson(answer, 1000)!;
    assert.ok(bytes(cut.text) <= 1000);
    const sent = JSON.parse(cut.text).pages[0];
    const kept = sent.text.replace(/…\[\d+ more characters cut.*$/, '');
    assert.ok(kept.length > 100 && answer.pages[0].text.startsWith(kept));
    assert.doesNotMatch(kept, /[\uD800-\uDBFF]$/, 'no lone high surrogate');
    assert.deepEqual(cut.rest, { field: 'pages', from: 1 });
    assert.equal(cut.shortened[0].index, 0);
    // Nothing to cut (numbers only): a note of its size instead of the item.
    assert.deepEqual(shorten({ values: Array.from({ length: 500 }, (_, i) => i) }, 300), {
      omitted: true,
      bytes: bytes(JSON.stringify({ values: Array.from({ length: 500 }, (_, i) => i) })),
      reason: 'one item over the byte budget',
    });
  });

  it('page ranges continue only where the pages ascend (best-first lists use the cursor)', () => {
    const pagesRoute = routes.find((r) => r.path === '/documents/{id}/pages')!;
    const tocRoute = routes.find((r) => r.path === '/documents/{id}/toc-candidates')!;
    const args = { method: 'GET' as const, path: '/documents/x/pages', query: { start: 3, end: 9, blocks: '0' } };
    const answer = { end: 9, pages: [3, 4, 5, 6].map((page) => ({ page })) };
    assert.deepEqual(nextPageRange(pagesRoute, answer, { field: 'pages', from: 2 }, args)?.query, {
      start: 5,
      end: 9,
      blocks: '0',
    });
    const bestFirst = { items: [7, 3, 5].map((page) => ({ page })) };
    assert.equal(nextPageRange(tocRoute, bestFirst, { field: 'items', from: 1 }, args), undefined);
  });

  it('a list of ids continues with the ids not sent yet only where each item is one id of the list, in its order, first', () => {
    const args = { method: 'POST' as const, path: '/notes/batch-get', body: { noteIds: ['a', 'x', 'B', 'c', 'd'] } };
    const answer = { notes: ['A', 'b', 'C', 'D'].map((noteid) => ({ noteid, title: noteid })), notFound: ['X'] };
    // Case-blind (ids come back in capitals); the unknown id stays for the next call to report.
    assert.deepEqual(nextIdList(answer, { field: 'notes', from: 2 }, args)?.body, { noteIds: ['x', 'c', 'd'] });
    // Two items of one id (cards by tag, say): not a list of records by id.
    const byTag = { notes: [{ tag: 'a' }, { tag: 'a' }, { tag: 'c' }] };
    const tags = { ...args, body: { tags: ['a', 'c'] } };
    assert.equal(nextIdList(byTag, { field: 'notes', from: 2 }, tags), undefined);
    // Another stream before the cut one would be answered again by a plain call.
    const after = { before: [1, 2], notes: answer.notes };
    assert.equal(nextIdList(after, { field: 'notes', from: 2 }, args), undefined);
    // Out of the list's order, or two id lists in the body: undefined.
    const shuffled = { notes: ['c', 'a'].map((noteid) => ({ noteid })) };
    assert.equal(nextIdList(shuffled, { field: 'notes', from: 1 }, args), undefined);
    assert.equal(
      nextIdList(answer, { field: 'notes', from: 2 }, { ...args, body: { ...args.body, more: ['q'] } }),
      undefined,
    );
  });

  it('text answers are cut at a line end, within the budget with the note, and resume at the character after', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} ${'ü'.repeat(i % 17)}`).join('\n');
    const args = { method: 'GET' as const, path: '/notes/x/outline.opml', maxBytes: 2048 };
    let from: number | undefined;
    let whole = '';
    for (let n = 0; n < 100; n++) {
      const blocks = budgetAnswer({
        route: undefined,
        args: { ...args, ...(from !== undefined ? { cursor: { from } } : {}) },
        answer: text,
        text,
        rerunnable: true,
        holder: 'owner',
      });
      assert.ok(blocks.reduce((s, b) => s + bytes(b.text), 0) <= 2048);
      whole += blocks[0].text;
      const note = JSON.parse(blocks[1].text);
      if (!note.truncated) break;
      assert.ok(blocks[0].text.endsWith('\n'));
      from = note.next.cursor.from;
    }
    assert.equal(whole, text);
  });
});
