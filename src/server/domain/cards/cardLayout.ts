import { invalidInput } from '../../errors';
import type { CardContent } from './cardImages';
import type { FontSpec } from './cardFonts';

/**
 * Where everything of a rendered card goes, in pixels, worked out before a
 * single pixel is drawn: the 36-million-pixel limit is checked as the height
 * grows, so an oversized card is refused at once and cheaply.
 */

export const MAX_RENDER_PIXELS = 36_000_000;

export interface CardPicture {
  part: CardContent;
  /** Natural size in pixels; an excerpt region's is its size in points. */
  width: number;
  height: number;
  /** Vector source: may be drawn larger than its natural size. */
  scalable: boolean;
}

/** What a card shows, in reading order. */
export interface CardView {
  title: string;
  body: { text: string; excerpt: boolean } | null;
  pictures: CardPicture[];
  /** Parts shown as a line (audio, video, attachments). */
  media: Array<{ kind: string; mimeType: string | null }>;
  comments: string[];
  hashtags: string[];
  colour: string;
}

export type LayoutItem =
  | { kind: 'text'; x: number; y: number; h: number; text: string; font: FontSpec; colour: string }
  | { kind: 'picture'; x: number; y: number; w: number; h: number; picture: CardPicture }
  | { kind: 'box'; x: number; y: number; w: number; h: number; colour: string };

export interface CardLayout {
  width: number;
  height: number;
  items: LayoutItem[];
}

export type Measure = (text: string, font: FontSpec) => number;

const PAD = 28;
const GAP = 16;
const TITLE: FontSpec = { size: 28, bold: true };
const BODY: FontSpec = { size: 19, bold: false };
const COMMENT: FontSpec = { size: 17, bold: false };
const TAGS: FontSpec = { size: 16, bold: false };
export const lineHeight = (f: FontSpec) => Math.round(f.size * 1.4);

/** Greedy word wrap, line by line (a caller over the pixel limit stops early); a word wider than the line (long URLs, CJK runs) is cut between characters. */
export function* wrapText(text: string, font: FontSpec, maxWidth: number, measure: Measure): Generator<string> {
  for (const para of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const token of para.match(/\s*\S+/g) ?? []) {
      const candidate = line + token;
      if (measure(candidate, font) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line) yield line;
      let word = token.trimStart();
      if (measure(word, font) <= maxWidth) {
        line = word;
        continue;
      }
      let piece = '';
      for (const ch of Array.from(word)) {
        if (piece && measure(piece + ch, font) > maxWidth) {
          yield piece;
          piece = '';
        }
        piece += ch;
      }
      word = piece;
      line = word;
    }
    yield line;
  }
}

/** Lays the card out at `width` pixels; 422 RENDER_TOO_LARGE as soon as width × height passes 36 million. */
export function layoutCard(view: CardView, width: number, measure: Measure): CardLayout {
  const items: LayoutItem[] = [];
  const inner = width - 2 * PAD;
  let y = 0;
  const grow = (h: number) => {
    y += h;
    if (width * (y + PAD) > MAX_RENDER_PIXELS) {
      throw invalidInput(
        `The card rendered at width ${width} would pass ${MAX_RENDER_PIXELS} pixels (it is at least ${y + PAD} pixels tall). Use a smaller width, or read the card's text through POST /notes/batch-get. Nothing was drawn.`,
        { width, minimumHeight: y + PAD, maxPixels: MAX_RENDER_PIXELS },
        'RENDER_TOO_LARGE',
      );
    }
  };
  const paragraph = (text: string, font: FontSpec, colour: string, indent = 0) => {
    const lh = lineHeight(font);
    const top = y;
    for (const line of wrapText(text, font, inner - indent, measure)) {
      items.push({ kind: 'text', x: PAD + indent, y, h: lh, text: line, font, colour });
      grow(lh);
    }
    return top;
  };

  items.push({ kind: 'box', x: 0, y: 0, w: width, h: 8, colour: view.colour });
  grow(8 + PAD - 6);
  if (view.title) {
    paragraph(view.title, TITLE, '#111111');
    grow(GAP / 2);
  }
  if (view.body?.text.trim()) {
    const top = paragraph(view.body.text, BODY, '#222222', view.body.excerpt ? 16 : 0);
    if (view.body.excerpt) items.push({ kind: 'box', x: PAD, y: top + 2, w: 4, h: y - top - 4, colour: '#F5A04A' });
    grow(GAP);
  }
  for (const pic of view.pictures) {
    // Pictures fill the width (an excerpt region is vector; a stored image is never enlarged), and stay under two widths tall.
    let w = pic.scalable ? inner : Math.min(inner, pic.width);
    let h = (w * pic.height) / pic.width;
    if (h > 2 * inner) {
      h = 2 * inner;
      w = (h * pic.width) / pic.height;
    }
    w = Math.max(1, Math.round(w));
    h = Math.max(1, Math.round(h));
    items.push({ kind: 'picture', x: PAD, y, w, h, picture: pic });
    grow(h + GAP);
  }
  for (const m of view.media) {
    paragraph(`[${m.kind}${m.mimeType ? `: ${m.mimeType}` : ''}]`, COMMENT, '#555555');
    grow(GAP / 2);
  }
  for (const c of view.comments) {
    items.push({ kind: 'box', x: PAD, y, w: inner, h: 1, colour: '#DDDDDD' });
    grow(GAP / 2);
    paragraph(c, COMMENT, '#333333');
    grow(GAP / 2);
  }
  if (view.hashtags.length) {
    grow(GAP / 2);
    paragraph(view.hashtags.map((h) => `#${h}`).join('   '), TAGS, '#2F5FB3');
  }
  return { width, height: Math.round(y + PAD), items };
}
