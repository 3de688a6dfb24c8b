/**
 * 8-gram hash index over a key: where a quote's 8-character pieces occur,
 * so an exact match is found without scanning and approximate candidates
 * are found by voting.
 */
export const GRAM = 8;
const B = 0x01000193;
const B7 = (() => {
  let p = 1;
  for (let i = 0; i < GRAM - 1; i++) p = Math.imul(p, B);
  return p;
})();

function gramHash(codes: ArrayLike<number>, at: number): number {
  let h = 0;
  for (let k = 0; k < GRAM; k++) h = (Math.imul(h, B) + codes[at + k]) | 0;
  return h;
}

export class GramIndex {
  /** Chains of key positions, ascending. */
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly mask: number;

  constructor(private readonly codes: Uint16Array) {
    const n = codes.length;
    let size = 1024;
    while (size < n * 2) size <<= 1;
    this.mask = size - 1;
    this.head = new Int32Array(size).fill(-1);
    this.next = new Int32Array(Math.max(1, n));
    if (n < GRAM) return;
    // Rolling hashes left to right, then chained right to left so chains run in ascending order.
    const hashes = new Int32Array(n - GRAM + 1);
    let h = gramHash(codes, 0);
    hashes[0] = h;
    for (let i = 1; i + GRAM <= n; i++) {
      h = (Math.imul(h - Math.imul(codes[i - 1], B7), B) + codes[i + GRAM - 1]) | 0;
      hashes[i] = h;
    }
    for (let i = hashes.length - 1; i >= 0; i--) {
      const b = hashes[i] & this.mask;
      this.next[i] = this.head[b];
      this.head[b] = i;
    }
  }

  /** Key positions where q[at, at+8) occurs, ascending, at most `limit + 1` of them. */
  hits(q: Uint16Array, at: number, limit: number): number[] {
    const out: number[] = [];
    const c = this.codes;
    for (let p = this.head[gramHash(q, at) & this.mask]; p >= 0 && out.length <= limit; p = this.next[p]) {
      let same = true;
      for (let k = 0; k < GRAM && same; k++) same = c[p + k] === q[at + k];
      if (same) out.push(p);
    }
    return out;
  }
}
