import { conflict, notFound, saveFailed } from '../../errors';
import type { Store } from '../../ground/store/store';
import type { Db } from '../cards/noteRows';
import type { Decks } from '../library/decks';
import { newId, nowIso } from '../library/ids';
import { DEFAULT_OPTIONS, DEFAULT_PRESET_ID, DEFAULT_PRESET_NAME, withDefaults, type DeckOptions } from './deckOptions';

/**
 * Option presets shared by decks, as Anki's "options groups": a deck uses
 * one preset (none chosen: the built-in Default), and changing a preset
 * changes every deck that uses it. The Default preset exists without a row
 * until it is first edited.
 */

export interface PresetView {
  presetId: string;
  name: string;
  options: DeckOptions;
  /** Decks using it. */
  deckIds: string[];
  builtIn: boolean;
  modifiedAt: string | null;
}

interface PresetRow {
  preset_id: string;
  name: string;
  options: string;
  modified_at: string;
}

function parseOptions(json: string): DeckOptions {
  try {
    return withDefaults(JSON.parse(json) as Partial<DeckOptions>);
  } catch {
    return withDefaults(null);
  }
}

/** The preset a deck uses, and its options. */
export function deckOptionsOf(db: Db, deckId: string): { presetId: string; name: string; options: DeckOptions } {
  const presetId =
    db.get<{ preset_id: string }>('SELECT preset_id FROM deck_settings WHERE deck_id = ?', [deckId])?.preset_id ??
    DEFAULT_PRESET_ID;
  const row = db.get<PresetRow>('SELECT * FROM deck_presets WHERE preset_id = ?', [presetId]);
  if (row) return { presetId, name: row.name, options: parseOptions(row.options) };
  return { presetId: DEFAULT_PRESET_ID, name: DEFAULT_PRESET_NAME, options: { ...DEFAULT_OPTIONS } };
}

export class DeckPresets {
  constructor(
    private readonly store: Store,
    private readonly decks: Decks,
  ) {}

  list(): PresetView[] {
    const rows = this.store.all<PresetRow>('SELECT * FROM deck_presets ORDER BY created_at, preset_id');
    const chosen = new Map(
      this.store
        .all<{ deck_id: string; preset_id: string }>('SELECT deck_id, preset_id FROM deck_settings')
        .map((r) => [r.deck_id, r.preset_id]),
    );
    const users = new Map<string, string[]>();
    for (const d of this.decks.list()) {
      const id = chosen.get(d.deckId) ?? DEFAULT_PRESET_ID;
      users.set(id, [...(users.get(id) ?? []), d.deckId]);
    }
    const views = rows.map((r) => this.view(r, users.get(r.preset_id) ?? []));
    if (!rows.some((r) => r.preset_id === DEFAULT_PRESET_ID))
      views.unshift({
        presetId: DEFAULT_PRESET_ID,
        name: DEFAULT_PRESET_NAME,
        options: { ...DEFAULT_OPTIONS },
        deckIds: users.get(DEFAULT_PRESET_ID) ?? [],
        builtIn: true,
        modifiedAt: null,
      });
    return views;
  }

  get(presetId: string): PresetView {
    const found = this.list().find((p) => p.presetId === presetId);
    if (!found)
      throw notFound('PRESET_NOT_FOUND', `No deck options preset ${presetId}. GET /deck-presets lists them.`, {
        presetId,
      });
    return found;
  }

