import type * as vscode from 'vscode';
import { PAGE_TONES, type PageTone } from '../webviews/pdfReader/protocol';

/** Where a book was left: its page and pdf.js scale value. */
export interface ReaderSpot {
  page: number;
  scale: string;
}

const SPOTS_KEY = 'studyBridge.reader.spots';
const TONE_KEY = 'studyBridge.reader.tone';
/** Books remembered; the least recently read are forgotten first (globalState stays small). */
const MAX_BOOKS = 300;

/**
 * What the reader remembers across sessions, in VS Code's global state (per
 * machine, not synced): the last page and zoom of each book (by its MD5, so a
 * book keeps its place whichever set opens it), and the page tone.
 */
export class ReaderMemory {
  constructor(private readonly state: vscode.Memento) {}

  spot(bookmd5: string): ReaderSpot | undefined {
    const s = this.spots()[bookmd5];
    return s && Number.isInteger(s.page) && s.page >= 1 && typeof s.scale === 'string'
      ? { page: s.page, scale: s.scale }
      : undefined;
  }

  async remember(bookmd5: string, spot: ReaderSpot): Promise<void> {
    const spots = this.spots();
    const prev = spots[bookmd5];
    if (prev && prev.page === spot.page && prev.scale === spot.scale) return;
    delete spots[bookmd5]; // re-inserted last: object key order is recency
    spots[bookmd5] = { ...spot, at: Date.now() };
    const keys = Object.keys(spots);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_BOOKS))) delete spots[k];
    await this.state.update(SPOTS_KEY, spots);
  }

  tone(): PageTone {
    const t = this.state.get<string>(TONE_KEY);
    return PAGE_TONES.includes(t as PageTone) ? (t as PageTone) : 'auto';
  }

  async setTone(tone: PageTone): Promise<void> {
    await this.state.update(TONE_KEY, tone);
  }

  private spots(): Record<string, ReaderSpot & { at: number }> {
    return { ...(this.state.get<Record<string, ReaderSpot & { at: number }>>(SPOTS_KEY) ?? {}) };
  }
}
