import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile } from '../unit/pdfCorpus';
import {
  letters,
  pdfJsAnnotations,
  pdfJsItems,
  withAnnotationsOnPages,
  type AnnotSpec,
  type Box,
  type PdfJsItem,
} from '../helpers/annotatedPdf';

const PAGE = 2;
const near = (
  a: { x: number; y: number; width?: number; height?: number; w?: number; h?: number },
  b: Box,
  tol: number,
) =>
  Math.abs(a.x - b.x) <= tol &&
  Math.abs(a.y - b.y) <= tol &&
  Math.abs((a.width ?? a.w ?? 0) - b.w) <= tol &&
  Math.abs((a.height ?? a.h ?? 0) - b.h) <= tol;

/** The box around the runs of one line, from the first run starting with `from` to the one ending with `to` (default: that run alone). */
function lineBox(items: PdfJsItem[], from: string, to?: string): Box {
  const i = items.findIndex((it) => it.str.startsWith(from));
  const j = to === undefined ? i : items.findIndex((it, k) => k >= i && it.str.endsWith(to));
  assert.ok(i >= 0 && j >= i, `runs ${from}…${to} are on the page`);
  const a = items[i].box;
  const b = items[j].box;
  return { x: a.x, y: a.y, w: b.x + b.w - a.x, h: a.h };
}

