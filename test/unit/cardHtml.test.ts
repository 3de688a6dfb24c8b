import assert from 'node:assert/strict';
import { sanitizeCardHtml, textAsHtml } from '../../src/server/domain/decks/cardHtml';

/**
 * The allow-list card HTML passes before review shows it: what Anki cards are
 * made of stays, and nothing that runs, loads from elsewhere or styles the
 * page does.
 */

const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
/** What must never be in the output of a hostile input, however it was spelt. */
const RUNS =
  /<script|<iframe|<object|<embed|<svg|<math|<form|<style|<link|<meta|<base|\son\w+\s*=|javascript:|vbscript:|data:text/i;

describe('card HTML allow-list', () => {
  it('keeps what Anki cards are made of: formatting, lists, tables, ruby, headings, links and pictures', () => {
    const kept = [
      '<b>bold</b> <strong>strong</strong> <i>it</i> <em>em</em> <u>u</u> <s>s</s> <sub>2</sub><sup>3</sup>',
      '<ul><li>one</li></ul><ol start="3"><li>three</li></ol>',
      '<table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="2">c</td></tr></tbody></table>',
      '<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp></ruby>',
      '<h2>Heading</h2><p>para<br />line</p><hr /><blockquote>q</blockquote><pre><code>x</code></pre>',
      '<div class="front">d</div><span class="cloze">[...]</span>',
      '<img alt="a cat" src="cat.png" />',
      `<img src="${PNG}" />`,
      '<font color="#ff0000">red</font>',
    ];
    for (const html of kept) assert.equal(sanitizeCardHtml(html), html);
    assert.equal(
      sanitizeCardHtml('<a href="https://example.org/x">x</a>'),
      '<a href="https://example.org/x" rel="noopener noreferrer" target="_blank">x</a>',
    );
  });

  it('keeps MathJax and text as text', () => {
    assert.equal(
      sanitizeCardHtml('\\(x^2 &lt; 3\\) and \\[\\frac{a}{b}\\]'),
      '\\(x^2 &lt; 3\\) and \\[\\frac{a}{b}\\]',
    );
    assert.equal(sanitizeCardHtml('[sound:word.mp3] {{c1::x}}'), '[sound:word.mp3] {{c1::x}}');
  });

  it('keeps a few styles with plain values, and drops the rest of a style', () => {
    assert.equal(
      sanitizeCardHtml('<span style="color: red; font-weight: bold; position: fixed; top: 0">s</span>'),
      '<span style="color:red;font-weight:bold">s</span>',
    );
    assert.equal(
      sanitizeCardHtml(
        '<span style="background-image: url(javascript:alert(1)); color: expression(alert(1))">s</span>',
      ),
      '<span>s</span>',
    );
    assert.equal(
      sanitizeCardHtml('<div style="background: url(https://tracker.example/p.gif)">d</div>'),
      '<div>d</div>',
    );
  });

  const hostile: Array<[string, string]> = [
    ['<script>alert(1)</script>ok', 'ok'],
    ['<SCRIPT SRC=//evil.example/x.js></SCRIPT>ok', 'ok'],
    ['<img src=x onerror=alert(1)>', '<img src="x" />'],
    ['<img src="javascript:alert(1)">ok', 'ok'],
    ['<img src="https://tracker.example/p.gif">ok', 'ok'],
    ['<img src="//tracker.example/p.gif">ok', 'ok'],
    ['<img src="../../secret.png">ok', 'ok'],
    ['<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">ok', 'ok'],
    ['<img src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">ok', 'ok'],
    ['<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer" target="_blank">x</a>'],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', '<a rel="noopener noreferrer" target="_blank">x</a>'],
    ['<a href="java&#x09;script:alert(1)">x</a>', '<a rel="noopener noreferrer" target="_blank">x</a>'],
    ['<a href="vbscript:msgbox(1)">x</a>', '<a rel="noopener noreferrer" target="_blank">x</a>'],
    ['<a href="data:text/html,<script>alert(1)</script>">x</a>', '<a rel="noopener noreferrer" target="_blank">x</a>'],
    ['<svg onload="alert(1)"><circle r="1"/>drawn</svg>ok', 'ok'],
    ['<math><mi>x</mi></math>ok', 'ok'],
    ['<iframe src="https://evil.example">fallback</iframe>ok', 'ok'],
    ['<object data="x.swf">o</object><embed src="x.swf">ok', 'ok'],
    ['<form action="https://evil.example"><input name="p"><button>go</button></form>ok', 'ok'],
    ['<style>body{display:none}</style>ok', 'ok'],
    ['<link rel="stylesheet" href="https://evil.example/x.css"><meta http-equiv="refresh" content="0">ok', 'ok'],
    ['<base href="https://evil.example/">ok', 'ok'],
    ['<div onclick="alert(1)" onmouseover="x()">d</div>', '<div>d</div>'],
    ['<b id="x" data-x="1" name="n">b</b>', '<b>b</b>'],
    ['<p>unclosed <b>bold', '<p>unclosed <b>bold</b></p>'],
    ['<scr<script>ipt>alert(1)</script>', 'ipt&gt;alert(1)'],
  ];
  for (const [input, want] of hostile)
    it(`drops what runs or loads: ${input.slice(0, 60)}`, () => {
      const out = sanitizeCardHtml(input);
      assert.equal(out, want);
      assert.doesNotMatch(out, RUNS);
    });

  it('text becomes HTML escaped, lines as <br>', () => {
    assert.equal(textAsHtml('a < b & "c"\n<script>'), 'a &lt; b &amp; &quot;c&quot;<br>&lt;script&gt;');
    assert.equal(sanitizeCardHtml(textAsHtml('<img src=x onerror=alert(1)>')), '&lt;img src=x onerror=alert(1)&gt;');
  });
});
