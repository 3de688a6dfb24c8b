import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';
import { EXCERPT_PAGE, VERBATIM, decode } from './cardImagesFixture';
import { upload } from './documentsFixture';

const APP_URI = 'ui://study-bridge/review';
const APP_MIME = 'text/html;profile=mcp-app';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = join('test-output', 'mcp-app');

/**
 * Review as an MCP App: study_review_next / study_review_grade over a real
 * deck in a real bridge, through real MCP clients of both generations; the
 * app's page (ui://study-bridge/review) rendered in headless Chromium by a
 * host made of ext-apps' AppBridge (test/helpers/mcpAppHost.ts), graded by a
 * click, the grade read back from the deck's review log.
 */
describe('MCP review app: study_review_next, study_review_grade, ui://study-bridge/review', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let deckId: string;
  let excerptCard: string;
  let excerptNote: string;
  const token = () => (t.client as unknown as { token: string }).token;
  const url = () => new URL(`${t.bridge.baseUrl}/mcp`);
  const modern = async (tok = token()) => {
    const c = new Client(
      { name: 'review-host', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(url(), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }),
    );
    return c;
  };
  const legacy = async (tok = token()) => {
    const c = new LegacyClient({ name: 'review-host-2025', version: '1.0.0' });
    await c.connect(new LegacyTransport(url(), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
    return c;
  };

  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Asymptote review');
    const book = (await upload(t, 'asymptote.pdf', { topicid: set.topicid })).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    excerptNote = await card(t, set.topicid, {
      title: 'Where does Asymptote put the figure?',
      excerpt: { bookmd5: book, page: EXCERPT_PAGE, text: VERBATIM },
    });
    const plain = await card(t, set.topicid, { title: 'Pens', text: 'What a pen holds: colour, width, font.' });
    deckId = (await t.client.createDeck('Asymptote deck')).deckId;
    const added = await t.client.call('POST /decks/{id}/cards', {
      params: { id: deckId },
      body: { cards: [{ sourceNoteId: excerptNote }, { sourceNoteId: plain }], confirm: true },
    });
    excerptCard = added.cards[0].cardNoteId;
  });
  after(() => t.stop());

  it('both generations list the review tools with their app, and the app as a resource with a strict CSP', async () => {
    for (const connect of [legacy, modern]) {
      const c = await connect();
      try {
        const { tools } = await c.listTools();
        const next = tools.find((x) => x.name === 'study_review_next')!;
        const grade = tools.find((x) => x.name === 'study_review_grade')!;
        assert.ok(next && grade, tools.map((x) => x.name).join());
        for (const tool of [next, grade]) assert.equal((tool._meta as any)?.ui?.resourceUri, APP_URI);
        assert.equal(next.annotations?.readOnlyHint, true);
        const { resources } = await c.listResources();
        const app = resources.find((r) => r.uri === APP_URI)!;
        assert.equal(app?.mimeType, APP_MIME);
        const read = await c.readResource({ uri: APP_URI });
        const page = read.contents[0] as { mimeType?: string; text?: string; _meta?: any };
        assert.equal(page.mimeType, APP_MIME);
        assert.deepEqual(page._meta.ui.csp, {
          connectDomains: [],
          resourceDomains: [],
          frameDomains: [],
          baseUriDomains: [],
        });
        // The page's own policy: its inline script and style by hash only, no connection, pictures as data: URLs.
        const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(page.text!)![1];
        assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+';/);
        assert.match(csp, /connect-src 'none'/);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
      } finally {
        await c.close();
      }
    }
  });

  it('a host without MCP Apps gets the card as text and the excerpt region as an image', async () => {
    const c = await legacy();
    try {
      const r: any = await c.callTool({ name: 'study_review_next', arguments: { deckId } });
      assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 300));
      const [text, image] = r.content;
      assert.equal(text.type, 'text');
      assert.match(text.text, /Question: Where does Asymptote put the figure\?/);
      assert.match(text.text, new RegExp(`Excerpt of p\\. ${EXCERPT_PAGE}: By default, Asymptote attempts to center`));
      assert.match(text.text, /again \d+m · hard \d+m · good \d+m · easy \d+d/);
      assert.match(text.text, new RegExp(`"cardNoteId":"${excerptCard}"`));
      // The picture is the page region the review panel shows: the same route, the same bytes.
      assert.equal(image.type, 'image');
      const panel = await t.client.raw('GET', `/notes/${excerptNote}/content/excerpt-${excerptNote}`, {
        query: { maxEdge: 1200, layers: 'composite' },
      });
      assert.equal(panel.status, 200);
      assert.ok(Buffer.from(image.data, 'base64').equals(panel.bytes));
      const png = await decode(Buffer.from(image.data, 'base64'));
      assert.ok(png.width > 100 && png.height > 10, `${png.width}×${png.height}`);
      assert.deepEqual(r.structuredContent.images, { answer: 1 });
      assert.equal(r.structuredContent.card.cardNoteId, excerptCard);
    } finally {
      await c.close();
    }
  });

  it('refusals: an unknown deck, a card not in the deck, a read token cannot grade; nothing changes', async () => {
    const reader = await t.bridge.services.tokens.issue('read agent', 'read');
    const before = storeDigest(t.bridge.services.store);
    const c = await modern();
    try {
      const noDeck: any = await c.callTool({ name: 'study_review_next', arguments: { deckId: 'nope' } });
      assert.equal(noDeck.isError, true);
      assert.ok(JSON.parse(noDeck.content[0].text).error.code);
      const noCard: any = await c.callTool({
        name: 'study_review_grade',
        arguments: { deckId, cardNoteId: excerptNote, rating: 'good' },
      });
      assert.equal(noCard.isError, true);
      assert.equal(JSON.parse(noCard.content[0].text).error.code, 'CARD_NOT_FOUND');
    } finally {
      await c.close();
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
    const r = await modern(reader.token);
    try {
      const names = (await r.listTools()).tools.map((x) => x.name);
      assert.ok(names.includes('study_review_next') && !names.includes('study_review_grade'), names.join());
    } finally {
      await r.close();
    }
  });

  it('renders in an ext-apps host (AppBridge) in headless Chromium: question, answer, Good is stored as the agent', async function () {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install chromium`);
    const c = await modern();
    let browser: Browser | undefined;
    try {
      const toolInput = { deckId };
      const toolResult = (await c.callTool({ name: 'study_review_next', arguments: toolInput })) as Record<string, any>;
      const page0 = (await c.readResource({ uri: APP_URI })).contents[0] as { text: string; _meta?: any };
      const host = await build({
        entryPoints: ['test/helpers/mcpAppHost.ts'],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        logLevel: 'silent',
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
      });
      const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
      const cspErrors: string[] = [];
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) cspErrors.push(m.text());
      });
      await page.exposeFunction('hostCallTool', (p: { name: string; arguments?: Record<string, unknown> }) =>
        c.callTool(p),
      );
      await page.setContent(
        `<!doctype html><html><body style="margin:0;background:#102030"><div id="host"></div><script>${host.outputFiles[0].text.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
      );
      await page.evaluate((args) => window.mountApp(args as never), {
        html: page0.text,
        csp: page0._meta?.ui?.csp,
        toolInput,
        toolResult,
        hostContext: {
          theme: 'dark',
          styles: { variables: { '--color-background-primary': '#102030', '--color-text-primary': '#f0e0c0' } },
          displayMode: 'inline',
          containerDimensions: { width: 720, maxHeight: 1600 },
        },
      });
      const app = page.frameLocator('#app');
      const show = app.getByRole('button', { name: 'Show answer' });
      await show.waitFor();
      await page.locator('#app').evaluate((f: HTMLIFrameElement) => (f.style.width = '720px'));
      // The page follows the host's theme: its background and text are the host's variables.
      const colours = await app
        .locator('body')
        .evaluate((b) => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]);
      assert.deepEqual(colours, ['rgb(16, 32, 48)', 'rgb(240, 224, 192)']);
      await app.getByText('Where does Asymptote put the figure?').waitFor();
      mkdirSync(OUT, { recursive: true });
      writeFileSync(join(OUT, 'question.png'), await page.screenshot({ fullPage: true }));

      await show.click();
      const good = app.getByRole('button', { name: /^Good: next in / });
      await good.waitFor();
      const img = app.locator('img.picture');
      await img.waitFor();
      const natural = await img.evaluate((i: HTMLImageElement) => [i.complete, i.naturalWidth]);
      assert.ok(natural[0] && (natural[1] as number) > 100, `answer picture ${natural.join()}`);
      await app.getByText(/By default, Asymptote attempts to center/).waitFor();
      writeFileSync(join(OUT, 'answer.png'), await page.screenshot({ fullPage: true }));

      await good.click();
      await app.getByText(/^Saved: good\./).waitFor();
      await app.getByText('Pens', { exact: true }).waitFor();
      writeFileSync(join(OUT, 'next.png'), await page.screenshot({ fullPage: true }));
      // The review panel's keys work here too: Space shows the next card's answer.
      await page.keyboard.press('Space');
      await app.getByText('What a pen holds: colour, width, font.').waitFor();
      const calls = await page.evaluate(() => window.appToolCalls);
      assert.equal(calls.length, 1);
      assert.equal(calls[0].name, 'study_review_grade');
      assert.deepEqual(
        { ...calls[0].arguments, durationMs: 0 },
        { deckId, cardNoteId: excerptCard, rating: 'good', durationMs: 0 },
      );
      assert.deepEqual(cspErrors, []);
    } finally {
      await browser?.close();
      await c.close();
    }
    // The review log holds the grade, made by the agent's token (the VS Code panel's grade names the person).
    const log = await t.client.call('GET /decks/{id}/reviews', {
      params: { id: deckId },
      query: { cardNoteId: excerptCard },
    });
    assert.equal(log.reviews.length, 1);
    const [entry] = log.reviews;
    assert.equal(entry.rating, 'good');
    assert.equal(entry.actor, 'agent');
    assert.equal(entry.tokenId, t.bridge.services.tokens.identify(token())!.tokenId);
    assert.equal(entry.stateBefore, 'new');
  });

  it('grading the last card due answers "nothing due" with when the next one is, as text and for the app', async () => {
    const c = await legacy();
    try {
      let r: any = await c.callTool({ name: 'study_review_next', arguments: { deckId } });
      for (let i = 0; i < 5 && r.structuredContent.card; i++) {
        r = await c.callTool({
          name: 'study_review_grade',
          arguments: { deckId, cardNoteId: r.structuredContent.card.cardNoteId, rating: 'easy' },
        });
        assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 300));
        assert.match(r.content[0].text, /^Stored: easy \(reviewLogId [0-9A-Fa-f-]+\); next due /);
      }
      assert.equal(r.structuredContent.card, null);
      assert.equal(r.structuredContent.graded.rating, 'easy');
      assert.equal(r.content.length, 1);
      assert.match(
        r.content[0].text,
        /Nothing is due now in "Asymptote deck" \(deckId [^)]+\): the next card is due \d{4}-/,
      );
      assert.ok(Date.parse(r.structuredContent.nextDueAt) > Date.now());
    } finally {
      await c.close();
    }
    const log = await t.client.call('GET /decks/{id}/reviews', { params: { id: deckId } });
    assert.ok(log.reviews.length >= 2);
    assert.ok(log.reviews.every((e) => e.actor === 'agent'));
  });
});
