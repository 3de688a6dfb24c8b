/** Least-recently-used map bounded by the summed size of its values. */
export class ByteLru<K, V> {
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }

  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.total += bytes;
    while (this.total > this.maxBytes) this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const hit = this.map.get(key);
    if (!hit) return;
    this.map.delete(key);
    this.total -= hit.bytes;
  }

  /** Drops every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    for (const key of [...this.map.keys()]) if (match(key)) this.delete(key);
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.map.size;
  }
}
