import sanitizeHtml from 'sanitize-html';

/**
 * The one allow-list card HTML passes before review shows it (reviewFaces.ts
 * builds every face through it; the review panel and the MCP review draw the
 * result as it is). What Anki cards use stays: text formatting, lists,
 * tables, ruby, links to the web, pictures, span/div/font with a class and a
 * few colour and layout styles. Scripts, styles, frames, objects, forms, SVG,
 * MathML, event handlers and any URL but http(s)/mailto links and picture
 * data are dropped. A picture's src is an Anki media name (a bare file name,
 * as fields write it) or a data: URL of a PNG, JPEG, GIF or WebP picture.
 * MathJax (`\(…\)`, `\[…\]`) is text and stays as it is.
 */

const TEXT_TAGS = ['b', 'strong', 'i', 'em', 'u', 's', 'strike', 'del', 'ins', 'sub', 'sup', 'small', 'big', 'mark'];
const BLOCK_TAGS = ['p', 'div', 'span', 'br', 'hr', 'blockquote', 'pre', 'code', 'kbd', 'font', 'center'];
const LIST_TAGS = ['ul', 'ol', 'li', 'dl', 'dt', 'dd'];
const TABLE_TAGS = ['table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'colgroup', 'col'];
const RUBY_TAGS = ['ruby', 'rt', 'rp', 'rb'];
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/** Dropped with everything inside them (the rest of what is not allowed keeps its text). */
const DROPPED_WHOLE = ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed'];
const DROPPED_TOO = ['svg', 'math', 'template', 'title', 'head', 'select', 'button', 'form', 'frameset', 'noembed'];

const COLOUR = /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\(\s*[\d.%\s,/]+\))$/i;
const LENGTH = /^(\d{1,4}(\.\d{1,3})?(px|em|rem|%|pt)?|normal|small|medium|large|x-large|smaller|larger)$/i;
/** Each allowed CSS property and the values it may take (anchored: `url(…)` and `expression(…)` never match). */
const STYLES: Record<string, RegExp[]> = {
  color: [COLOUR],
  'background-color': [COLOUR],
  'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/i],
  'font-style': [/^(normal|italic|oblique)$/i],
  'font-size': [LENGTH],
  'text-decoration': [/^(none|underline|line-through|overline)$/i],
  'text-align': [/^(left|right|center|justify|start|end)$/i],
  'vertical-align': [/^(baseline|sub|super|top|middle|bottom)$/i],
};

const PICTURE_DATA = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]+$/i;
/** A media name as Anki fields write it: a file name, no scheme, folder or leading dot. */
const MEDIA_NAME = /^[^/\\:?#.][^/\\:?#]*$/;

/** `src` of a picture as kept: picture data or a media name; anything else is dropped. */
function pictureSource(src: string | undefined): string | undefined {
  const s = src?.trim();
  return s && (PICTURE_DATA.test(s) || MEDIA_NAME.test(s)) ? s : undefined;
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...TEXT_TAGS, ...BLOCK_TAGS, ...LIST_TAGS, ...TABLE_TAGS, ...RUBY_TAGS, ...HEADINGS, 'a', 'img'],
  nonTextTags: [...DROPPED_WHOLE, ...DROPPED_TOO],
  allowedAttributes: {
    '*': ['class', 'style', 'title', 'lang', 'dir'],
    a: ['href', 'rel', 'target'],
    img: ['src', 'alt', 'width', 'height'],
    font: ['color', 'size'],
    td: ['colspan', 'rowspan', 'align'],
    th: ['colspan', 'rowspan', 'align'],
    col: ['span'],
    ol: ['start', 'type'],
  },
  allowedStyles: { '*': STYLES },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['data'] },
  allowProtocolRelative: false,
  transformTags: {
    // A link opens outside, and never with this page as its opener.
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'noopener noreferrer', target: '_blank' } }),
    img: (tagName, attribs) => {
      const { src, ...rest } = attribs;
      const kept = pictureSource(src);
      return { tagName, attribs: kept ? { ...rest, src: kept } : rest };
    },
  },
  // A picture whose src was dropped is no picture at all.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/** Card HTML through the allow-list: what is left is safe to draw as HTML. */
export function sanitizeCardHtml(html: string): string {
  // Without <, > or & there is no tag or entity: the allow-list gives the text back as it is (and costs ~20 µs).
  return !html ? '' : MARKUP.test(html) ? sanitizeHtml(html, OPTIONS) : html;
}

const MARKUP = /[<>&]/;

/** Plain card text as HTML: escaped, lines as <br> (what a card made of text shows). */
export function textAsHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '<br>');
}
