import { randomBytes } from 'node:crypto';

/**
 * Answers of writes that were cut to the byte budget. A write is never run a
 * second time to fetch the rest of its answer, so the whole answer is held in
 * memory for a while, readable only with the token that made the call.
 * Bounded in count and bytes; the oldest goes first. Lost on restart: the
 * receipt's data itself is in the library and readable by its routes.
 */
export const HELD_TTL_MS = 10 * 60 * 1000;
const MAX_HELD = 32;
const MAX_HELD_BYTES = 32 * 1024 * 1024;

interface Held {
  holder: string;
  answer: Record<string, unknown>;
  bytes: number;
  at: number;
}

const held = new Map<string, Held>();

function prune(now: number): void {
  for (const [id, h] of held) if (now - h.at > HELD_TTL_MS) held.delete(id);
  let total = [...held.values()].reduce((n, h) => n + h.bytes, 0);
  // Map order is insertion order: the first entries are the oldest.
  for (const [id, h] of held) {
    if (held.size <= MAX_HELD && total <= MAX_HELD_BYTES) break;
    held.delete(id);
    total -= h.bytes;
  }
}

/** Holds an answer for `holder` (the caller's token identity); returns its id. */
export function holdAnswer(holder: string, answer: Record<string, unknown>, bytes: number): string {
  const id = randomBytes(12).toString('hex');
  held.set(id, { holder, answer, bytes, at: Date.now() });
  prune(Date.now());
  return id;
}

/** The held answer, if it is still there and `holder` is the one it was held for. */
export function heldAnswer(holder: string, id: string): Record<string, unknown> | undefined {
  prune(Date.now());
  const h = held.get(id);
  return h && h.holder === holder ? h.answer : undefined;
}
