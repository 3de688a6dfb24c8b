import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clozeParts, clozeText, htmlToText } from '../../src/server/api/ankiconnect/ankiFields';
import { compileGlob } from '../../src/server/api/ankiconnect/ankiGlob';
import { AnkiError } from '../../src/server/api/ankiconnect/ankiError';
import type { AnkiNote } from '../../src/server/api/ankiconnect/ankiNoteRead';
import { compileQuery, searchNotes } from '../../src/server/api/ankiconnect/ankiSearch';

/**
 * The AnkiConnect query matcher and field readers, written without
 * backtracking, against the regexes they replaced (kept here as the
 * reference: on small inputs they are fast and say what the answer is).
 */

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
/** Anki's wildcards as a regex: `*` any run, `_` any one character, case-insensitive, the whole value. */
const referenceGlob = (pattern: string) =>
  new RegExp(`^${escape(pattern).replace(/\*/g, '[\\s\\S]*').replace(/_/g, '[\\s\\S]')}$`, 'i');

const referenceHtml = (html: string) =>
  html
    .replace(/\[sound:[^\]]*\]/gi, '')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li|h[1-6]|tr)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) =>
      e.toLowerCase() === 'amp' ? '&' : e.toLowerCase() === 'lt' ? '<' : all,
    )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

const DELETION = /\{\{c(\d+)::([\s\S]*?)(?:::[\s\S]*?)?\}\}/g;
const referenceCloze = (text: string) => ({
  title: text.replace(DELETION, (_a, _n, answer: string) => answer),
  question: text.replace(DELETION, () => '{{cloze}}'),
});
const referenceClozeGaps = (title: string, question: string) => {
  const pieces = question.split('{{cloze}}');
  return new RegExp(`^${pieces.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([\\s\\S]+?)')}$`).exec(
    title,
  );
};

