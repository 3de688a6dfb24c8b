/**
 * A Bloom filter over a book's words and word prefixes: ~10 bits per key and
 * 7 probes give about 1% false positives, so a query loads about one book in
 * a hundred that cannot match. Keys are hashed as UTF-16 code units
 * (FNV-1a and a murmur-style mix, combined by double hashing).
 */
export const BLOOM_BITS_PER_KEY = 10;
export const BLOOM_PROBES = 7;

/**
 * Prefix lengths held as keys: every length up to 6, then sparser (long
 * prefixes are nearly unique per word, so each adds about one key). A prefix
 * query checks the longest held length not past its own, so `graphdw*` is
 * not waved through by every book holding a `graph…` word.
 */
export const PREFIX_LENGTHS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16];

/** The filter keys of one word as a whole word. */
export const wordKey = (w: string) => `=${w}`;
/** The filter key a prefix query for `w` checks. */
export const prefixKey = (w: string) => {
  let n = 1;
  for (const l of PREFIX_LENGTHS) if (l <= w.length) n = l;
  return `^${w.slice(0, n)}`;
};

function hashes(key: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  h2 = Math.imul(h2 ^ (h2 >>> 15), 0x2c1b3c6d);
  return [h1 >>> 0, (h2 | 1) >>> 0];
}

export class Bloom {
  constructor(
    readonly bits: Uint8Array,
    readonly probes = BLOOM_PROBES,
  ) {}

  static forKeys(keys: Iterable<string>, count: number): Bloom {
    const nbits = Math.max(64, Math.ceil((count * BLOOM_BITS_PER_KEY) / 8) * 8);
    const b = new Bloom(new Uint8Array(nbits / 8));
    for (const k of keys) b.add(k);
    return b;
  }

  add(key: string): void {
    const n = this.bits.length * 8;
    const [h1, h2] = hashes(key);
    for (let i = 0; i < this.probes; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0;
      const at = bit % n;
      this.bits[at >>> 3] |= 1 << (at & 7);
    }
  }

  has(key: string): boolean {
    const n = this.bits.length * 8;
    const [h1, h2] = hashes(key);
    for (let i = 0; i < this.probes; i++) {
      const at = ((h1 + Math.imul(i, h2)) >>> 0) % n;
      if (!(this.bits[at >>> 3] & (1 << (at & 7)))) return false;
    }
    return true;
  }
}
