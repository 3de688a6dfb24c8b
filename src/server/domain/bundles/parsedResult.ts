/** What parsing a result.md gives (resultParser.ts): the card tree and the problems found on the way. */

export interface ParsedExcerpt {
  kind: 'excerpt' | 'block';
  /** The excerpt text, or the block id. */
  text: string;
  line: number;
  /** Set when the marker itself is malformed (unclosed, empty, bad block id). */
  invalid?: string;
}

export interface ParsedCard {
  /** Index in `cards` (pre-order of the file). */
  index: number;
  title: string;
  /** Heading level 1..6; 0 for the bundle root (text before the first heading). */
  level: number;
  line: number;
  parent: number | null;
  children: number[];
  /** Body paragraphs, in order. */
  texts: string[];
  excerpts: ParsedExcerpt[];
  colorIndex?: number;
  fillIndex?: number;
  /** `## [[Target]]`: this section merges into the card titled Target (resolved in `mergedInto`). */
  mergeTitle?: string;
  mergedInto?: number;
}

export interface Problem {
  line: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

export interface ParsedResult {
  /** cards[0] is the bundle root (holds text before the first heading). */
  cards: ParsedCard[];
  /** Every heading the file has, including those that cannot be imported (level 7+). */
  headings: number;
  wikilinks: number;
  problems: Problem[];
}

export interface ParseOptions {
  /** dictionary: `[[…]]` is plain text everywhere, nothing merges. */
  stripWikilinks?: boolean;
  /** Outline import: each bullet item is a card (its first line the title, nested items its children). */
  listItemsAsCards?: boolean;
}
