/**
 * AnkiConnect speaks of notes, cards and decks by integer ids; ours are
 * uppercase UUIDs (v4). The integer is 52 of the UUID's random bits (its
 * first 12 hex digits and the one after the version digit), so it is stable,
 * below 2^53 (a JSON number keeps it exactly), and maps back to a prefix of
 * the UUID that the primary-key index finds without any table of its own.
 */

const UUID_V4 = /^([0-9A-F]{8})-([0-9A-F]{4})-4([0-9A-F])[0-9A-F]{2}-[0-9A-F]{4}-[0-9A-F]{12}$/i;
const MAX = 2 ** 52;

/** The AnkiConnect id of one of our ids; undefined for an id that is not a v4 UUID (it cannot be addressed). */
export function ankiIdOf(uuid: string): number | undefined {
  const m = UUID_V4.exec(uuid);
  return m ? parseInt(`${m[1]}${m[2]}${m[3]}`, 16) : undefined;
}

/** The prefix every UUID with this AnkiConnect id starts with (uppercase); undefined for a number that is no such id. */
export function uuidPrefixOf(id: unknown): string | undefined {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || id >= MAX) return undefined;
  const hex = id.toString(16).toUpperCase().padStart(13, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12)}`;
}

/** SQL range over a TEXT primary key for a prefix: `col >= ? AND col < ?` uses the index where LIKE would not. */
export const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix}\uffff`];