  /**
   * Creates a preset (no presetId) or changes one: the options given replace
   * those keys, the rest stay. A name another preset has is refused.
   */
  async save(input: { presetId?: string; name?: string; options: Partial<DeckOptions> }) {
    const now = nowIso();
    const presetId = input.presetId ?? newId();
    const written = await this.store.write((tx) => {
      const row = tx.get<PresetRow>('SELECT * FROM deck_presets WHERE preset_id = ?', [presetId]);
      if (input.presetId && !row && input.presetId !== DEFAULT_PRESET_ID)
        throw notFound('PRESET_NOT_FOUND', `No deck options preset ${input.presetId}. Nothing was changed.`, {
          presetId: input.presetId,
        });
      const name =
        input.name ??
        row?.name ??
        (presetId === DEFAULT_PRESET_ID ? DEFAULT_PRESET_NAME : 'Preset ' + now.slice(0, 10));
      const clash = tx.get<{ preset_id: string }>(
        'SELECT preset_id FROM deck_presets WHERE lower(name) = lower(?) AND preset_id <> ?',
        [name, presetId],
      );
      // The built-in Default holds its name before it has a row; a renamed one (with a row) frees it.
      const defaultUnsaved = !tx.get('SELECT 1 AS x FROM deck_presets WHERE preset_id = ?', [DEFAULT_PRESET_ID]);
      const takesDefault =
        presetId !== DEFAULT_PRESET_ID && defaultUnsaved && name.toLowerCase() === DEFAULT_PRESET_NAME.toLowerCase();
      if (clash || takesDefault)
        throw conflict(
          'PRESET_NAME_TAKEN',
          `A preset named "${name}" exists; choose another name. Nothing was changed.`,
          {
            name,
            presetId: clash?.preset_id ?? DEFAULT_PRESET_ID,
          },
        );
      const options = { ...(row ? parseOptions(row.options) : DEFAULT_OPTIONS), ...input.options };
      const json = JSON.stringify(options);
      if (row)
        tx.run('UPDATE deck_presets SET name = ?, options = ?, modified_at = ? WHERE preset_id = ?', [
          name,
          json,
          now,
          presetId,
        ]);
      else
        tx.run('INSERT INTO deck_presets(preset_id, name, options, created_at, modified_at) VALUES (?, ?, ?, ?, ?)', [
          presetId,
          name,
          json,
          now,
          now,
        ]);
      return { created: !row, json, name };
    });
    const back = this.store.get<PresetRow>('SELECT * FROM deck_presets WHERE preset_id = ?', [presetId]);
    if (back?.options !== written.json || back.name !== written.name)
      throw saveFailed(
        'The preset was written but reading it back disagrees; GET /deck-presets shows what is stored.',
        {
          presetId,
        },
      );
    return { persisted: true as const, created: written.created, ...this.get(presetId) };
  }

  /** The options a deck studies with, and the preset they come from. */
  ofDeck(deckId: string) {
    const deck = this.decks.get(deckId);
    return { deckId, title: deck.title, ...deckOptionsOf(this.store, deckId) };
  }

  /** Makes a deck use a preset. */
  async assign(deckId: string, presetId: string) {
    await this.store.write((tx) => {
      this.decks.get(deckId);
      if (presetId !== DEFAULT_PRESET_ID && !tx.get('SELECT 1 AS x FROM deck_presets WHERE preset_id = ?', [presetId]))
        throw notFound('PRESET_NOT_FOUND', `No deck options preset ${presetId}. Nothing was changed.`, { presetId });
      tx.run(
        'INSERT INTO deck_settings(deck_id, preset_id) VALUES (?, ?) ON CONFLICT(deck_id) DO UPDATE SET preset_id = excluded.preset_id',
        [deckId, presetId],
      );
    });
    const back = this.store.get<{ preset_id: string }>('SELECT preset_id FROM deck_settings WHERE deck_id = ?', [
      deckId,
    ]);
    if (back?.preset_id !== presetId)
      throw saveFailed('The deck was assigned but reading it back disagrees; GET /decks/{id}/options shows it.', {
        deckId,
      });
    return { persisted: true as const, ...this.ofDeck(deckId) };
  }

  private view(r: PresetRow, deckIds: string[]): PresetView {
    return {
      presetId: r.preset_id,
      name: r.name,
      options: parseOptions(r.options),
      deckIds,
      builtIn: r.preset_id === DEFAULT_PRESET_ID,
      modifiedAt: r.modified_at,
    };
  }
}
