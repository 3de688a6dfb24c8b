import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseMarkdownOutline } from '../../src/server/domain/mindmap/outlineMarkdown';
import { parseResult } from '../../src/server/domain/bundles/resultParser';

/**
 * The Markdown outline parser on bracket soup: runs of `[`, `](`, `[[`, `]]`,
 * markers, headings and bullets in any order. It never throws, and every
 * card it returns has a string title; long runs finish (the suite's timeout
 * bounds them: a quadratic scan of 200,000 brackets would not).
 */

const piece = fc.constantFrom(
  '[',
  ']',
  '](',
  '[[',
  ']]',
  '(',
  ')',
  '[excerpt:',
  '[block:',
  '# ',
  '## ',
  '- ',
  '  - ',
  '\n',
  '\n\n',
  'a',
  ' ',
  '`',
  '*',
  '<',
  '>',
);

describe('parseMarkdownOutline on random bracket soup (fast-check)', () => {
  it('never throws and gives cards with string titles', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (parts) => {
        const { roots } = parseMarkdownOutline(parts.join(''));
        const walk = (n: { title: unknown; children: unknown[] }): void => {
          assert.equal(typeof n.title, 'string');
          n.children.forEach((c) => walk(c as typeof n));
        };
        roots.forEach(walk);
      }),
      { numRuns: 300 },
    );
  });

  it('long runs of one piece finish, in the outline and the result.md parser alike', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 20_000, max: 60_000 }),
        (unit, n) => {
          const text = `# T\n\n${unit.join('').repeat(Math.ceil(n / unit.join('').length))}`;
          parseMarkdownOutline(text);
          parseResult(text);
        },
      ),
      // `[[a` repeated: the wikilink pattern once retried from every `[[` to the end of the run (minutes at this size).
      {
        numRuns: 15,
        examples: [
          [['[[', 'a'], 200_000],
          [['[', '['], 200_000],
        ],
      },
    );
  });
});
