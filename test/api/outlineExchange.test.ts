import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// An independent XML reader (sax, the streaming parser xml2js is built on), not the fast-xml-parser the bridge uses.
const sax = require('sax') as { parser(strict: boolean): any };

interface Shape {
  title: string;
  texts: string[];
  children: Shape[];
}

type OpmlNode = Shape & { page?: string; children: OpmlNode[] };

const VERBATIM =
  'By default, Asymptote attempts to center the figure on the page, assuming that the paper type is letter.';

/** OPML read with sax: checks the OPML 2.0 frame and gives the outline tree (text, _note, _page). */
function readOpmlWithSax(xml: string): { version: string; title: string; roots: OpmlNode[] } {
  const p = sax.parser(true);
  const roots: OpmlNode[] = [];
  const stack: OpmlNode[] = [];
  const path: string[] = [];
  let version = '';
  let title = '';
  p.onerror = (e: Error) => {
    throw e;
  };
  p.onopentag = (tag: { name: string; attributes: Record<string, string> }) => {
    path.push(tag.name);
    if (tag.name === 'opml') version = tag.attributes.version;
    if (tag.name !== 'outline') return;
    assert.deepEqual(path.slice(0, 3), ['opml', 'body', 'outline'], 'outlines live in opml/body');
    const note = tag.attributes._note;
    const node: OpmlNode = {
      title: tag.attributes.text,
      texts: note ? note.split(/\n{2,}/) : [],
      children: [],
      ...(tag.attributes._page ? { page: tag.attributes._page } : {}),
    };
    (stack.length ? stack[stack.length - 1].children : roots).push(node);
    stack.push(node);
  };
  p.ontext = (text: string) => {
    if (path.join('/') === 'opml/head/title') title += text;
  };
  p.onclosetag = (name: string) => {
    path.pop();
    if (name === 'outline') stack.pop();
  };
  p.write(xml).close();
  return { version, title, roots };
}

