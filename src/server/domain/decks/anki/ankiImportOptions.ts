import type { WriteTx } from '../../../ground/store/store';
import { newId } from '../../library/ids';
import { withDefaults, type DeckOptions } from '../deckOptions';
import type { AnkiDeckConfig } from './ankiDeckConfig';

/**
 * An imported deck studies with its package's options: a preset named after
 * Anki's options group ("Anki: <name>"), made on the first import and given
 * the package's values again on the next (the keys it sets; the rest stay),
 * assigned to the deck. In the import's own transaction.
 */
export function importDeckOptions(tx: WriteTx, deckId: string, config: AnkiDeckConfig, now: string) {
  const name = `Anki: ${config.name}`;
  const row = tx.get<{ preset_id: string; options: string }>(
    'SELECT preset_id, options FROM deck_presets WHERE lower(name) = lower(?)',
    [name],
  );
  const options = JSON.stringify({ ...withDefaults(storedOptions(row?.options)), ...config.options });
  const presetId = row?.preset_id ?? newId();
  if (row) tx.run('UPDATE deck_presets SET options = ?, modified_at = ? WHERE preset_id = ?', [options, now, presetId]);
  else
    tx.run('INSERT INTO deck_presets(preset_id, name, options, created_at, modified_at) VALUES (?, ?, ?, ?, ?)', [
      presetId,
      name,
      options,
      now,
      now,
    ]);
  tx.run(
    'INSERT INTO deck_settings(deck_id, preset_id) VALUES (?, ?) ON CONFLICT(deck_id) DO UPDATE SET preset_id = excluded.preset_id',
    [deckId, presetId],
  );
  return { presetId, presetName: name };
}

function storedOptions(json: string | undefined): Partial<DeckOptions> | null {
  try {
    return json ? (JSON.parse(json) as Partial<DeckOptions>) : null;
  } catch {
    return null;
  }
}
