/**
 * The title a card shows in trees, the mind map and the review panel. A card
 * made from an excerpt usually has no title of its own: like the reference
 * app, it shows the first words of its excerpt (else of its body) rather
 * than "(untitled card)". The stored title stays empty; only display changes.
 */

/** Characters of a lead shown: about eight Latin words, or a short CJK clause. */
const LEAD_MAX = 48;

/** The first words of `text`, whitespace collapsed, cut at a word end near LEAD_MAX, with … when cut. */
export function firstWords(text: string, max = LEAD_MAX): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  if (chars.length <= max) return chars.join('');
  const head = chars.slice(0, max).join('');
  const space = head.lastIndexOf(' ');
  // Cut at a space when one is near the end; a CJK run has none, so it is cut by characters.
  return `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** The title when there is one, else the first words of the card's lead text (its excerpt or body), else ''. */
export function displayTitle(title: string, lead: string | null | undefined): string {
  // The common case, without allocating (a 10k-card tree asks for every card): nothing to collapse or trim.
  const own = title !== '' && !/\s\s|[^\S ]|^ | $/.test(title) ? title : title.replace(/\s+/g, ' ').trim();
  if (own) return own;
  return lead ? firstWords(lead) : '';
}
