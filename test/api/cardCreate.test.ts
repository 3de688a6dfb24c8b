import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

/** A sentence of page 10 of asymptote.pdf, verbatim (pdftotext reads it across two lines). */
const VERBATIM =
  'By default, Asymptote attempts to center the figure on the page, assuming that the paper type is letter.';
const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

describe('POST /study-sets/{id}/notes (creating a card)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let rootId: string;
  let book: string;
  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Asymptote notes');
    setId = set.topicid;
    rootId = set.rootNoteId!;
    book = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book); // no background writes during the digests
  });
  after(() => t.stop());

  const create = (body: Record<string, unknown>, id = setId) =>
    t.client.call('POST /study-sets/{id}/notes', { params: { id }, body: { ...body, confirm: true } });
  const tree = (id = setId) => t.client.call('GET /study-sets/{id}/tree', { params: { id } });
  const get = async (noteid: string) =>
    (await t.client.call('POST /notes/batch-get', { body: { noteIds: [noteid] } })).notes[0];

  it('a card with title and text goes under the root card by default; tree and batch-get read it back; one create operation is logged', async () => {
    const opsBefore = t.bridge.services.store.all('SELECT * FROM operations').length;
    const res = await create({
      title: 'Vectors',
      text: 'A vector has a length and a direction.',
      colorIndex: 3,
      fillIndex: 2,
    });
    assert.match(res.noteid ?? '', UUID);
    assert.equal(res.topicid, setId);
    assert.equal(res.parentNoteId, rootId);
    assert.equal(res.persisted, true);
    assert.deepEqual(res.sourceAnchor, { hasExcerpt: false, bookmd5: null, page: null, rect: null, rects: [] });
    assert.equal(res.warnings, undefined);

    const node = (await tree()).nodes.find((n) => n.noteid === res.noteid);
    assert.ok(node);
    assert.deepEqual(
      {
        parent: node.parent,
        title: node.title,
        level: node.level,
        colorIndex: node.colorIndex,
        fillIndex: node.fillIndex,
        hasExcerpt: node.hasExcerpt,
      },
      { parent: rootId, title: 'Vectors', level: 1, colorIndex: 3, fillIndex: 2, hasExcerpt: false },
    );
    const card = await get(res.noteid!);
    assert.deepEqual(card.texts, [
      { index: 0, text: 'A vector has a length and a direction.', excerpt: false, noteid: res.noteid, kind: 'text' },
    ]);
    assert.deepEqual(card.metadata, { colorIndex: 3, fillIndex: 2 });

    const ops = t.bridge.services.store.all<any>('SELECT * FROM operations ORDER BY op_seq');
    assert.equal(ops.length, opsBefore + 1);
    assert.deepEqual(
      [ops.at(-1).topicid, ops.at(-1).kind, ops.at(-1).actor, JSON.parse(ops.at(-1).note_ids)],
      [setId, 'create', 'agent', [res.noteid]],
    );
    // Searchable by the very next request.
    const hits = await t.client.call('GET /search', { query: { q: 'direction', scope: 'notes' } });
    assert.ok(JSON.stringify(hits).includes(res.noteid!), 'the new card is found at once');
  });

  it('a child under parentNoteId; the title defaults to the first 64 characters of the text; the person is recorded as actor user', async () => {
    const parent = await create({ title: 'Parent' });
    const text =
      'Eigenvalues  of a\nsymmetric matrix are real, and eigenvectors of distinct eigenvalues are orthogonal.';
    const res = await t.owner.call('POST /study-sets/{id}/notes', {
      params: { id: setId },
      body: { parentNoteId: parent.noteid, text, confirm: true },
    });
    assert.equal(res.parentNoteId, parent.noteid);
    // 64 characters with whitespace runs as one space, the cut's trailing space dropped.
    const expectedTitle = 'Eigenvalues of a symmetric matrix are real, and eigenvectors of';
    const card = await get(res.noteid!);
    assert.equal(card.title, expectedTitle);
    assert.equal(card.parent, parent.noteid);
    assert.equal(card.texts[0].text, text, 'the body keeps the text as given');
    assert.equal((await get(parent.noteid!)).childCount, 1);
    const op = t.bridge.services.store.get<any>('SELECT actor FROM operations ORDER BY op_seq DESC LIMIT 1');
    assert.equal(op.actor, 'user');
  });

  it('an excerpt quoted verbatim is anchored to its page and rectangle (the locate matcher); batch-get and tree agree', async () => {
    const res = await create({ excerpt: { bookmd5: book, page: 10, text: VERBATIM } });
    assert.equal(res.persisted, true);
    assert.equal(res.warnings, undefined);
    const a = res.sourceAnchor;
    assert.ok(a?.rect, 'anchored');
    assert.equal(a.hasExcerpt, true);
    assert.equal(a.bookmd5, book);
    assert.equal(a.page, 10);
    // US letter / A4-ish page in points: the sentence spans about two lines of body text.
    assert.ok(a.rect.x >= 0 && a.rect.x < 300, `x ${a.rect.x}`);
    assert.ok(a.rect.y > 50 && a.rect.y < 750, `y ${a.rect.y}`);
    assert.ok(a.rect.width > 150 && a.rect.width < 600, `width ${a.rect.width}`);
    assert.ok(a.rect.height > 8 && a.rect.height < 60, `height ${a.rect.height}`);
    const located = await t.client.call('POST /documents/{id}/locate', {
      params: { id: book },
      body: { page: 10, text: VERBATIM },
    });
    assert.deepEqual(a.rect, located.rect, 'the same rectangle as POST /documents/{id}/locate');
    assert.deepEqual(a.rects, located.rects, 'the same line rectangles as locate');
    // One rect per line; rect is their union.
    const u = (
      f: (r: { x: number; y: number; width: number; height: number }) => number,
      pick: (...xs: number[]) => number,
    ) => pick(...a.rects.map(f));
    assert.deepEqual(
      [
        u((r) => r.x, Math.min),
        u((r) => r.y, Math.min),
        u((r) => r.x + r.width, Math.max),
        u((r) => r.y + r.height, Math.max),
      ].map((v) => Math.round(v)),
      [a.rect.x, a.rect.y, a.rect.x + a.rect.width, a.rect.y + a.rect.height].map((v) => Math.round(v)),
    );

    const card = await get(res.noteid!);
    assert.deepEqual(card.texts, [{ index: 0, text: VERBATIM, excerpt: true, noteid: res.noteid, kind: 'excerpt' }]);
    assert.deepEqual(card.sourceAnchor, a);
    assert.equal(card.title, VERBATIM.slice(0, 64));
    const node = (await tree()).nodes.find((n) => n.noteid === res.noteid);
    assert.ok(node);
    assert.equal(node.hasExcerpt, true);
    assert.equal(node.page, 10);
  });

  it('an invented sentence still becomes a card: page kept, rect null, warning EXCERPT_NOT_ANCHORED (no_match); text becomes comment 1', async () => {
    const invented = 'Purple elephants compute the eigenvalues of every asymptote by moonlight.';
    const res = await create({
      title: 'Made up',
      text: 'my note',
      excerpt: { bookmd5: book, page: 10, text: invented },
    });
    assert.equal(res.persisted, true);
    assert.deepEqual(res.sourceAnchor, { hasExcerpt: true, bookmd5: book, page: 10, rect: null, rects: [] });
    assert.equal(res.warnings?.length, 1);
    assert.equal(res.warnings[0].code, 'EXCERPT_NOT_ANCHORED');
    assert.equal(res.warnings[0].reason, 'no_match');
    const card = await get(res.noteid!);
    assert.equal(card.title, 'Made up');
    assert.deepEqual(
      card.texts.map((x) => [x.index, x.text, x.excerpt, x.kind]),
      [
        [0, invented, true, 'excerpt'],
        [1, 'my note', false, 'text'],
      ],
    );
  });

  describe('refusals change nothing', () => {
    let deckId: string;
    let otherSetCard: string;
    before(async () => {
      deckId = (await t.client.createDeck('A deck')).deckId;
      const other = await t.client.createStudySet('Other set');
      otherSetCard = other.rootNoteId!;
    });

    const cases: Array<[string, () => { id?: string; body: Record<string, unknown> }, number, string]> = [
      [
        'unknown set',
        () => ({ id: '00000000-0000-4000-8000-00000000ABCD', body: { title: 'x', confirm: true } }),
        404,
        'TOPIC_NOT_FOUND',
      ],
      ['deck id', () => ({ id: deckId, body: { title: 'x', confirm: true } }), 422, 'IS_A_DECK'],
      [
        'unknown parent',
        () => ({ body: { parentNoteId: '00000000-0000-4000-8000-00000000ABCD', title: 'x', confirm: true } }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'parent in another set',
        () => ({ body: { parentNoteId: otherSetCard, title: 'x', confirm: true } }),
        422,
        'NOTES_IN_DIFFERENT_SETS',
      ],
      ['nothing to write', () => ({ body: { confirm: true } }), 422, 'INVALID_INPUT'],
      ['blank title and text', () => ({ body: { title: '  ', text: ' \n', confirm: true } }), 422, 'INVALID_INPUT'],
      ['colorIndex 16', () => ({ body: { title: 'x', colorIndex: 16, confirm: true } }), 422, 'INVALID_INPUT'],
      ['fillIndex -2', () => ({ body: { title: 'x', fillIndex: -2, confirm: true } }), 422, 'INVALID_INPUT'],
      [
        'parentNoteId not a UUID',
        () => ({ body: { title: 'x', parentNoteId: 'abc', confirm: true } }),
        422,
        'INVALID_INPUT',
      ],
      [
        'unknown document',
        () => ({ body: { excerpt: { bookmd5: 'f'.repeat(32), page: 1, text: 'x' }, confirm: true } }),
        404,
        'DOCUMENT_NOT_FOUND',
      ],
      [
        'page beyond the document',
        () => ({ body: { excerpt: { bookmd5: book, page: 197, text: 'x' }, confirm: true } }),
        422,
        'PAGE_OUT_OF_RANGE',
      ],
      [
        'page 0',
        () => ({ body: { excerpt: { bookmd5: book, page: 0, text: 'x' }, confirm: true } }),
        422,
        'INVALID_INPUT',
      ],
      [
        'virtual page',
        () => ({ body: { excerpt: { bookmd5: book, page: 66001, text: 'x' }, confirm: true } }),
        422,
        'VIRTUAL_PAGE',
      ],
      [
        'blank excerpt',
        () => ({ body: { excerpt: { bookmd5: book, page: 1, text: '   ' }, confirm: true } }),
        422,
        'INVALID_INPUT',
      ],
      ['no confirm', () => ({ body: { title: 'x' } }), 422, 'CONFIRM_REQUIRED'],
    ];
    for (const [label, make, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const { id, body } = make();
        const before = storeDigest(t.bridge.services.store);
        const res = await t.client.raw('POST', `/study-sets/${id ?? setId}/notes`, { body });
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(storeDigest(t.bridge.services.store), before);
      });
    }
  });
});
