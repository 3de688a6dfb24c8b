import type { DeckOptions } from '../server/domain/decks/deckOptions';
import type { DeckPresets, PresetView } from '../server/domain/decks/deckPresets';
import type { Requester, Success } from './requester';

/**
 * Deck options through the typed client: the presets decks share (Anki's
 * options groups) and which one a deck uses. Shapes come from the domain's
 * own types (`import type` only), so a change there breaks the build here.
 */

export type { DeckOptions, PresetView };
export type PresetList = Success & { presets: PresetView[]; count: number };
export type SavedPreset = Success & Awaited<ReturnType<DeckPresets['save']>>;
export type DeckOptionsOf = Success & ReturnType<DeckPresets['ofDeck']>;
export type AssignedPreset = Success & Awaited<ReturnType<DeckPresets['assign']>>;

/** POST /deck-presets's body: no presetId makes a preset; only the options named change. */
export interface PresetWrite {
  presetId?: string;
  name?: string;
  options?: Partial<DeckOptions>;
}

const seg = encodeURIComponent;

export class DeckOptionsApi {
  constructor(private readonly http: Requester) {}

  /** GET /deck-presets: every preset, the built-in Default first when it was never edited. */
  presets() {
    return this.http.request<PresetList>('GET', '/deck-presets');
  }

  /** POST /deck-presets (confirmed): makes or changes a preset; every deck using it studies with it at once. */
  savePreset(write: PresetWrite) {
    return this.http.request<SavedPreset>('POST', '/deck-presets', { body: { ...write, confirm: true } });
  }

  /** GET /decks/{id}/options: the options a deck studies with and the preset they come from. */
  ofDeck(deckId: string) {
    return this.http.request<DeckOptionsOf>('GET', `/decks/${seg(deckId)}/options`);
  }

  /** POST /decks/{id}/options (confirmed): makes the deck use a preset. */
  assign(deckId: string, presetId: string) {
    return this.http.request<AssignedPreset>('POST', `/decks/${seg(deckId)}/options`, {
      body: { presetId, confirm: true },
    });
  }
}
