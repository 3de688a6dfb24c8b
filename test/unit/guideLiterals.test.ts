import assert from 'node:assert/strict';
import { allRoutes } from '../../src/server/api/routes';
import { buildGuide, GUIDE_TOPICS } from '../../src/server/api/system/guide';
import { fill, literalRequests, placeholders, requestProblems, routeOf } from '../helpers/guideRequests';

const guide = buildGuide(allRoutes);

/** A valid value for each placeholder (ids by their kind); the test only needs the shapes to be right. */
const SAMPLE: Record<string, string> = {
  topicid: '00000000-0000-4000-8000-00000000000A',
  noteid: '00000000-0000-4000-8000-00000000000B',
  deckId: '00000000-0000-4000-8000-00000000000C',
  cardNoteId: '00000000-0000-4000-8000-00000000000D',
  snapshotId: '00000000-0000-4000-8000-00000000000E',
  bundleId: '00000000-0000-4000-8000-00000000000F',
  bookmd5: '0123456789abcdef0123456789abcdef',
  revision: '12',
  approvalId: 'apr_0123456789abcdef',
};
/** Placeholders that are no answer's field: what the agent writes itself. */
const AUTHORED = new Set(['a sentence of that page, verbatim']);
const VALUES = { ...SAMPLE, ...Object.fromEntries([...AUTHORED].map((a) => [a, 'Some verbatim sentence.'])) };

/** Every key any route's answer declares (the fields a placeholder can be filled from). */
function answerFields(): Set<string> {
  const keys = new Set<string>();
  const walk = (s: any): void => {
    const t = s?.def?.type;
    if (t === 'object')
      for (const [k, v] of Object.entries(s.shape)) {
        keys.add(k);
        walk(v);
      }
    else if (t === 'array') walk(s.element);
    else if (t === 'optional' || t === 'nullable' || t === 'default') walk(s.def.innerType);
    else if (t === 'pipe') walk(s.def.out);
    else if (t === 'union') s.def.options.forEach(walk);
  };
  for (const r of allRoutes) if (r.response) walk(r.response);
  return keys;
}

describe('the guide: literal requests that fit one context window (#18 §3)', () => {
  const requests = literalRequests(guide.markdown);

  it('is at most 8 KB, and each study_guide topic well within an MCP result', () => {
    const bytes = Buffer.byteLength(guide.markdown);
    assert.ok(bytes <= 8 * 1024, `the guide is ${bytes} bytes`);
    for (const [name, text] of Object.entries(guide.topics))
      assert.ok(Buffer.byteLength(text) <= 8 * 1024, `topic ${name}: ${Buffer.byteLength(text)} bytes`);
    for (const t of GUIDE_TOPICS) assert.ok(guide.topics[t], `topic ${t}`);
    for (const old of ['find', 'study-set', 'snapshots'])
      assert.ok(guide.topics[old], `earlier topic name ${old} still answered`);
    assert.doesNotMatch(guide.markdown, /\| method \| path \|/, 'the route table is not in the guide');
    assert.match(guide.markdown, /`GET \/guide\/routes`/);
    assert.match(guide.routes, /\| POST \| `\/bundles\/prepare` \|/);
  });

  it("every literal request passes its route's validation, with no field the route would ignore", () => {
    assert.ok(requests.length >= 20, `${requests.length} literal requests`);
    const withBody = requests.filter((r) => r.body !== undefined);
    assert.ok(withBody.length >= 12, `${withBody.length} with a JSON body`);
    for (const r of requests) assert.deepEqual(requestProblems(allRoutes, fill(r, VALUES)), [], r.text);
  });

  it('each workflow the issue names carries its literal bodies with the real field names', () => {
    const body = (method: string, path: string) => {
      const r = requests.find(
        (x) =>
          x.method === method &&
          routeOf(allRoutes, method, fill(x, VALUES).path)?.route.path === path &&
          x.body !== undefined,
      );
      assert.ok(r, `a literal ${method} ${path}`);
      return r.body as Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(body('POST', '/bundles/prepare')).sort(), [
      'anchorMode',
      'async',
      'bookmd5',
      'preset',
      'segments',
      'topicid',
    ]);
    assert.equal(body('POST', '/bundles/{id}/check').excerptMode, 'child');
    assert.equal(body('POST', '/bundles/{id}/submit').excerptMode, 'child');
    assert.equal(body('POST', '/decks').confirm, true);
    assert.deepEqual(body('POST', '/decks/{id}/cards').cards, [{ sourceNoteId: '<noteid>' }]);
    assert.deepEqual(body('POST', '/decks/{id}/reviews'), {
      cardNoteId: '<cardNoteId>',
      rating: 'good',
      confirm: true,
    });
    assert.ok(body('POST', '/notes/{id}/title').expectedPrefix !== undefined);
    assert.ok(body('POST', '/study-sets/{id}/notes').excerpt);
    assert.ok(requests.some((r) => r.target.startsWith('/search?')));
    assert.ok(requests.some((r) => r.target.startsWith('/decks/<deckId>/due?until=')));
    // Where the agent chooses them: excerptMode, where result.md goes, submit commits at once.
    assert.match(guide.markdown, /excerptMode `child` \(default, one card per\s+concept\)/);
    assert.match(guide.markdown, /`<bundlePath>\/result\.md`[^]*`resultMarkdown`/);
    assert.match(guide.markdown, /submit \{"excerptMode":"child"\}` commits at once/);
  });

  it('every placeholder names a field some route answers (or what the agent writes itself)', () => {
    const fields = answerFields();
    const names = new Set(requests.flatMap(placeholders));
    assert.ok(names.size >= 6, [...names].join(', '));
    for (const n of names) assert.ok(fields.has(n) || AUTHORED.has(n), `<${n}> is no answer's field`);
  });

  it('a drifted body is caught: a misspelt or renamed field, a wrong type, an unknown route', () => {
    const prepare = requests.find((r) => r.target === '/bundles/prepare')!;
    const drift = (body: Record<string, unknown>) => requestProblems(allRoutes, fill({ ...prepare, body }, SAMPLE));
    const good = prepare.body as Record<string, unknown>;
    const { topicid, ...rest } = good;
    assert.match(drift({ ...rest, topicId: topicid }).join('\n'), /unknown field \.topicId/);
    assert.match(
      drift({ ...good, segments: [{ start: 19, endPage: 26 }] }).join('\n'),
      /unknown field \.segments\[0\]\.start/,
    );
    assert.match(drift({ ...good, async: 'yes' }).join('\n'), /async/);
    assert.deepEqual(requestProblems(allRoutes, { method: 'POST', path: '/bundles/split', query: {}, body: {} }), [
      'POST /bundles/split is not a declared route',
    ]);
    const review = requests.find((r) => r.target === '/decks/<deckId>/reviews')!;
    assert.match(
      requestProblems(
        allRoutes,
        fill({ ...review, body: { cardNoteId: '<cardNoteId>', grade: 'good', confirm: true } }, SAMPLE),
      ).join('\n'),
      /unknown field \.grade/,
    );
  });
});
