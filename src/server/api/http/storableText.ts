import { invalidInput } from '../../errors';

/**
 * Text the store cannot hold exactly: a lone UTF-16 surrogate (UTF-8 has no
 * encoding for it; SQLite would store U+FFFD instead) or NUL (cut off by C
 * strings). Such input is refused whole, before anything is written, rather
 * than stored mangled.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** In JSON text both can only appear as \u escapes: a cheap test before walking the parsed value. */
const MAYBE_IN_JSON = /\\u(?:0000|[dD][89a-fA-F])/;

function problemOf(s: string): string | undefined {
  const m = UNSTORABLE.exec(s);
  if (!m) return undefined;
  return m[0] === '\u0000'
    ? `a NUL character at index ${m.index}`
    : `a lone surrogate (U+${m[0].charCodeAt(0).toString(16).toUpperCase()}) at index ${m.index}`;
}

/** The first string (value or key) in `value` that cannot be stored exactly, with its path. */
export function findUnstorable(
  value: unknown,
  path: Array<string | number> = [],
): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = problemOf(value);
    return problem ? { path: path.join('.'), problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], [...path, i]);
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const keyProblem = problemOf(k);
      if (keyProblem) return { path: [...path, k].join('.'), problem: `${keyProblem} in the field name` };
      const hit = findUnstorable(v, [...path, k]);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Throws 422 UNSTORABLE_TEXT for the first string in `value` that cannot be stored exactly. */
export function refuseUnstorable(
  value: unknown,
  location: 'body' | 'query' | 'params' | 'arguments',
  jsonText?: string,
): void {
  if (jsonText !== undefined && !MAYBE_IN_JSON.test(jsonText)) return;
  const hit = findUnstorable(value);
  if (!hit) return;
  throw invalidInput(
    `Invalid ${location}${hit.path ? ` field "${hit.path}"` : ''}: it holds ${hit.problem}, which the library cannot store exactly. Nothing was changed; send well-formed text without NUL.`,
    { location, path: hit.path, problem: hit.problem },
    'UNSTORABLE_TEXT',
  );
}
