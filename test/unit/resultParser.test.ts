import assert from 'node:assert/strict';
import { parseResult } from '../../src/server/domain/bundles/resultParser';

describe('result.md parser', () => {
  it('builds the heading tree with bodies, excerpts, blocks and styles, with their lines', () => {
    const md = [
      'Intro text before any heading.',
      '# One [style: colorIndex=4 fillIndex=2]',
      'Body of one.',
      '',
      '- item a',
      '- item b',
      '## One.A',
      '[excerpt: A verbatim',
      'sentence over two lines.]',
      '[block: b_12_3, b_12_4]',
      '### One.A.i',
      '# Two',
      '```',
      'code()',
      '```',
    ].join('\n');
    const r = parseResult(md);
    assert.equal(r.headings, 4);
    assert.deepEqual(
      r.cards.map((c) => [c.title, c.level, c.line, c.parent]),
      [
        ['', 0, 1, null],
        ['One', 1, 2, 0],
        ['One.A', 2, 7, 1],
        ['One.A.i', 3, 11, 2],
        ['Two', 1, 12, 0],
      ],
    );
    assert.deepEqual(r.cards[0].texts, ['Intro text before any heading.']);
    assert.deepEqual(r.cards[1].texts, ['Body of one.', '• item a', '• item b']);
    assert.equal(r.cards[1].colorIndex, 4);
    assert.equal(r.cards[1].fillIndex, 2);
    assert.deepEqual(
      r.cards[2].excerpts.map((e) => [e.kind, e.text, e.line]),
      [
        ['excerpt', 'A verbatim sentence over two lines.', 8],
        ['block', 'b_12_3', 10],
        ['block', 'b_12_4', 10],
      ],
    );
    assert.deepEqual(r.cards[4].texts, ['code()']);
    assert.deepEqual(r.problems, []);
  });

  it('[[Title]] as a whole heading merges into that card; elsewhere it is plain text with a warning, never a link', () => {
    const r = parseResult('# Pens\nA\n# Other\nsee [[Pens]] here\n## [[Pens]]\nmerged body\n### child of merged\n');
    const merged = r.cards.find((c) => c.mergeTitle === 'Pens')!;
    assert.equal(merged.mergedInto, r.cards.find((c) => c.title === 'Pens' && !c.mergeTitle)!.index);
    assert.equal(r.wikilinks, 2);
    assert.deepEqual(r.cards.find((c) => c.title === 'Other')!.texts, ['see Pens here']);
    assert.ok(r.problems.some((p) => p.code === 'WIKILINK_NOT_A_LINK' && p.line === 4));
  });

  it('a missing merge target becomes a card of that title; merging into its own branch is refused', () => {
    const r = parseResult('# [[Nowhere]]\n# A\n## B\n### [[A]]\n');
    assert.ok(r.problems.some((p) => p.code === 'MERGE_TARGET_MISSING' && p.line === 1));
    assert.equal(r.cards[1].mergedInto, undefined);
    assert.equal(r.cards[1].title, 'Nowhere');
    const deep = r.cards.find((c) => c.line === 4)!;
    assert.equal(
      deep.mergedInto,
      r.cards.find((c) => c.title === 'A')!.index,
      'a descendant may merge up into an ancestor',
    );
    const own = parseResult('# [[B]]\n## B\n');
    assert.ok(own.problems.some((p) => p.code === 'MERGE_INTO_OWN_BRANCH'));
  });

  it('reports a 7th heading level as a lost card, bad styles, unclosed and empty markers, bad block ids, with lines', () => {
    const r = parseResult(
      '# A\n####### deep\n[style: colorIndex=16 fillIndex=3]\n[excerpt: never closed\n\n[excerpt: ]\n[block: p12]\n',
    );
    assert.equal(r.headings, 2);
    assert.equal(r.cards.length, 2, 'root and A only');
    const codes = r.problems.map((p) => `${p.code}@${p.line}`);
    assert.ok(codes.includes('TOO_DEEP@2'));
    assert.equal(codes.filter((c) => c === 'BAD_STYLE@3').length, 2);
    assert.ok(codes.includes('UNCLOSED_MARKER@4'));
    assert.ok(codes.includes('BAD_BLOCK_ID@7'));
    const ex = r.cards[1].excerpts;
    assert.deepEqual(
      ex.map((e) => e.invalid),
      ['unclosed', 'empty', 'bad_block_id'],
    );
  });

  it('brackets inside an excerpt are kept when balanced; dictionary mode strips [[ ]] and never merges', () => {
    const r = parseResult('# A\n[excerpt: see [pathmarkers], page 108]\n');
    assert.equal(r.cards[1].excerpts[0].text, 'see [pathmarkers], page 108');
    const d = parseResult('# [[term]]\ndefinition [[other]]\n', { stripWikilinks: true });
    assert.equal(d.cards[1].title, 'term');
    assert.equal(d.cards[1].mergeTitle, undefined);
    assert.deepEqual(d.cards[1].texts, ['definition other']);
    assert.equal(d.wikilinks, 2);
  });

  it('unbalanced brackets inside an excerpt do not cut it short (half-open intervals, stray "]", a "[" cut by the sentence end)', () => {
    // Each of these sentences is verbatim asymptote.pdf text that the first-"]"/balanced rule cut short or left unclosed.
    const quotes = [
      'HSV and RGB spaces, where the hue h is an angle in [0, 360) and the saturation s and value v lie in [0,1]: pen p=hsv(180,0.',
      'T2A]{fontenc}"); texpreamble("\\usepackage[cp1251]{inputenc}"); texpreamble("\\usepackage[russian]{babel}");',
      'This is equivalent to the PostScript transformation [t.',
      'For cyclic arrays, the slice A[m:n] still consists of the cells with indices in the set [m,n), but now negative values are allowed.',
      'Casts], page 78) provides for an elegant implementation of structure inheritance.',
    ];
    const r = parseResult(`# A\n${quotes.map((q) => `[excerpt: ${q}]`).join('\n')}\n`);
    assert.deepEqual(
      r.cards[1].excerpts.map((e) => [e.text, e.invalid, e.line]),
      quotes.map((q, i) => [q, undefined, i + 2]),
    );
    assert.deepEqual(r.cards[1].texts, []);
    assert.deepEqual(r.problems, []);
  });

  it('after an excerpt: own text on the same line or the next keeps its brackets; markers on one line stay apart', () => {
    const r = parseResult(
      '# A\n[excerpt: an interval [0, 360) here.]\nMy note [1].\n\n[excerpt: foo] comment [2]\n[block: b_1_2] [excerpt: see A[i] and [x]] [style: colorIndex=3]\n',
    );
    assert.deepEqual(
      r.cards[1].excerpts.map((e) => [e.kind, e.text]),
      [
        ['excerpt', 'an interval [0, 360) here.'],
        ['excerpt', 'foo'],
        ['block', 'b_1_2'],
        ['excerpt', 'see A[i] and [x]'],
      ],
    );
    assert.deepEqual(r.cards[1].texts, ['My note [1].', 'comment [2]']);
    assert.equal(r.cards[1].colorIndex, 3);
    assert.deepEqual(r.problems, []);
  });

  it('an unclosed marker stops at the next marker; a line like a link reference definition is not swallowed', () => {
    const r = parseResult(
      '# A\n[excerpt: never closed [0, 1) [excerpt: closed one.]\n\n[excerpt: Term]: its definition\n',
    );
    assert.deepEqual(
      r.cards[1].excerpts.map((e) => [e.text, e.invalid]),
      [
        ['never closed [0, 1)', 'unclosed'],
        ['closed one.', undefined],
        ['Term', undefined],
      ],
    );
    assert.ok(r.problems.some((p) => p.code === 'UNCLOSED_MARKER' && p.line === 2));
    assert.deepEqual(r.cards[1].texts, [': its definition']);
  });
});
