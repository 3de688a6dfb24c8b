/**
 * One term's postings: card index docids (ascending) and the term's hits in
 * each, in typed arrays: 6 bytes a card (a term in all 100k cards takes
 * ~770 KB with room to grow). Cards are written at the top of the docid
 * range, so most inserts append.
 */
export class Postings {
  private docids = new Int32Array(1024);
  private hits = new Uint16Array(1024);
  private size = 0;

  get length(): number {
    return this.size;
  }

  /** The term's hits in the card, 0 when it does not hold the term. */
  get(docid: number): number {
    const at = this.find(docid);
    return at >= 0 ? this.hits[at] : 0;
  }

  /** Sets the card's hits; 0 removes the card. */
  set(docid: number, hits: number): void {
    const at = this.find(docid);
    if (at >= 0) {
      if (hits > 0) this.hits[at] = Math.min(hits, 0xffff);
      else this.remove(at);
      return;
    }
    if (hits <= 0) return;
    const to = ~at;
    if (this.size === this.docids.length) this.grow();
    this.docids.copyWithin(to + 1, to, this.size);
    this.hits.copyWithin(to + 1, to, this.size);
    this.docids[to] = docid;
    this.hits[to] = Math.min(hits, 0xffff);
    this.size++;
  }

  /** The newest `count` cards (highest docids first) and their hits. */
  newest(count: number, fn: (docid: number, hits: number) => void): void {
    for (let i = this.size - 1; i >= 0 && i >= this.size - count; i--) fn(this.docids[i], this.hits[i]);
  }

  /** Bytes held, for diagnostics. */
  get bytes(): number {
    return this.docids.byteLength + this.hits.byteLength;
  }

  private remove(at: number): void {
    this.docids.copyWithin(at, at + 1, this.size);
    this.hits.copyWithin(at, at + 1, this.size);
    this.size--;
  }

  private grow(): void {
    const docids = new Int32Array(this.docids.length * 2);
    docids.set(this.docids);
    const hits = new Uint16Array(this.hits.length * 2);
    hits.set(this.hits);
    this.docids = docids;
    this.hits = hits;
  }

  /** The docid's index, or ~(where it would go). */
  private find(docid: number): number {
    const d = this.docids;
    // Appends first: a new card is above every docid held.
    if (this.size === 0 || docid > d[this.size - 1]) return ~this.size;
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = d[mid];
      if (v < docid) lo = mid + 1;
      else if (v > docid) hi = mid - 1;
      else return mid;
    }
    return ~lo;
  }
}
