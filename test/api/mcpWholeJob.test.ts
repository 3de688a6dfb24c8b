// Issue 21: an agent that reaches the bridge only through MCP (here the official
// MCP Inspector CLI) adds a book, makes an anchored card tree in one call, makes
// a deck and quizzes; no HTTP outside /mcp. Every tool result stays under 100 KB.
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { callTool, textOf, type ToolResult } from '../helpers/mcpInspectorCli';
import { routeFor } from '../helpers/responseCheck';
import { storeDigest } from '../helpers/storeDigest';
import { proofField } from '../../src/server/api/system/routeProof';
import { corpusDir, corpusFile } from '../unit/pdfCorpus';
import { quotableLines, twentyCardTree } from './cardBatchFixture';

const RESULT_BUDGET = 100 * 1024;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('MCP only, with the MCP Inspector CLI: the whole job (#21)', function () {
  this.timeout(300_000);
  let t: TestBridge;
  let elsewhere: string;
  const sizes: Array<[string, number]> = [];
  before(async () => {
    elsewhere = tempDir('sb-elsewhere-');
    copyFileSync(corpusFile('CAD.pdf'), join(elsewhere, 'CAD.pdf'));
    t = await startBridge({ importFolders: [corpusDir] });
  });
  after(async () => {
    await t.stop();
    rmSync(elsewhere, { recursive: true, force: true });
    // The numbers for the report: bytes of each tool result as the Inspector printed it.
    console.log(
      `      MCP result sizes (bytes, budget ${RESULT_BUDGET}):\n${sizes.map(([what, n]) => `        ${String(n).padStart(7)}  ${what}`).join('\n')}`,
    );
  });

  /** A tool call through the Inspector; its result is under the budget and (unless refused) not an error. */
  async function tool(what: string, name: string, args: string[], refused = false): Promise<ToolResult> {
    const r = await callTool(t, name, args);
    sizes.push([what, r.size]);
    assert.ok(r.size <= RESULT_BUDGET, `${what}: ${r.size} bytes`);
    if (!refused) assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r).slice(0, 400)}`);
    return r;
  }
  const proofs: string[] = [];
  /** A study_call; a write's answer carries its route's proof field (as the guide's route table names it) set to true. */
  async function call(what: string, method: string, path: string, opts: { query?: object; body?: object } = {}) {
    const args = [
      `method=${method}`,
      `path=${path}`,
      ...(opts.query ? [`query=${JSON.stringify(opts.query)}`] : []),
      ...(opts.body ? [`body=${JSON.stringify(opts.body)}`] : []),
    ];
    const answer = JSON.parse(textOf(await tool(what, 'study_call', args)));
    const field = proofField(routeFor(method, `/bridge/v1${path}`)!);
    if (field) {
      assert.equal(answer[field], true, `${what}: proof ${field}`);
      proofs.push(`${method} ${path}: ${field}`);
    }
    return answer;
  }

  let book: string;

  it('study_upload of a corpus PDF, a 20-card tree with anchored excerpts in one study_call, a deck, a due card, a grade', async () => {
    const guide = textOf(await tool('study_guide topic=upload', 'study_guide', ['topic=upload']));
    assert.match(guide, /study_upload/);
    const set = await call('create study set', 'POST', '/library/study-sets', {
      body: { title: 'Asymptote over MCP', confirm: true },
    });
    assert.equal(set.isStudySet, true);

    const up = JSON.parse(
      textOf(
        await tool('study_upload asymptote.pdf', 'study_upload', [
          `path=${corpusFile('asymptote.pdf')}`,
          `topicid=${set.topicid}`,
        ]),
      ),
    );
    assert.deepEqual([up.created, up.filename, up.addedToStudySet], [true, 'asymptote.pdf', true]);
    book = up.bookmd5;
    for (let i = 0; ; i++) {
      const outline = await call('outline (extraction progress)', 'GET', `/documents/${book}/outline`);
      if (outline.extraction.state === 'ready') break;
      assert.ok(i < 120, `extraction still ${outline.extraction.state}`);
      await delay(1000);
    }

    const quotes = await quotableLines((path, query) => call('pages 10-12', 'GET', path, { query }), book, 10, 12, 16);
    const made = await call('20-card tree (one study_call)', 'POST', `/study-sets/${set.topicid}/notes`, {
      body: { cards: twentyCardTree(book, quotes), confirm: true },
    });
    assert.deepEqual([made.persisted, made.count, made.notAnchored], [true, 20, []]);
    const excerptCards = made.cards.filter((c: any) => c.sourceAnchor.hasExcerpt);
    assert.equal(excerptCards.length, 16);
    for (const c of excerptCards) assert.ok(c.sourceAnchor.rect, `card ${c.index} anchored`);

    const deck = await call('create deck', 'POST', '/decks', { body: { title: 'Best 8', confirm: true } });
    assert.equal(deck.isDeck, true);
    const best = excerptCards.slice(0, 8).map((c: any) => ({ sourceNoteId: c.noteid }));
    const added = await call('8 deck cards', 'POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: best, confirm: true },
    });
    assert.equal(added.persisted, true);
    const due = await call('due cards', 'GET', `/decks/${deck.deckId}/due`);
    assert.equal(due.count, 8);
    assert.deepEqual(
      due.cards.map((c: any) => c.cardNoteId),
      added.cards.map((c: any) => c.cardNoteId),
      'due in the order added',
    );
    assert.equal(due.cards[0].question.text, excerptCards[0].title);
    const graded = await call('grade', 'POST', `/decks/${deck.deckId}/reviews`, {
      body: { cardNoteId: due.cards[0].cardNoteId, rating: 'good', confirm: true },
    });
    assert.equal(graded.persisted, true);
    assert.equal((await call('due after the grade', 'GET', `/decks/${deck.deckId}/due`)).count, 7);
    assert.equal(proofs.length, 5, proofs.join('; ')); // set, cards, deck, deck cards, grade
  });

  it('refusals with clear codes, nothing stored: a path outside the folders, a non-PDF path, base64 that is not a PDF, JSON to the upload route', async () => {
    await t.bridge.services.extraction.whenReady(book); // no background writes during the digests
    const before = storeDigest(t.bridge.services.store);
    const errorOf = (r: ToolResult) => {
      assert.equal(r.isError, true);
      return JSON.parse(textOf(r)).error;
    };
    const outside = errorOf(
      await tool('study_upload outside', 'study_upload', [`path=${join(elsewhere, 'CAD.pdf')}`], true),
    );
    assert.equal(outside.code, 'PATH_NOT_ALLOWED');
    assert.ok(outside.details.allowedFolders.includes(corpusDir), JSON.stringify(outside.details));
    const notPdf = errorOf(
      await tool('study_upload README.md', 'study_upload', [`path=${corpusFile('README.md')}`], true),
    );
    assert.equal(notPdf.code, 'NOT_A_PDF');
    const b64 = errorOf(
      await tool(
        'study_call bodyBase64 not a PDF',
        'study_call',
        [
          'method=POST',
          'path=/library/documents/upload',
          'query={"filename":"x.pdf","confirm":1}',
          `bodyBase64=${Buffer.from('hello, not a pdf').toString('base64')}`,
        ],
        true,
      ),
    );
    assert.equal(b64.code, 'NOT_A_PDF');
    const json = errorOf(
      await tool(
        'study_call JSON to upload',
        'study_call',
        [
          'method=POST',
          'path=/library/documents/upload',
          'query={"filename":"x.pdf","confirm":1}',
          `body={"path":"${corpusFile('CAD.pdf')}"}`,
        ],
        true,
      ),
    );
    assert.equal(json.code, 'RAW_BODY_REQUIRED');
    assert.match(json.message, /study_upload/);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
