/**
 * The Deck Options page's protocol (host: views/deckOptionsPanel.ts; page:
 * main.ts), carried by the webview channel (../channel). The host owns the
 * deck, its presets and which one it uses, and sends them whole once the page
 * is ready and after every change; the page keeps only the form being edited.
 * Saves and new presets are requests: a refusal of the bridge (4xx) comes
 * back as the answer, its messages by field, for the page to show inline.
 */
import type { DeckOptions } from '../../client/deckOptionsApi';
import { fields, isString, type RequestType } from '../channel/protocol';

export interface DeckRef {
  deckId: string;
  title: string;
}

/** What the page edits: every option but FSRS's fitted weights (Optimize sets those). */
export type EditableOptions = Omit<DeckOptions, 'fsrsParameters'>;
export type OptionKey = keyof EditableOptions;

export interface PresetModel {
  presetId: string;
  name: string;
  builtIn: boolean;
  /** Decks using it (this one included when it does). */
  deckCount: number;
  options: EditableOptions;
}

export type DeckOptionsViewState =
  | { status: 'loading'; deck: DeckRef }
  | { status: 'error'; deck: DeckRef; message: string }
  | {
      status: 'ready';
      deck: DeckRef;
      /** The preset the deck uses now. */
      presetId: string;
      presets: PresetModel[];
    };

/** A form as the page read it: numbers may be null (an empty field), for the bridge to refuse. */
export type OptionsDraft = { [K in OptionKey]?: unknown };

export interface SaveRequest {
  /** The preset chosen for the deck; its options and name are written, then the deck uses it. */
  presetId: string;
  name: string;
  options: OptionsDraft;
}

/** A save's answer: refused, the bridge's message and, where it named one, the field it refused. */
export type SaveAnswer =
  | { ok: true; message: string; presetId: string }
  | { ok: false; message: string; fields: Partial<Record<OptionKey | 'name', string>> };

export interface DeckOptionsProtocol {
  hostEvents: {
    state: DeckOptionsViewState;
  };
  pageEvents: object;
  hostRequests: object;
  pageRequests: {
    save: RequestType<SaveRequest, SaveAnswer>;
    /** A new preset (the host asks its name), with Anki's defaults or a copy of `cloneFrom`'s saved options. */
    addPreset: RequestType<{ cloneFrom?: string }, SaveAnswer | { ok: false; cancelled: true }>;
  };
}

/** The form's fields, in the order of Anki's deck options screen. */
export const OPTION_KEYS: readonly OptionKey[] = [
  'newPerDay',
  'reviewsPerDay',
  'learningSteps',
  'relearningSteps',
  'desiredRetention',
  'maximumInterval',
  'buryNewSiblings',
  'buryReviewSiblings',
  'buryInterdayLearningSiblings',
  'leechThreshold',
  'leechAction',
  'dayStartHour',
];

const isObject = (x: unknown) => !!x && typeof x === 'object' && !Array.isArray(x);

export const deckOptionsGuards = {
  save: fields({ presetId: isString, name: isString, options: isObject }),
  addPreset: fields({ cloneFrom: (x) => x === undefined || isString(x) }),
};
