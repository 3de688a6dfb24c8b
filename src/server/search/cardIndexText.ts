import { indexTerms, type QueryPart } from '../text/searchTerms';

/**
 * What the card index (FTS4 `notes_fts.body`, tokenizer `simple`) is fed and
 * asked. The body is the card's index terms (text/searchTerms.ts) joined by
 * spaces: terms are letters and digits only, so `simple`, which splits at
 * ASCII characters other than letters and digits and lower-cases ASCII,
 * reads back exactly those terms and folds nothing itself. The card's own
 * text (for snippets) is read from its rows.
 */

/** The indexed body of a card's text (title, texts, #tags joined by newlines). */
export function cardIndexBody(text: string): string {
  return indexTerms(text).join(' ');
}

/**
 * The FTS4 query (enhanced syntax: implicit AND, OR, parentheses) of a
 * query's parts: every part must match; a Latin token or a lone CJK
 * character as a prefix, a CJK run as the phrase of its bigrams, or as the
 * word it is (which holds the phrase too, so the OR only adds to the rank). Terms are letters and digits only, so nothing the user typed
 * is read as an operator. Phrases go without the `body:` filter, which FTS4
 * does not apply to them; the other columns hold ids, never CJK.
 */
export function cardFtsQuery(parts: readonly QueryPart[]): string | undefined {
  const out = parts.map((p) => {
    if (p.prefix) return `body:${p.terms[0]}*`;
    const phrase = p.terms.length === 1 ? `body:${p.terms[0]}` : `"${p.terms.join(' ')}"`;
    // The run as one word ranks above its bigrams alone; a word that is only part of the run would
    // widen the match (OR), so then the phrase stands alone.
    return p.bonus.includes(p.key) ? `(body:${p.key} OR ${phrase})` : phrase;
  });
  return out.length ? out.join(' ') : undefined;
}