describe('PDF annotations in and out: POST /documents/{id}/annotations/import, GET /study-sets/{id}/annotated-pdf', function () {
  this.timeout(300_000);
  let t: TestBridge;
  let book: Uint8Array;
  let bookmd5: string;
  let setId: string;
  let specs: AnnotSpec[];
  let page3: Box;

  const newSet = async (title: string) =>
    (await t.client.call('POST /library/study-sets', { body: { title, confirm: true } })).topicid;
  const uploadBytes = async (bytes: Uint8Array, filename: string) => {
    const r = await t.client.call('POST /library/documents/upload', {
      bytes,
      query: { filename, confirm: '1' },
    });
    await t.bridge.services.extraction.whenReady(r.bookmd5);
    return r.bookmd5;
  };
  const importInto = (id: string, topicid: string, confirm = true) =>
    t.client.raw('POST', `/documents/${id}/annotations/import`, {
      body: { topicid, ...(confirm ? { confirm: true } : {}) },
    });
  const cards = async (noteIds: string[]) =>
    (await t.client.call('POST /notes/batch-get', { body: { noteIds } })).notes;

  before(async () => {
    t = await startBridge();
    const cad = readFileSync(corpusFile('CAD.pdf'));
    const { items } = await pdfJsItems(cad, PAGE);
    specs = [
      {
        kind: 'Highlight',
        quads: [lineBox(items, 'All functions', 'definitions may')],
        color: [1, 1, 0],
        contents: 'Why a structure?',
        popup: true,
      },
      {
        kind: 'Underline',
        quads: [lineBox(items, 'differ depending'), lineBox(items, 'before drawing:')],
        color: [0, 0.8, 0],
      },
      // No /F: shown, not printed (pdf.js lists it only for the screen).
      { kind: 'Squiggly', quads: [lineBox(items, 'nLineGroup')], color: [0.2, 0.4, 1], noPrint: true },
      {
        kind: 'StrikeOut',
        quads: [lineBox(items, 'depends on the size')],
        color: [0.9, 0.1, 0.1],
        contents: 'not true for group B',
      },
      { kind: 'FreeText', rect: { x: 480, y: 120, w: 100, h: 30 }, contents: 'Pens depend on the drawing size' },
      {
        kind: 'Text',
        rect: { x: 500, y: 300, w: 20, h: 20 },
        contents: 'Check the pens of group B\n\nThey are thinner.',
        color: [1, 0.6, 0.3],
      },
      {
        kind: 'Ink',
        strokes: [
          [
            [100, 700],
            [150, 720],
            [200, 700],
          ],
          [
            [100, 730],
            [200, 730],
          ],
        ],
        color: [0, 0, 1],
      },
    ];
    // Page 3: one printed highlight (the page pdf.js reads with its print intent).
    const third = (await pdfJsItems(cad, 3)).items.find((it) => it.str.length >= 20)!;
    page3 = third.box;
    book = await withAnnotationsOnPages(
      cad,
      new Map([
        [PAGE, specs],
        [3, [{ kind: 'Highlight', quads: [third.box], color: [1, 1, 0] }]],
      ]),
    );
    bookmd5 = await uploadBytes(book, 'CAD-annotated.pdf');
    setId = await newSet('Annotated CAD');
  });
  after(() => t.stop());

  it('without confirm: the dry-run lists what it would create and skip, nothing written', async () => {
    const before = storeDigest(t.bridge.services.store);
    const res = await importInto(bookmd5, setId, false);
    assert.equal(res.status, 422, res.text());
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.equal(err.details.wouldCreate, 7);
    assert.deepEqual(
      err.details.cards.map((c: any) => c.kind),
      [
        ...['Highlight', 'Underline', 'FreeText', 'Squiggly', 'StrikeOut', 'Text'].sort((a, b) => order(a) - order(b)),
        'Highlight',
      ],
    );
    assert.deepEqual(
      err.details.skipped.map((s: any) => [s.kind, s.page]),
      [['Ink', PAGE]],
    );
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  /** Reading order of the specs above: page top to bottom. */
  const order = (kind: string) =>
    ({ FreeText: 0, Highlight: 1, Underline: 2, Squiggly: 4, StrikeOut: 4.5, Text: 5 })[kind] ?? 9;

  let created: any[] = [];
  let allCreated: any[] = [];
  it('markup → excerpt cards of the text pdf.js reads under the quads, one rect per quad as pdf.js reads them, palette colour, /Contents as comment', async () => {
    const res = await importInto(bookmd5, setId);
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    created = body.created.filter((c: any) => c.page === PAGE);
    assert.equal(body.created.length, 7);
    const onThree = body.created.filter((c: any) => c.page === 3);
    assert.equal(onThree.length, 1);
    const [p3] = (await pdfJsAnnotations(book, 3)).filter((a) => a.kind === 'Highlight');
    assert.equal(
      letters(onThree[0].text),
      letters(p3.overlaidText ?? ''),
      `page 3: ${onThree[0].text} vs ${p3.overlaidText}`,
    );
    const [n3] = await cards([onThree[0].noteid]);
    assert.ok(near(n3.sourceAnchor.rects[0], p3.quads[0], 0.5) && near(n3.sourceAnchor.rects[0], page3, 0.5));
    allCreated = body.created;
    assert.deepEqual(
      body.skipped.map((s: any) => s.kind),
      ['Ink'],
    );
    assert.match(body.skipped[0].reason, /ink|stroke/i);
    const pdfjs = (await pdfJsAnnotations(book, PAGE)).filter((a) =>
      ['Highlight', 'Underline', 'Squiggly', 'StrikeOut'].includes(a.kind),
    );
    assert.equal(pdfjs.length, 4);
    const notes = await cards(created.map((c) => c.noteid));
    for (const a of pdfjs) {
      const c = created.find((x) => x.kind === a.kind);
      const n = notes.find((x) => x.noteid === c.noteid);
      assert.ok(n, `${a.kind}: its card`);
      assert.equal(c.page, PAGE);
      // Text: the same letters pdf.js itself finds under the annotation (its overlaidText), and not empty.
      assert.ok(letters(c.text).length > 5, `${a.kind}: ${c.text}`);
      assert.equal(
        letters(c.text),
        letters(a.overlaidText ?? ''),
        `${a.kind}: ours ${JSON.stringify(c.text)} vs pdf.js ${JSON.stringify(a.overlaidText)}`,
      );
      assert.equal(n.texts[0].text, c.text);
      assert.equal(n.texts[0].excerpt, true);
      // Rectangles: one per quad, where pdf.js puts the quads.
      assert.equal(n.sourceAnchor.bookmd5, bookmd5);
      assert.equal(n.sourceAnchor.rects.length, a.quads.length, a.kind);
      a.quads.forEach((q, i) =>
        assert.ok(
          near(n.sourceAnchor.rects[i], q, 0.5),
          `${a.kind} rect ${i}: ${JSON.stringify(n.sourceAnchor.rects[i])} vs ${JSON.stringify(q)}`,
        ),
      );
    }
    const byKind = (k: string) => {
      const n = notes.find((x) => x.noteid === created.find((c) => c.kind === k).noteid);
      assert.ok(n, `${k}: its card`);
      return n;
    };
    assert.equal(byKind('Highlight').metadata.colorIndex, 4, 'pure yellow → the palette yellow');
    assert.equal(byKind('Underline').metadata.colorIndex, 5, 'green → the palette green');
    assert.equal(byKind('StrikeOut').metadata.colorIndex, 7, 'red → the palette red');
    assert.equal(byKind('Highlight').texts[1]?.text, 'Why a structure?');
    assert.equal(byKind('StrikeOut').texts[1]?.text, 'not true for group B');
    assert.equal(byKind('Underline').texts.length, 1, 'no /Contents, no comment');
    assert.match(byKind('Highlight').title, /^All functions are encapsulated/);
  });

  it('FreeText and Text notes → cards of their text at their rectangle; the popup is no card', async () => {
    const notes = await cards(created.map((c) => c.noteid));
    const free = notes.find((n) => n.noteid === created.find((c) => c.kind === 'FreeText').noteid);
    const sticky = notes.find((n) => n.noteid === created.find((c) => c.kind === 'Text').noteid);
    assert.ok(free && sticky, 'the FreeText and Text cards');
    assert.ok(free.sourceAnchor.rect, 'the FreeText card is placed');
    assert.equal(free.texts[0].text, 'Pens depend on the drawing size');
    assert.equal(free.texts[0].excerpt, false);
    assert.ok(
      near(free.sourceAnchor.rect, { x: 480, y: 120, w: 100, h: 30 }, 0.5),
      JSON.stringify(free.sourceAnchor.rect),
    );
    assert.equal(sticky.texts[0].text, 'Check the pens of group B\n\nThey are thinner.');
    assert.equal(sticky.sourceAnchor.rect?.x, 500);
    assert.equal(sticky.metadata.colorIndex, 8, 'orange');
    assert.equal(created.filter((c) => c.kind === 'Popup').length, 0);
    const docs = await t.client.call('GET /study-sets/{id}/documents', { params: { id: setId } });
    assert.ok(
      docs.documents.some((d) => d.bookmd5 === bookmd5),
      'the book joined the set',
    );
  });

  it('importing again creates nothing', async () => {
    const before = storeDigest(t.bridge.services.store);
    const res = await importInto(bookmd5, setId);
    assert.equal(res.status, 200, res.text());
    assert.deepEqual(res.json<any>().created, []);
    assert.equal(res.json<any>().alreadyImported, 7);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  let exported: Buffer;
  it('export: a copy that passes qpdf --check, one Highlight per anchored card with quads within 1 pt, colour and /Contents', async function () {
    const res = await t.client.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5 } });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(
      String(res.headers.get('content-disposition')),
      /attachment; filename="CAD-annotated-highlighted\.pdf"/,
    );
    exported = res.bytes;
    const file = join(tempDir(), 'out.pdf');
    writeFileSync(file, exported);
    if (spawnSync('qpdf', ['--version']).status !== 0) console.log('      (qpdf is not installed: --check skipped)');
    else execFileSync('qpdf', ['--check', file], { stdio: 'pipe' }); // throws on a damaged file
    const anns = await pdfJsAnnotations(exported, PAGE);
    const highlights = anns.filter((a) => a.kind === 'Highlight' && a.contents !== 'Why a structure?');
    const ours = anns.filter((a) => a.kind === 'Highlight').length - specs.filter((s) => s.kind === 'Highlight').length;
    assert.equal(ours, created.length, 'one Highlight per anchored card (the original annotations kept)');
    const notes = await cards(created.map((c) => c.noteid));
    for (const n of notes) {
      const h = highlights.find(
        (a) =>
          a.quads.length === n.sourceAnchor.rects.length &&
          a.quads.every((q, i) => near(n.sourceAnchor.rects[i], q, 1)),
      );
      assert.ok(h, `a Highlight over card ${n.title}`);
      assert.ok(h.contents.startsWith(n.title), `${h.contents} begins with the title`);
    }
    const strike = notes.find((n) => n.noteid === created.find((c) => c.kind === 'StrikeOut').noteid);
    assert.ok(strike, 'the StrikeOut card');
    const sh = highlights.find((a) => near(strike.sourceAnchor.rects[0], a.quads[0], 1))!;
    assert.equal(sh.contents, `${strike.title}\n\nnot true for group B`);
    assert.deepEqual(sh.color, [0xee, 0x6a, 0x6a], 'the palette red');
  });

  it('re-import of the export into a new set: the same excerpts (text, rects within 1 pt); a second import creates nothing', async () => {
    const copy = await uploadBytes(exported, 'CAD-highlighted.pdf');
    const other = await newSet('Round trip');
    const res = await importInto(copy, other);
    assert.equal(res.status, 200, res.text());
    const again = res.json<any>().created as any[];
    const first = await cards(allCreated.map((c) => c.noteid));
    const second = await cards(again.map((c) => c.noteid));
    for (const n of first.filter((x) => x.texts[0].excerpt)) {
      const m = second.find(
        (x) =>
          x.texts[0].text === n.texts[0].text &&
          x.sourceAnchor.rects.length === n.sourceAnchor.rects.length &&
          x.sourceAnchor.rects.every((r, i) =>
            near(
              r,
              {
                x: n.sourceAnchor.rects[i].x,
                y: n.sourceAnchor.rects[i].y,
                w: n.sourceAnchor.rects[i].width,
                h: n.sourceAnchor.rects[i].height,
              },
              1,
            ),
          ),
      );
      assert.ok(m, `excerpt ${n.title} came back`);
      assert.equal(m.title, n.title);
      assert.equal(m.metadata.colorIndex, n.metadata.colorIndex);
      assert.deepEqual(
        m.texts.slice(1).map((x) => x.text),
        n.texts.slice(1).map((x) => x.text),
        'comments come back as comments',
      );
    }
    const before = storeDigest(t.bridge.services.store);
    const twice = await importInto(copy, other);
    assert.deepEqual(twice.json<any>().created, []);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  describe('refusals change nothing', () => {
    async function refused(
      res: Promise<{ status: number; text(): string; json<T>(): T }>,
      status: number,
      code: string,
      store = t.bridge.services.store,
    ) {
      const before = storeDigest(store);
      const r = await res;
      assert.equal(r.status, status, r.text());
      const err = r.json<any>().error;
      assert.equal(err.code, code, r.text());
      assert.ok(err.message.length > 10);
      assert.equal(storeDigest(store), before, `${code}: nothing written`);
    }
    const body = () => ({ body: { topicid: setId, confirm: true } });
    it('no token, bad token → 401; an Origin → 403', async () => {
      await refused(t.anonymous.raw('POST', `/documents/${bookmd5}/annotations/import`, body()), 401, 'UNAUTHORIZED');
      await refused(
        t.anonymous.raw('POST', `/documents/${bookmd5}/annotations/import`, {
          ...body(),
          headers: { Authorization: `Bearer ${t.bridge.token}x` },
        }),
        401,
        'UNAUTHORIZED',
      );
      await refused(
        t.client.raw('POST', `/documents/${bookmd5}/annotations/import`, {
          ...body(),
          headers: { Origin: 'https://evil.example' },
        }),
        403,
        'FORBIDDEN_ORIGIN',
      );
      await refused(
        t.anonymous.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5 } }),
        401,
        'UNAUTHORIZED',
      );
    });
    it('a bad bookmd5, an unknown document or set → 4xx', async () => {
      await refused(t.client.raw('POST', `/documents/${setId}/annotations/import`, body()), 422, 'INVALID_INPUT');
      await refused(
        t.client.raw('POST', `/documents/${'0'.repeat(32)}/annotations/import`, body()),
        404,
        'DOCUMENT_NOT_FOUND',
      );
      await refused(importInto(bookmd5, '00000000-0000-4000-8000-000000000001'), 404, 'TOPIC_NOT_FOUND');
      await refused(
        t.client.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5: 'nope' } }),
        422,
        'INVALID_INPUT',
      );
      await refused(t.client.raw('GET', `/study-sets/${setId}/annotated-pdf`, {}), 422, 'INVALID_INPUT');
    });
    it('a PDF without annotations → 422 NO_ANNOTATIONS; a set with no card on the book → 422 NO_EXCERPT_CARDS', async () => {
      const plain = await uploadBytes(readFileSync(corpusFile('CAD.pdf')), 'CAD.pdf');
      await refused(importInto(plain, setId), 422, 'NO_ANNOTATIONS');
      await refused(importInto(plain, setId, false), 422, 'NO_ANNOTATIONS');
      await refused(
        t.client.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5: plain } }),
        422,
        'NO_EXCERPT_CARDS',
      );
    });
    it('premium off → 403 MAX_REQUIRED', async () => {
      const off = await startBridge({ premium: false });
      try {
        await refused(
          off.client.raw('POST', `/documents/${bookmd5}/annotations/import`, body()),
          403,
          'MAX_REQUIRED',
          off.bridge.services.store,
        );
      } finally {
        await off.stop();
      }
    });
  });
});
