/**
 * The serialised answers of reads declared `sameUntilWrite` (a set's tree),
 * kept until the library next changes: a 10k-card tree is ~3 MB of JSON that
 * takes ~30 ms of SQL and ~12 ms of JSON to make, and the tree views ask for
 * the same one again and again between edits. Keyed by the store's quiet mark
 * (store.quietMark): an answer is neither kept nor reused while a write is in
 * flight, so one computed from rows a failed write rolled back is never kept.
 * Bounded in bytes, least recently used first out.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private mark: number | undefined;
  private bytes = 0;

  constructor(
    private readonly store: { readonly quietMark: number | undefined },
    private readonly maxBytes = 48 * 2 ** 20,
  ) {}

  /** The mark an answer computed now would be kept under; undefined: do not keep it. */
  markNow(): number | undefined {
    const mark = this.store.quietMark;
    if (mark !== this.mark) this.clear(mark);
    return mark;
  }

  get(key: string): Buffer | undefined {
    if (this.markNow() === undefined) return undefined;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // to the newest end
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Keeps `answer` if nothing was written since `mark` was taken (and nothing is being written now). */
  set(key: string, mark: number | undefined, answer: Buffer): void {
    if (mark === undefined || this.markNow() !== mark || answer.length > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.bytes -= old.length;
    this.entries.set(key, answer);
    this.bytes += answer.length;
    for (const [k, b] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= b.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private clear(mark: number | undefined): void {
    this.entries.clear();
    this.bytes = 0;
    this.mark = mark;
  }
}