describe('mind maps out and in: GET /study-sets/{id}/outline, POST /library/study-sets/import', function () {
  this.timeout(300_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const outline = (id: string, format: 'opml' | 'md') =>
    t.client.raw('GET', `/study-sets/${id}/outline`, { query: { format } });
  const importOutline = (body: Record<string, unknown>) => t.client.raw('POST', '/library/study-sets/import', { body });

  /** The set's tree as the bridge serves it (GET /tree: order, nesting, titles) with every card's texts read from the store. */
  async function shapeOf(setId: string): Promise<Shape> {
    const res = await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } });
    const byId = new Map<string, Shape>();
    let root: Shape | undefined;
    for (const n of res.nodes) {
      const texts = t.bridge.services.store
        .all<{ text: string }>('SELECT text FROM note_texts WHERE noteid = ? ORDER BY idx', [n.noteid])
        .map((r) => r.text);
      const title = t.bridge.services.store.get<{ title: string }>('SELECT title FROM notes WHERE noteid = ?', [
        n.noteid,
      ])!.title;
      const node = { title, texts, children: [] };
      byId.set(n.noteid, node);
      if (n.parent === null) root = node;
      else byId.get(n.parent)!.children.push(node);
    }
    return root!;
  }

  const count = (s: Shape): number => 1 + s.children.reduce((a, c) => a + count(c), 0);

  async function roundTrip(setId: string, format: 'opml' | 'md') {
    const out = await outline(setId, format);
    assert.equal(out.status, 200, out.text());
    assert.equal(
      out.headers.get('content-type'),
      format === 'opml' ? 'text/x-opml; charset=utf-8' : 'text/markdown; charset=utf-8',
    );
    const res = await importOutline({ format, content: out.text(), confirm: true });
    assert.equal(res.status, 200, res.text());
    const created = res.json<any>();
    assert.deepEqual(await shapeOf(created.topicid), await shapeOf(setId), `${format}: the same tree back`);
    return { created, text: out.text() };
  }

  describe('a 1,000-card set with deep branches', () => {
    let setId: string;
    before(async () => {
      const set = await t.client.createStudySet('Big & <outline> "set"');
      setId = set.topicid;
      for (let c = 0; c < 10; c++) {
        const cards: Record<string, unknown>[] = [
          { title: `Chapter ${c} & <${c}>`, text: `Why chapter ${c} matters.\nSecond line "quoted".` },
        ];
        for (let s = 0; s < 10; s++) {
          const sec = cards.length;
          cards.push({ parentIndex: 0, title: `Section ${c}.${s}` });
          for (let l = 0; l < 9; l++)
            cards.push({
              parentIndex: sec,
              title: `Leaf ${c}.${s}.${l}`,
              ...(l % 3 === 0 ? { text: `Body of leaf ${c}.${s}.${l}.` } : {}),
            });
        }
        // A chain ten deep under each chapter: below six levels the Markdown outline turns to nested bullets.
        for (let d = 0; d < 10; d++)
          cards.push({
            parentIndex: d === 0 ? 0 : cards.length - 1,
            title: `Deep ${c}/${d}`,
            ...(d % 2 ? { text: `Deep text ${c}/${d}.` } : {}),
          });
        const res = await t.client.raw('POST', `/study-sets/${setId}/notes`, { body: { cards, confirm: true } });
        assert.equal(res.status, 200, res.text());
      }
      assert.equal(count(await shapeOf(setId)), 1 + 10 * 111);
    });

    it('OPML out → in gives the same tree (titles, order, nesting, texts)', async () => {
      const { created, text } = await roundTrip(setId, 'opml');
      assert.equal(created.cards, 1111);
      const read = readOpmlWithSax(text);
      assert.equal(read.version, '2.0');
      assert.equal(read.title, 'Big & <outline> "set"');
      assert.equal(read.roots.length, 1);
      assert.equal(read.roots[0].children[3].title, 'Chapter 3 & <3>');
      assert.deepEqual(read.roots[0].children[3].texts, ['Why chapter 3 matters.\nSecond line "quoted".']);
    });

    it('Markdown out → in gives the same tree, headings then nested bullets', async () => {
      const { created, text } = await roundTrip(setId, 'md');
      assert.equal(created.cards, 1111);
      assert.match(text, /^# Big & <outline> "set"$/m);
      assert.match(text, /^###### Deep 0\/3$/m);
      assert.match(text, /^- Deep 0\/4$/m);
      assert.match(text, /^ {8}- Deep 0\/8$/m);
    });
  });

  it('a 64-level chain goes out and back in both formats; 65 Markdown levels → 422 OUTLINE_TOO_DEEP', async () => {
    const set = await t.client.createStudySet('Chain');
    const cards = Array.from({ length: 63 }, (_, i) => ({
      title: `level ${i + 1}`,
      ...(i === 0 ? {} : { parentIndex: i - 1 }),
      ...(i % 5 === 0 ? { text: `text at ${i + 1}` } : {}),
    }));
    assert.equal(
      (await t.client.raw('POST', `/study-sets/${set.topicid}/notes`, { body: { cards, confirm: true } })).status,
      200,
    );
    for (const format of ['opml', 'md'] as const)
      assert.equal((await roundTrip(set.topicid, format)).created.depth, 64);
    const md = `${(await outline(set.topicid, 'md')).text()}${' '.repeat(116)}- one too deep\n`;
    const before = storeDigest(t.bridge.services.store);
    const res = await importOutline({ format: 'md', content: md, confirm: true });
    assert.equal(res.status, 422, res.text());
    assert.equal(res.json<any>().error.code, 'OUTLINE_TOO_DEEP');
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('a corpus-book excerpt card exports with its page (OPML _page, Markdown "> quote (p. N)")', async () => {
    const set = await t.client.createStudySet('Asymptote');
    const book = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    await t.client.request('POST', `/study-sets/${set.topicid}/notes`, {
      body: { excerpt: { bookmd5: book, page: 10, text: VERBATIM }, text: 'my comment', confirm: true },
    });
    const opml = readOpmlWithSax((await outline(set.topicid, 'opml')).text());
    const card = opml.roots[0].children[0];
    assert.equal(card.page, '10');
    assert.deepEqual(card.texts, [VERBATIM, 'my comment']);
    assert.ok(
      card.title.length > 0 && VERBATIM.startsWith(card.title.replace(/…$/, '')),
      `display title from the excerpt: ${card.title}`,
    );
    const md = (await outline(set.topicid, 'md')).text();
    assert.ok(md.includes(`> ${VERBATIM} (p. 10)`), md);
    assert.ok(md.includes('my comment'));
  });

  it('Markdown written by hand (result.md grammar, bullets) imports as a tree; title overrides', async () => {
    const content =
      '# Vectors\n\nA vector has size and direction.\n\n## Dot product\n\n- Commutative\n  - proof\n- Distributive\n\n## Cross product\n';
    const res = await importOutline({ format: 'md', content, title: 'Linear algebra', confirm: true });
    assert.equal(res.status, 200, res.text());
    const shape = await shapeOf(res.json<any>().topicid);
    assert.deepEqual(shape, {
      title: 'Linear algebra',
      texts: [],
      children: [
        {
          title: 'Vectors',
          texts: ['A vector has size and direction.'],
          children: [
            {
              title: 'Dot product',
              texts: [],
              children: [
                { title: 'Commutative', texts: [], children: [{ title: 'proof', texts: [], children: [] }] },
                { title: 'Distributive', texts: [], children: [] },
              ],
            },
            { title: 'Cross product', texts: [], children: [] },
          ],
        },
      ],
    });
  });

  it('capabilities list both routes and the outlineExchange block; MCP study_call exports and imports', async () => {
    const caps = await t.client.call('GET /capabilities');
    const routes = caps.routes.map((r) => `${r.method} ${r.path}`);
    assert.ok(routes.includes('GET /study-sets/{id}/outline') && routes.includes('POST /library/study-sets/import'));
    assert.deepEqual(caps.outlineExchange?.formats, ['opml', 'md']);
    assert.equal(caps.outlineExchange?.maxImportCards, 5000);
    const client = new Client({ name: 'outline-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${t.bridge.token}` } },
      }),
    );
    try {
      const made: any = await client.callTool({
        name: 'study_call',
        arguments: {
          method: 'POST',
          path: '/library/study-sets/import',
          body: { format: 'md', content: '# Via MCP\n\n- one\n- two\n', confirm: true },
        },
      });
      assert.equal(made.isError, false, made.content[0].text);
      const topicid = JSON.parse(made.content[0].text).topicid;
      const out: any = await client.callTool({
        name: 'study_call',
        arguments: { method: 'GET', path: `/study-sets/${topicid}/outline`, query: { format: 'opml' } },
      });
      const read = readOpmlWithSax(out.content[0].text);
      assert.deepEqual(
        read.roots.map((r) => [r.title, r.children.map((c) => c.title)]),
        [['Via MCP', ['one', 'two']]],
      );
    } finally {
      await client.close();
    }
  });

  describe('refusals change nothing', () => {
    async function refused(
      body: Record<string, unknown>,
      status: number,
      code: string,
      client = t.client,
      store = t.bridge.services.store,
    ) {
      const before = storeDigest(store);
      const res = await client.raw('POST', '/library/study-sets/import', { body });
      assert.equal(res.status, status, res.text());
      const err = res.json<any>().error;
      assert.equal(err.code, code, res.text());
      assert.ok(err.message.length > 10);
      assert.equal(storeDigest(store), before, `${code}: nothing written`);
      return err;
    }
    const opml = (body: string) =>
      `<?xml version="1.0"?><opml version="2.0"><head><title>T</title></head><body>${body}</body></opml>`;

    it('without confirm: a preview (counts, top titles), nothing written', async () => {
      const err = await refused(
        {
          format: 'opml',
          content: opml(
            '<outline text="Root"><outline text="A"/><outline text="B"><outline text="B1"/></outline></outline>',
          ),
        },
        422,
        'CONFIRM_REQUIRED',
      );
      assert.deepEqual(err.details.wouldCreate, { studySets: 1, cards: 4 });
      assert.deepEqual(err.details.topTitles, ['A', 'B']);
      assert.equal(err.details.title, 'Root');
    });

    it('malformed OPML → 422 INVALID_OPML with the parser message', async () => {
      const err = await refused(
        { format: 'opml', content: opml('<outline text="a"><outline text="b"/>'), confirm: true },
        422,
        'INVALID_OPML',
      );
      assert.match(err.message, /closing tag/i);
      await refused({ format: 'opml', content: '<html><body/></html>', confirm: true }, 422, 'INVALID_OPML');
    });

    it('a billion-laughs OPML is refused at once (entities are not expanded)', async () => {
      let dtd = '<!DOCTYPE opml [<!ENTITY lol "lol">';
      for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`;
      const content = `<?xml version="1.0"?>${dtd}]><opml version="2.0"><head><title>x</title></head><body><outline text="&lol9;"/></body></opml>`;
      await refused({ format: 'opml', content, confirm: true }, 422, 'INVALID_OPML');
      await refused({ format: 'opml', content }, 422, 'INVALID_OPML'); // the dry-run too
    });

    it('more than 5,000 cards → 422 TOO_MANY_CARDS; deeper than 64 → 422 OUTLINE_TOO_DEEP; empty → 422 OUTLINE_EMPTY', async () => {
      await refused(
        { format: 'opml', content: opml('<outline text="x"/>'.repeat(5001)), confirm: true },
        422,
        'TOO_MANY_CARDS',
      );
      await refused(
        { format: 'md', content: Array.from({ length: 5001 }, (_, i) => `- card ${i}`).join('\n'), confirm: true },
        422,
        'TOO_MANY_CARDS',
      );
      await refused(
        {
          format: 'opml',
          content: opml(`${'<outline text="d">'.repeat(65)}${'</outline>'.repeat(65)}`),
          confirm: true,
        },
        422,
        'OUTLINE_TOO_DEEP',
      );
      await refused({ format: 'opml', content: opml(''), confirm: true }, 422, 'OUTLINE_EMPTY');
      await refused({ format: 'md', content: 'just a paragraph, no heading', confirm: true }, 422, 'OUTLINE_EMPTY');
    });

    it('a wrong format is refused by the schema', async () => {
      const err = await refused({ format: 'xmind', content: 'x', confirm: true }, 422, 'INVALID_INPUT');
      assert.match(err.message, /opml or md/);
    });

    it('premium off → 403', async () => {
      const off = await startBridge({ premium: false });
      try {
        await refused(
          { format: 'md', content: '# A', confirm: true },
          403,
          'MAX_REQUIRED',
          off.client,
          off.bridge.services.store,
        );
      } finally {
        await off.stop();
      }
    });
  });
});
