import assert from 'node:assert/strict';
import type { BundleCheck, BundleReceipt } from '../../src/client/bundlesApi';
import { bundleIdOfPath, previewModel, receiptModel } from '../../src/editors/resultPreviewModel';

const ID = '3F2A1C4E-9B7D-4E21-8C3A-1234567890AB';

/** A check answer as POST /bundles/{id}/check gives it (child mode: excerpts are child cards). */
function checkAnswer(): BundleCheck {
  return {
    bridgeApiVersion: '1',
    bundleId: ID,
    state: 'prepared',
    ok: false,
    parsed: {
      headings: 4,
      importedCards: 3,
      wikilinks: 0,
      excerptsTotal: 3,
      excerptsAnchored: 1,
      failedExcerpts: undefined,
    },
    excerpts: [
      {
        kind: 'excerpt',
        line: 5,
        excerpt: 'Asymptote is a vector graphics language.',
        anchored: true,
        page: 2,
        rect: { x: 1, y: 2, width: 3, height: 4 },
        score: 0.98,
        cardKey: 'E1',
      },
      { kind: 'excerpt', line: 6, excerpt: 'Bananas are blue.', anchored: false, reason: 'no_match', cardKey: 'E2' },
      {
        kind: 'excerpt',
        line: 11,
        excerpt: 'Merged quote',
        anchored: false,
        reason: 'below_threshold',
        score: 0.4,
        cardKey: 'B',
      },
    ],
    tree: [
      {
        key: 'ROOT',
        parent: null,
        depth: 0,
        title: 'Asymptote basics',
        kind: 'card',
        line: 1,
        hasExcerpt: false,
        page: null,
        texts: 0,
        colorIndex: null,
        fillIndex: null,
      },
      {
        key: 'A',
        parent: 'ROOT',
        depth: 1,
        title: 'Introduction',
        kind: 'card',
        line: 3,
        hasExcerpt: false,
        page: null,
        texts: 1,
        colorIndex: 5,
        fillIndex: null,
      },
      {
        key: 'E1',
        parent: 'A',
        depth: 2,
        title: '',
        kind: 'excerpt',
        line: 5,
        hasExcerpt: true,
        page: 2,
        texts: 1,
        colorIndex: null,
        fillIndex: null,
      },
      {
        key: 'E2',
        parent: 'A',
        depth: 2,
        title: '',
        kind: 'card',
        line: 6,
        hasExcerpt: false,
        page: null,
        texts: 1,
        colorIndex: null,
        fillIndex: null,
      },
      {
        key: 'B',
        parent: 'ROOT',
        depth: 1,
        title: 'Drawing',
        kind: 'card',
        line: 9,
        hasExcerpt: false,
        page: null,
        texts: 0,
        colorIndex: null,
        fillIndex: null,
      },
    ],
    problems: [
      { line: 14, severity: 'error', code: 'TOO_DEEP', message: 'A heading of level 7 is deeper than 6 levels' },
    ],
    warnings: [],
  } as unknown as BundleCheck;
}

describe('result.md preview model', () => {
  it('shows excerpt child cards as excerpts, merged excerpts under their card, each anchored with its page or not with its reason', () => {
    const m = previewModel(checkAnswer());
    assert.deepEqual(
      m.nodes.map((n) => [
        n.key,
        n.depth,
        n.excerptCard,
        n.title,
        n.excerpts.map((x) => [x.line, x.anchored, x.page, x.reason ?? null]),
      ]),
      [
        ['ROOT', 0, false, 'Asymptote basics', []],
        ['A', 1, false, 'Introduction', []],
        ['E1', 2, true, '', [[5, true, 2, null]]],
        ['E2', 2, true, '', [[6, false, null, 'no_match']]],
        ['B', 1, false, 'Drawing', [[11, false, null, 'below_threshold']]],
      ],
    );
    assert.equal(m.nodes[3].excerpts[0].reasonText, "not found in the bundle's pages");
    assert.deepEqual(m.counts, { headings: 4, importedCards: 3, lostCards: 1, excerptsTotal: 3, excerptsAnchored: 1 });
  });

  it('lists parser problems and unanchored excerpts by line (what the Problems panel shows)', () => {
    const m = previewModel(checkAnswer());
    assert.deepEqual(
      m.problems.map((p) => [p.line, p.severity, p.code]),
      [
        [6, 'error', 'EXCERPT_NO_MATCH'],
        [11, 'error', 'EXCERPT_BELOW_THRESHOLD'],
        [14, 'error', 'TOO_DEEP'],
      ],
    );
    assert.match(m.problems[0].message, /Bananas are blue/);
  });

  it('turns a receipt into lost cards and failed excerpts with lines', () => {
    const receipt = {
      bridgeApiVersion: '1',
      bundleId: ID,
      rootNoteId: 'R',
      version: 2,
      replaced: true,
      preImportSnapshotId: 'S',
      persisted: true,
      receipt: [],
      parsed: {
        headings: 4,
        importedCards: 3,
        wikilinks: 0,
        excerptsTotal: 3,
        excerptsAnchored: 1,
        failedExcerpts: [{ noteid: 'E2', excerpt: 'Bananas are blue.', reason: 'no_match', line: 6 }],
      },
      excerptStatsTruncated: false,
      problems: [
        { line: 14, severity: 'error', code: 'TOO_DEEP', message: '…' },
        { line: 2, severity: 'warning', code: 'LEVEL_SKIPPED', message: '…' },
      ],
      warnings: ['1 heading(s) were not imported'],
    } as unknown as BundleReceipt;
    const r = receiptModel(receipt);
    assert.deepEqual([r.version, r.replaced, r.counts.lostCards, r.lostCardLines], [2, true, 1, [14]]);
    assert.deepEqual(
      r.failedExcerpts.map((x) => [x.line, x.anchored, x.reason]),
      [[6, false, 'no_match']],
    );
  });

  it('takes the bundle id from the folder name, and only from …/bundles/<uuid>/result.md', () => {
    assert.equal(bundleIdOfPath(`/data/bundles/${ID}/result.md`), ID);
    assert.equal(bundleIdOfPath(`C:\\Users\\me\\bundles\\${ID}\\result.md`), ID);
    assert.equal(bundleIdOfPath(`/data/bundles/${ID}/TASK.md`), undefined);
    assert.equal(bundleIdOfPath('/data/bundles/not-an-id/result.md'), undefined);
    assert.equal(bundleIdOfPath(`/data/other/${ID}/result.md`), undefined);
  });
});
