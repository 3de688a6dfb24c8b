import type { BridgeClient } from '../client/bridgeClient';
import { NOTE_PALETTE_HEX } from '../server/domain/cards/notePalette';
import type { OutlineEntry, ReaderHighlight } from '../webviews/pdfReader/protocol';

// What the reader shows from the bridge, in the page's terms: the book's outline and the set's cards in it.

/** Highlights of cards without a colour: the palette's light yellow. */
const DEFAULT_HIGHLIGHT = NOTE_PALETTE_HEX[0];

/** The bridge's outline (detected or the PDF's): the webview prefers the PDF's own when it has one. */
export async function bookOutline(client: BridgeClient | undefined, bookmd5: string): Promise<OutlineEntry[]> {
  const res = await client?.outline(bookmd5).catch(() => undefined);
  return (res?.segments ?? []).map((s) => ({ title: s.title, page: s.startPage, level: s.level }));
}

/** The set's anchored cards in this book, drawn in their palette colours. */
export async function anchoredHighlights(
  client: BridgeClient,
  topicid: string,
  bookmd5: string,
): Promise<ReaderHighlight[]> {
  const cards = await client.reader.anchoredCards(topicid, bookmd5);
  return cards.map((c) => ({
    noteid: c.noteid,
    page: c.page,
    rect: c.rect,
    rects: c.rects,
    title: c.title,
    color: (c.colorIndex !== null && NOTE_PALETTE_HEX[c.colorIndex]) || DEFAULT_HIGHLIGHT,
  }));
}
