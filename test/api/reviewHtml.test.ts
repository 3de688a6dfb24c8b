import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { BASIC_AND_REVERSED, buildApkg, crtDaysAgo, solidPng, type BuildPackage } from '../helpers/ankiPackageBuilder';
import { card as newCard } from '../helpers/libraryFixtures';

/**
 * Card HTML is sanitised once, on the bridge: an imported Anki card whose
 * fields carry hostile HTML (a script, event handlers, javascript: links, an
 * SVG, a frame, styles that load or run) reviews with its formatting, ruby,
 * table and picture kept and everything that runs or loads gone, read through
 * GET /decks/{id}/due and through MCP's study_review_next (the MCP App's
 * structuredContent, drawn by the App in Chromium). Notes AnkiConnect adds
 * or changes under a type a client made go through the same allow-list. A
 * card made of text (REST) shows its text, escaped.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const HOSTILE_FRONT = [
  '<b>Bold</b> and <i>italic</i> <ruby>漢<rt>kan</rt></ruby>',
  '<script>window.stolen = document.cookie</script>',
  '<img src="cat.png" onerror="alert(1)">',
  '<img src=x onerror=alert(2)>',
  '<a href="javascript:alert(3)">click</a>',
  '<svg onload="alert(4)"><circle r="4"/></svg>',
  '<iframe src="https://evil.example/"></iframe>',
  '<span style="color: red; background-image: url(javascript:alert(5)); width: expression(alert(6))">styled</span>',
  '\\(x^2 < 3\\)',
].join(' ');
const HOSTILE_BACK =
  '<table><tr><td>cell</td></tr></table><div onmouseover="alert(7)">back</div><object data="x.swf"></object>' +
  '<a href="https://example.org/">web</a><style>body { display: none }</style><form action="https://evil.example/"><input></form>';

/** What must never reach a face's HTML. */
const RUNS =
  /<script|<iframe|<object|<embed|<svg|<form|<style|\son\w+\s*=|javascript:|vbscript:|expression\(|url\(|stolen|alert/i;

function hostilePackage(crt: number, deck: string, reversed: boolean): BuildPackage {
  return {
    crt,
    decks: [deck],
    models: [reversed ? BASIC_AND_REVERSED : { name: 'Basic', fields: ['Front', 'Back'], templates: 1 }],
    notes: [
      {
        guid: reversed ? 'hostile-rev' : 'hostile-1',
        model: reversed ? 'Basic (and reversed card)' : 'Basic',
        fields: [HOSTILE_FRONT, HOSTILE_BACK],
        cards: reversed ? [{ ord: 0 }, { ord: 1 }] : [{ ord: 0 }],
      },
    ],
    media: { 'cat.png': solidPng(4, 4, [200, 100, 50]) },
  };
}

/** The benign parts of the front, as the allow-list writes them. */
function assertFrontKept(html: string) {
  assert.match(html, /<b>Bold<\/b> and <i>italic<\/i> <ruby>漢<rt>kan<\/rt><\/ruby>/);
  assert.match(html, /<img src="cat\.png" \/>/);
  assert.match(html, /<span style="color:red">styled<\/span>/);
  assert.match(html, /\\\(x\^2 &lt; 3\\\)/);
  assert.doesNotMatch(html, RUNS);
}

function assertBackKept(html: string) {
  assert.match(html, /<table><tr><td>cell<\/td><\/tr><\/table><div>back<\/div>/);
  assert.match(html, /<a href="https:\/\/example\.org\/" rel="noopener noreferrer" target="_blank">web<\/a>/);
  assert.doesNotMatch(html, RUNS);
}

describe('review faces: card HTML sanitised on the bridge, read over HTTP and MCP', function () {
  this.timeout(180_000);
  let t: TestBridge;
  const crt = crtDaysAgo(10);
  const importPackage = async (p: BuildPackage, filename: string) => {
    const res = await t.client.raw('POST', '/decks/import', {
      bytes: await buildApkg(p),
      query: { filename, confirm: 1 },
    });
    assert.equal(res.status, 200, res.text());
    return res.json<{ deckId: string; topicid: string }>();
  };
  const due = (deckId: string) => t.client.call('GET /decks/{id}/due', { params: { id: deckId } });

  before(async () => (t = await startBridge({ ankiConnect: { port: 0 } })));
  after(() => t.stop());

  it('GET /decks/{id}/due: formatting, ruby, table and picture kept; scripts, handlers, script URLs gone', async () => {
    const { deckId } = await importPackage(hostilePackage(crt, 'Hostile', false), 'Hostile.apkg');
    const [card] = (await due(deckId)).cards;
    assertFrontKept(card.question.html);
    assertBackKept(card.answer.html);
    // The picture the HTML names is the card's image part, readable as the panel reads it.
    assert.equal(card.pictures.length, 1);
    assert.equal(card.pictures[0].name, 'cat.png');
    const pic = await t.client.raw(
      'GET',
      `/notes/${card.pictures[0].noteId}/content/${encodeURIComponent(card.pictures[0].contentId)}`,
    );
    assert.equal(pic.status, 200);
    assert.match(pic.headers.get('content-type') ?? '', /^image\//);
  });

  it('each card of a reversed note shows its own sanitised side', async () => {
    const { deckId } = await importPackage(hostilePackage(crt, 'Hostile reversed', true), 'Reversed.apkg');
    const cards = (await due(deckId)).cards;
    assert.equal(cards.length, 2);
    const forward = cards.find((c) => c.question.html.includes('<b>Bold</b>'));
    const backward = cards.find((c) => c.question.html.includes('<table>'));
    assert.ok(forward && backward, JSON.stringify(cards.map((c) => c.question.html)));
    assertFrontKept(forward.question.html);
    assertBackKept(forward.answer.html);
    assertBackKept(backward.question.html);
    assertFrontKept(backward.answer.html);
    // The child card names the note's picture, which lives on the note's own card.
    assert.deepEqual(
      backward.pictures.map((p) => p.name),
      ['cat.png'],
    );
  });

  const mcp = async () => {
    const token = (t.client as unknown as { token: string }).token;
    const c = new Client({ name: 'review-html', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return c;
  };

  it("MCP study_review_next: the App's card carries the same sanitised HTML and the named picture", async () => {
    const { deckId } = await importPackage(hostilePackage(crt, 'Hostile MCP', false), 'Mcp.apkg');
    const c = await mcp();
    try {
      const r: any = await c.callTool({ name: 'study_review_next', arguments: { deckId } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const card = r.structuredContent.card;
      assertFrontKept(card.question.html);
      assertBackKept(card.answer.html);
      const index = r.structuredContent.images.named['cat.png'];
      assert.equal(r.content[index].type, 'image');
      assert.match(r.content[index].mimeType, /^image\//);
      // The text any host shows carries none of the hostile markup either.
      assert.doesNotMatch(r.content[0].text, /<script|onerror|javascript:/i);
    } finally {
      await c.close();
    }
  });

  it('the MCP App draws that HTML in Chromium: formatting, picture and colour shown, nothing ran, no CSP refusal', async function () {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install chromium`);
    const { deckId } = await importPackage(hostilePackage(crt, 'Hostile App', false), 'App.apkg');
    const c = await mcp();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
    });
    try {
      const toolInput = { deckId };
      const toolResult = (await c.callTool({ name: 'study_review_next', arguments: toolInput })) as Record<string, any>;
      const page0 = (await c.readResource({ uri: 'ui://study-bridge/review' })).contents[0] as {
        text: string;
        _meta?: any;
      };
      const host = await build({
        entryPoints: ['test/helpers/mcpAppHost.ts'],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        logLevel: 'silent',
      });
      const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) refused.push(m.text());
      });
      page.on('dialog', (d) => {
        refused.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
      await page.exposeFunction('hostCallTool', (p: { name: string; arguments?: Record<string, unknown> }) =>
        c.callTool(p),
      );
      await page.setContent(
        `<!doctype html><html><body><div id="host"></div><script>${host.outputFiles[0].text.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
      );
      await page.evaluate((args) => window.mountApp(args as never), {
        html: page0.text,
        csp: page0._meta?.ui?.csp,
        toolInput,
        toolResult,
        hostContext: { theme: 'light', displayMode: 'inline', containerDimensions: { width: 720, maxHeight: 1600 } },
      });
      const app = page.frameLocator('#app');
      const question = app.locator('section.question');
      await question.locator('b', { hasText: 'Bold' }).waitFor();
      await app.getByRole('button', { name: 'Show answer' }).click();
      await app.locator('section.answer td', { hasText: 'cell' }).waitFor();
      const seen = await app.locator('body').evaluate((b) => {
        const img = b.querySelector<HTMLImageElement>('section.question img')!;
        const span = [...b.querySelectorAll('section.question span')].find((e) => e.textContent === 'styled')!;
        return {
          ruby: b.querySelector('section.question rt')?.textContent,
          picture: [img.src.slice(0, 11), img.complete, img.naturalWidth],
          colour: getComputedStyle(span).color,
          hostile: b.querySelectorAll('section script, iframe, svg, object, form, [onerror], [onload], [onmouseover]')
            .length,
          scriptLinks: b.querySelectorAll('a[href^="javascript" i]').length,
          stolen: (window as unknown as { stolen?: unknown }).stolen,
          link: b.querySelector<HTMLAnchorElement>('section.answer a')?.href,
        };
      });
      assert.deepEqual(seen, {
        ruby: 'kan',
        picture: ['data:image/', true, 4],
        colour: 'rgb(255, 0, 0)',
        hostile: 0,
        scriptLinks: 0,
        stolen: undefined,
        link: 'https://example.org/',
      });
      assert.deepEqual(refused, []);
    } finally {
      await browser.close();
      await c.close();
    }
  });

  it('AnkiConnect addNote and updateNoteFields of a made note type: the fields through its template, sanitised', async () => {
    const key = (await t.bridge.services.tokens.issue('anki-client', 'write')).token;
    const call = async (action: string, params: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${t.bridge.ankiConnectPort!}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ action, version: 6, key, params }),
      });
      const body = (await res.json()) as { result: any; error: string | null };
      assert.equal(body.error, null, `${action}: ${body.error}`);
      return body.result;
    };
    await call('createModel', {
      modelName: 'Hostile type',
      inOrderFields: ['Front', 'Back'],
      cardTemplates: [
        { Name: 'Card 1', Front: '<div class="q">{{Front}}</div>', Back: '{{FrontSide}}<hr id=answer>{{Back}}' },
      ],
    });
    const noteId = await call('addNote', {
      note: {
        deckName: 'Hostile AnkiConnect',
        modelName: 'Hostile type',
        fields: {
          Front:
            '<u>under</u><script>alert(1)</script><a href="javascript:alert(2)">j</a><svg onload="alert(3)"></svg>',
          Back: '<ol><li>one</li></ol><iframe src="https://evil.example/"></iframe><p onclick="alert(4)">p</p>',
        },
      },
    });
    const deck = (await t.client.listDecks()).find((d) => d.title === 'Hostile AnkiConnect')!;
    let [card] = (await due(deck.deckId)).cards;
    assert.equal(
      card.question.html,
      '<div class="q"><u>under</u><a rel="noopener noreferrer" target="_blank">j</a></div>',
    );
    assert.equal(card.answer.html, '<ol><li>one</li></ol><p>p</p>');
    await call('updateNoteFields', {
      note: {
        id: noteId,
        fields: { Back: '<i>new</i><a href="vbscript:x" onmouseover="alert(5)">v</a><style>*{}</style>' },
      },
    });
    [card] = (await due(deck.deckId)).cards;
    assert.equal(card.answer.html, '<i>new</i><a rel="noopener noreferrer" target="_blank">v</a>');
    assert.doesNotMatch(card.question.html + card.answer.html, RUNS);
  });

  it('a card made of text (REST) shows its text, escaped, never as markup', async () => {
    const set = await t.client.createStudySet('Plain cards');
    const noteid = await newCard(t, set.topicid, {
      title: '<img src=x onerror=alert(1)> a < b',
      text: '<script>alert(2)</script>\nline two',
    });
    const deckId = (await t.client.createDeck('Plain deck')).deckId;
    await t.client.call('POST /decks/{id}/cards', {
      params: { id: deckId },
      body: { cards: [{ sourceNoteId: noteid }], confirm: true },
    });
    const [card] = (await due(deckId)).cards;
    assert.equal(card.question.html, '&lt;img src=x onerror=alert(1)&gt; a &lt; b');
    assert.equal(card.answer.html, '&lt;script&gt;alert(2)&lt;/script&gt;<br />line two');
    assert.deepEqual(card.pictures, []);
  });
});
