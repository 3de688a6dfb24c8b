import { randomFillSync, randomUUID } from 'node:crypto';

/** topicid, deck, note, bundle and snapshot ids: uppercase UUIDs (docs/CONTRACT-CHOICES.md, "Ids"). */
export const newId = () => randomUUID().toUpperCase();

const HEX = Buffer.from('0123456789ABCDEF', 'latin1');
const DASH = 0x2d;

/**
 * `n` new ids at once, as newId makes them (random version-4 UUIDs, upper
 * case): the random bytes drawn in one call and the text written as bytes,
 * each id then one string. A bulk import makes 100,000 ids; randomUUID and
 * toUpperCase made ~800 bytes of garbage each.
 */
export function newIds(n: number): string[] {
  const random = randomFillSync(Buffer.allocUnsafe(16 * n));
  const text = Buffer.allocUnsafe(36 * n);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    random[16 * i + 6] = (random[16 * i + 6] & 0x0f) | 0x40; // version 4
    random[16 * i + 8] = (random[16 * i + 8] & 0x3f) | 0x80; // RFC 4122 variant
    let at = 36 * i;
    for (let b = 0; b < 16; b++) {
      if (b === 4 || b === 6 || b === 8 || b === 10) text[at++] = DASH;
      const byte = random[16 * i + b];
      text[at++] = HEX[byte >> 4];
      text[at++] = HEX[byte & 15];
    }
    out[i] = text.toString('latin1', 36 * i, 36 * i + 36);
  }
  return out;
}

export const UUID_PATTERN = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i;

export const nowIso = () => new Date().toISOString();
