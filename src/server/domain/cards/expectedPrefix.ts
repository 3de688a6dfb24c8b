import { conflict } from '../../errors';

/**
 * The optimistic guard of title, text and comment edits: the caller sends the
 * first 32 characters (Unicode code points) of the value it last read; an
 * empty string stands for an empty value. A caller may also send the whole
 * value: only its first 32 characters are compared, case-sensitively.
 */
export const PREFIX_LENGTH = 32;

export const prefixOf = (value: string) => [...value].slice(0, PREFIX_LENGTH).join('');

export const prefixMatches = (current: string, expected: string) => prefixOf(current) === prefixOf(expected);

/** 409 `code` with `details.actualPrefix` when the value changed since the caller read it. */
export function assertPrefix(
  current: string,
  expected: string,
  code: string,
  what: string,
  details: Record<string, unknown>,
): void {
  if (prefixMatches(current, expected)) return;
  throw conflict(
    code,
    `${what} changed since you read it (its first ${PREFIX_LENGTH} characters differ from expectedPrefix). Nothing was changed; re-read it and send details.actualPrefix as expectedPrefix.`,
    { ...details, expectedPrefix: prefixOf(expected), actualPrefix: prefixOf(current) },
  );
}