const chars = (alphabet: string[], maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((a) => a.join(''));
const TEXT = ['a', 'b', 'A', 'B', 'é', 'É', '.', ' ', '\n', '*', '_'];
const PATTERN = ['a', 'b', 'A', 'é', '.', ' ', '*', '*', '_'];

function note(title: string, body: string): AnkiNote {
  return {
    noteid: '00000000-0000-4000-8000-000000000000',
    topicid: 't',
    title,
    body,
    modified: '2026-01-01T00:00:00.000Z',
    created: '2026-01-01T00:00:00.000Z',
    model: 'Basic',
    question: null,
    decks: [{ deckId: 'd', title: 'Deck::Sub', cardNoteId: 'c' }],
    hashtags: ['x/y'],
    images: [],
  };
}

describe('AnkiConnect query matcher and field readers: properties (fast-check)', function () {
  this.timeout(60_000);

  it('the wildcard matcher agrees with the reference regex on small random patterns and values', () => {
    fc.assert(
      fc.property(chars(PATTERN, 10), chars(TEXT, 14), (pattern, value) => {
        assert.equal(compileGlob(pattern)(value), referenceGlob(pattern).test(value), `${pattern} on ${value}`);
      }),
      { numRuns: 5000 },
    );
  });

  it('matches the pattern that took the old regex minutes at once (and finds the value that fits it)', () => {
    const pattern = `${'*a'.repeat(30)}*b`;
    assert.equal(compileGlob(pattern)('a'.repeat(5000)), false);
    assert.equal(compileGlob(pattern)(`${'a'.repeat(30)}b`), true);
    assert.equal(compileGlob(pattern)(`${'a'.repeat(29)}b`), false);
  });

  it('media names: `?` is the one-character wildcard there, `_` literal', () => {
    assert.equal(compileGlob('cat?.png', '?')('cat1.png'), true);
    assert.equal(compileGlob('cat?.png', '?')('cat_x.png'), false);
    assert.equal(compileGlob('cat_.png', '?')('cat1.png'), false);
  });

  it('any query either compiles or is refused as AnkiConnect refuses (AnkiError), and the search answers', async () => {
    const notes = [note('aab', 'b a'), note('Hello world', '')];
    const query = fc.oneof(
      fc.string({ maxLength: 260 }),
      chars(['deck:', 'tag:', 'note:', 'nid:', 'added:', 'Front:', '-', '"', ' ', '*', '_', 'a', '1', '9', ':'], 40),
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        try {
          compileQuery(q);
          const found = await searchNotes(notes, q);
          assert.ok(found.every((n) => notes.includes(n)));
        } catch (e) {
          assert.ok(e instanceof AnkiError, `${JSON.stringify(q)}: ${String(e)}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("the budget counts the search's own work, not the time others hold the loop while it waits", async () => {
    // 40 pages of a few notes: the search gives the loop back after each, and each time another task holds it 100 ms
    // (3 s in all, over the 2 s budget). Counted by the clock the search would end; it worked a few ms.
    const pages = (async function* () {
      for (let p = 0; p < 40; p++) yield [note(`page ${p} abc`, ''), note('other', '')];
    })();
    let blocked = 0;
    const hold = () => {
      const until = performance.now() + 100;
      while (performance.now() < until);
      if (++blocked < 30) setImmediate(hold);
    };
    setImmediate(hold);
    const found = await searchNotes(pages, '*abc', 2000);
    assert.equal(found.length, 40);
    assert.ok(blocked >= 20, `others held the loop ${blocked} times while the search ran`);
  });

  it('a search past its time budget ends with QUERY_TOO_COSTLY, in AnkiConnect terms, and gives the loop back meanwhile', async () => {
    // 200,000 notes of 20,000 characters: about 1.5 s of matching on Node 20 here, five times the budget (with
    // 2,000 characters it took 225 ms, and a faster Node finished inside the budget).
    const long = 'A'.repeat(20_000);
    const notes = Array.from({ length: 200_000 }, () => note(long, long));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await assert.rejects(searchNotes(notes, '*a*a*a*c', 300), (e: Error) => {
        assert.ok(e instanceof AnkiError);
        assert.match(e.message, /^QUERY_TOO_COSTLY: .*0\.3 s budget/);
        return true;
      });
      assert.equal(
        (await searchNotes([note('ab', ''), note('b', '')], 'a*')).length,
        1,
        'within its budget it answers',
      );
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks > 0, 'timers ran while the search went on');
  });

  it('field HTML → text agrees with the regexes it replaced', () => {
    const HTML = ['<', '>', '/', 'br', 'div', 'script', 'style', '[sound:', ']', 'a', ' ', '\t', '\n', '&amp;', '&lt;'];
    fc.assert(
      fc.property(chars(HTML, 24), (html) => assert.equal(htmlToText(html), referenceHtml(html), JSON.stringify(html))),
      { numRuns: 5000 },
    );
  });

  it('Cloze Text → title and question, and the title back into the question, agree with the regexes they replaced', () => {
    const CLOZE = ['{{c1::', '{{c2::', '::', '}}', '}', '{', ':', 'a', 'b'];
    fc.assert(
      fc.property(chars(CLOZE, 12), (text) => {
        const ours = clozeParts(text);
        assert.deepEqual({ title: ours.title, question: ours.question }, referenceCloze(text), JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(chars(['a', 'b', 'ab'], 8), chars(['a', 'b', '{{cloze}}'], 8), (title, question) => {
        const m = referenceClozeGaps(title, question);
        const pieces = question.split('{{cloze}}');
        const expected =
          pieces.length < 2
            ? title
            : m
              ? pieces.map((p, i) => (i ? `{{c${i}::${m[i]}}}${p}` : p)).join('')
              : pieces.map((p, i) => (i ? `{{c${i}::…}}${p}` : p)).join('');
        assert.equal(clozeText(title, question), expected, JSON.stringify([title, question]));
      }),
      { numRuns: 5000 },
    );
  });
});
