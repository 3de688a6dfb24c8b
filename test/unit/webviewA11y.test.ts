// Accessibility of the webview pages, read from their markup (src/webviews/*/markup.ts)
// and the shared stylesheet (media/a11y.css): every control has a label a screen reader
// announces, mind-map cards are reachable with the keyboard, reduced motion stops
// transitions and animations, and high-contrast themes get a visible focus ring.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeHtml } from '../../src/views/mindMapModel';
import { mindMapBody } from '../../src/webviews/mindMap/markup';
import { readerBody } from '../../src/webviews/pdfReader/markup';
import { RESULT_EDITOR_BODY } from '../../src/webviews/resultEditor/markup';
import { REVIEW_BODY } from '../../src/webviews/review/markup';
import { DECK_OPTIONS_BODY } from '../../src/webviews/deckOptions/markup';

const PAGES: Record<string, string> = {
  review: REVIEW_BODY,
  'mind map': mindMapBody('Organic chemistry'),
  reader: readerBody('{&quot;webviewSection&quot;:&quot;pdfText&quot;}'),
  'result.md preview': RESULT_EDITOR_BODY,
  'deck options': DECK_OPTIONS_BODY,
};

/** The opening tags of the page's controls. */
const controls = (html: string) => [...html.matchAll(/<(button|input|select|textarea)\b[^>]*>/g)].map((m) => m[0]);
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

describe('webview accessibility', () => {
  for (const [page, html] of Object.entries(PAGES)) {
    it(`${page}: every button and input has a non-empty aria-label`, () => {
      const tags = controls(html);
      assert.ok(tags.length > 0, 'the page has controls');
      const unlabelled = tags.filter((t) => !attr(t, 'aria-label')?.trim());
      assert.deepEqual(unlabelled, []);
      // Buttons are real buttons (keyboard operable by Enter and Space) and never submit anything.
      for (const t of tags.filter((x) => x.startsWith('<button'))) assert.equal(attr(t, 'type'), 'button', t);
    });
  }

  it('the counters and notices that change are announced (aria-live or a status role)', () => {
    assert.match(REVIEW_BODY, /id="progress"[^>]*aria-live="polite"/);
    assert.match(REVIEW_BODY, /id="message"[^>]*role="status"/);
    assert.match(readerBody(''), /id="notice"[^>]*role="status"/);
    assert.match(readerBody(''), /id="findCount"[^>]*aria-live="polite"/);
    assert.match(RESULT_EDITOR_BODY, /id="status"[^>]*aria-live="polite"/);
    assert.match(DECK_OPTIONS_BODY, /id="message"[^>]*role="status"/);
  });

  it('mind-map cards are focusable buttons (Tab reaches them; Enter opens one); the reader pages take focus to scroll', () => {
    const html = nodeHtml(
      { noteid: 'n1', title: 'Alkanes', colorIndex: 2, isSubMapRoot: false, hasExcerpt: true, page: 3 },
      [],
    );
    assert.equal(attr(html, 'tabindex'), '0');
    assert.equal(attr(html, 'role'), 'button');
    assert.match(readerBody(''), /id="viewerContainer"[^>]*tabindex="0"/);
  });

  it('media/a11y.css: reduced motion ends transitions and animations; high contrast draws a 2px focus ring and control borders', () => {
    const css = readFileSync(join(__dirname, '..', '..', 'media', 'a11y.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const reduced = /@media\s*\(prefers-reduced-motion:\s*reduce\)\s*\{([\s\S]*?)\}\s*\}/.exec(css)?.[1] ?? '';
    assert.match(reduced, /\*,\s*\*::before,\s*\*::after\s*\{/, 'applies to every element');
    assert.match(reduced, /animation-duration:\s*0\.01ms\s*!important/);
    assert.match(reduced, /transition-duration:\s*0\.01ms\s*!important/);
    for (const theme of ['vscode-high-contrast', 'vscode-high-contrast-light']) {
      assert.match(
        css,
        new RegExp(`body\\.${theme} :focus-visible[^{]*\\{[^}]*outline:\\s*2px solid`),
        `${theme}: focus ring`,
      );
      assert.match(
        css,
        new RegExp(`body\\.${theme} button[^{]*\\{[^}]*border:\\s*1px solid var\\(--vscode-contrastBorder`),
        `${theme}: button borders`,
      );
    }
    assert.match(css, /(^|\n):focus-visible\s*\{[^}]*outline:/, 'a focus ring in every theme');
  });

  it('every page links media/a11y.css (the page shell adds it)', () => {
    const shell = readFileSync(join(__dirname, '..', '..', 'src', 'editors', 'webviewPage.ts'), 'utf8');
    assert.match(shell, /A11Y_STYLES = \['media', 'a11y\.css'\]/);
    assert.match(shell, /\[\.\.\.spec\.styles, A11Y_STYLES\]/);
  });
});
