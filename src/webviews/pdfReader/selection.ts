/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { ReaderSelection } from './protocol';
import type { PageViewLike } from './highlights';

/**
 * The selection in the text layer as a card excerpt: the first page it
 * touches, the text selected on that page, and the bounding box of the
 * selected runs there in PDF points (top-left origin), i.e. the page's
 * viewport at scale 1, as the bridge's rectangles are. The box is the
 * browser's (the webview's fonts stretched to pdf.js's widths), so it is only
 * a hint where the text is: the bridge anchors the card to the glyphs.
 */
export function readSelection(pageView: (page: number) => PageViewLike | undefined): ReaderSelection | null {
  const sel = document.getSelection();
  if (!sel || sel.isCollapsed || !sel.rangeCount) return null;
  const range = sel.getRangeAt(0);
  const texts = textNodesIn(range);
  const first = texts.find((n) => pageOf(n));
  const pageDiv = first && pageOf(first);
  if (!pageDiv) return null;
  const page = Number(pageDiv.dataset.pageNumber);
  const view = pageView(page);
  if (!view) return null;
  const box = (pageDiv.querySelector(':scope > .canvasWrapper') ?? pageDiv).getBoundingClientRect();
  const scale = view.viewport.scale;
  let [l, t, r, b] = [Infinity, Infinity, -Infinity, -Infinity];
  let text = '';
  for (const node of texts) {
    if (pageOf(node) !== pageDiv) continue;
    const part = document.createRange();
    part.selectNodeContents(node);
    if (node === range.startContainer) part.setStart(node, range.startOffset);
    if (node === range.endContainer) part.setEnd(node, range.endOffset);
    const s = part.toString();
    if (!s.trim()) continue;
    // A line break in the text layer is a <br> after the line's last run; CJK lines join without a space.
    text += (text && needsSpace(node) && !(CJK_END.test(text) && CJK_START.test(s)) ? ' ' : '') + s;
    for (const c of part.getClientRects()) {
      if (c.width < 0.5 || c.height < 0.5) continue;
      l = Math.min(l, c.left);
      t = Math.min(t, c.top);
      r = Math.max(r, c.right);
      b = Math.max(b, c.bottom);
    }
  }
  // Some CJK fonts map glyphs to Kangxi radicals (⽤ for 用): NFKC gives the ideographs a person reads and searches.
  text = text
    .replace(/[\u2e80-\u2fdf]/g, (c) => c.normalize('NFKC'))
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || l === Infinity) return null;
  // Clipped to the page; rounded to hundredths of a point.
  const round = (v: number) => Math.round(v * 100) / 100;
  const x0 = Math.max(l, box.left);
  const y0 = Math.max(t, box.top);
  const x1 = Math.min(r, box.right);
  const y1 = Math.min(b, box.bottom);
  if (x1 <= x0 || y1 <= y0) return null;
  return {
    page,
    text,
    rect: {
      x: round((x0 - box.left) / scale),
      y: round((y0 - box.top) / scale),
      width: round((x1 - x0) / scale),
      height: round((y1 - y0) / scale),
    },
  };
}

const CJK =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u2e80-\\u2fdf\\u3000-\\u303f\\uff00-\\uffef';
const CJK_END = new RegExp(`[${CJK}]\\s*$`, 'u');
const CJK_START = new RegExp(`^\\s*[${CJK}]`, 'u');

function textNodesIn(range: Range): Text[] {
  const root = range.commonAncestorContainer;
  if (root.nodeType === Node.TEXT_NODE) return [root as Text];
  const out: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode())
    if (range.intersectsNode(n) && n.parentElement?.closest('.textLayer')) out.push(n as Text);
  return out;
}

function pageOf(node: Node): HTMLElement | null {
  return (node.parentElement?.closest('.textLayer')?.closest('.page') as HTMLElement | null) ?? null;
}

/** A run that starts a new line (pdf.js puts a <br> after a line's last run); runs within a line carry their own spaces. */
function needsSpace(node: Text): boolean {
  return node.parentElement?.previousSibling?.nodeName === 'BR';
}
