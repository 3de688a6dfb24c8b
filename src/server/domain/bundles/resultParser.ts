import MarkdownIt from 'markdown-it';
import type { ParseOptions, ParsedCard, ParsedResult } from './parsedResult';
import { scanMarkers } from './resultMarkers';
import { WIKILINK, resolveMerges, stripLinks } from './resultWikilinks';

/**
 * result.md → a card tree (OUTPUT-CONTRACT.md states the grammar for agents).
 *
 * - `#`…`######` headings are cards; a deeper heading is a child of the
 *   nearest shallower one. A 7th level does not exist: reported, not imported.
 * - Text under a heading is the card's body (lists and code kept as text).
 * - `[excerpt: verbatim text]` quotes the source (anchored later);
 *   `[block: b_<page>_<seq>]` names a block of source.json (block mode).
 * - `[style: colorIndex=N fillIndex=M]` colours the card of its section.
 * - A heading that is exactly `[[Title]]` merges its section into the card
 *   titled Title. `[[…]]` elsewhere is never a link: the brackets are dropped
 *   and a warning says so.
 */

// No link reference definitions: `[excerpt: x]: y` on a line of its own would vanish silently as one.
const md = new MarkdownIt('commonmark').disable('reference');
/** Outlines nest bullets down to 64 card levels (a list level is two block levels); commonmark's default stops at 20. */
const mdOutline = new MarkdownIt('commonmark', { maxNesting: 160 }).disable('reference');
// Only the block structure and each inline's raw content are read: the inline pass (links, emphasis) is skipped,
// and with it markdown-it's link-label scan, quadratic on a run of `[` (800 KB of them took a minute).
for (const parser of [md, mdOutline]) parser.core.ruler.disable(['inline', 'text_join']);
type Token = ReturnType<typeof md.parse>[number];

/** Where the walk over the token stream stands. */
interface Walk {
  parsed: ParsedResult;
  opts: ParseOptions;
  /** The open cards, root first; the last one takes content. */
  stack: ParsedCard[];
  inHeading: number;
  blockLine: number;
  listDepth: number;
  /** A bullet card whose title (the item's first inline) is still to come. */
  awaitingTitle?: ParsedCard;
  listCards: ParsedCard[];
}

const current = (w: Walk): ParsedCard => w.stack[w.stack.length - 1];

export function parseResult(markdown: string, opts: ParseOptions = {}): ParsedResult {
  const parsed: ParsedResult = { cards: [], headings: 0, wikilinks: 0, problems: [] };
  const root: ParsedCard = {
    index: 0,
    title: '',
    level: 0,
    line: 1,
    parent: null,
    children: [],
    texts: [],
    excerpts: [],
  };
  parsed.cards.push(root);
  const w: Walk = { parsed, opts, stack: [root], inHeading: 0, blockLine: 1, listDepth: 0, listCards: [] };
  const tokens: Token[] = (opts.listItemsAsCards ? mdOutline : md).parse(markdown, {});
  for (const t of tokens) readToken(w, t);
  resolveMerges(parsed);
  return parsed;
}

function readToken(w: Walk, t: Token): void {
  if (t.map) w.blockLine = t.map[0] + 1;
  if (t.type === 'heading_open') w.inHeading = Number(t.tag.slice(1));
  else if (t.type === 'heading_close') w.inHeading = 0;
  else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') w.listDepth++;
  else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') w.listDepth--;
  else if (w.opts.listItemsAsCards && t.type === 'list_item_open') {
    // Bullets sit below the six heading levels: level 6 + list depth.
    w.awaitingTitle = openCard(w, 6 + w.listDepth);
    w.listCards.push(w.awaitingTitle);
  } else if (w.opts.listItemsAsCards && t.type === 'list_item_close') {
    const card = w.listCards.pop();
    while (w.stack.length > 1 && w.stack.pop() !== card);
    w.awaitingTitle = undefined;
  } else if (t.type === 'inline' && (w.inHeading || w.awaitingTitle)) {
    let card: ParsedCard;
    if (w.awaitingTitle) {
      card = w.awaitingTitle;
      w.awaitingTitle = undefined;
    } else card = openHeading(w, w.inHeading);
    setTitle(w, card, t.content);
  } else if (t.type === 'inline') addParagraph(w, t.content);
  else if (t.type === 'fence' || t.type === 'code_block') {
    const text = t.content.replace(/\n$/, '');
    if (text.trim()) current(w).texts.push(text);
  }
}

/** A new card at `level`, child of the current card, now current itself. */
function openCard(w: Walk, level: number): ParsedCard {
  const parent = current(w);
  const card: ParsedCard = {
    index: w.parsed.cards.length,
    title: '',
    level,
    line: w.blockLine,
    parent: parent.index,
    children: [],
    texts: [],
    excerpts: [],
  };
  w.parsed.cards.push(card);
  parent.children.push(card.index);
  w.stack.push(card);
  return card;
}

/** A heading closes every open card at its level or deeper, then opens its own. */
function openHeading(w: Walk, level: number): ParsedCard {
  w.parsed.headings++;
  while (current(w).level >= level) w.stack.pop();
  const parent = current(w);
  if (level > parent.level + 1 && parent.level > 0) {
    w.parsed.problems.push({
      line: w.blockLine,
      severity: 'warning',
      code: 'LEVEL_SKIPPED',
      message: `Heading level ${level} follows level ${parent.level}; it becomes a child of "${parent.title}".`,
    });
  }
  return openCard(w, level);
}

/** A heading's (or bullet's) text: its markers, a `[[Title]]` merge, else the title with links dropped. */
function setTitle(w: Walk, card: ParsedCard, raw: string): void {
  const { parsed, opts, blockLine } = w;
  const scan = scanMarkers(raw, blockLine, parsed.problems);
  card.excerpts.push(...scan.excerpts);
  if (scan.style) Object.assign(card, scan.style);
  let title = scan.rest.trim();
  const merge = /^\[\[([^\]\n]+)\]\]$/.exec(title);
  if (merge && !opts.stripWikilinks) {
    parsed.wikilinks++;
    card.mergeTitle = merge[1].trim();
    title = card.mergeTitle;
  } else {
    title = opts.stripWikilinks
      ? title.replace(WIKILINK, (_a, x: string) => (parsed.wikilinks++, x))
      : stripLinks(title, blockLine, parsed);
  }
  if (!title)
    parsed.problems.push({
      line: blockLine,
      severity: 'warning',
      code: 'EMPTY_TITLE',
      message: 'This heading has no title; the card is imported without one.',
    });
  card.title = title;
}

/** Body text for the current card. */
function addParagraph(w: Walk, content: string): void {
  // A 7th level is not a heading in Markdown: tell the author instead of importing it as text.
  // Each such line is one lost heading; the paragraph's other lines stay content.
  const asList = w.listDepth > 0 && !w.opts.listItemsAsCards;
  const lines = content.split('\n');
  let from = 0;
  lines.forEach((l, i) => {
    const deep = /^#{7,}(\s|$)/.exec(l);
    if (!deep) return;
    if (i > from) addContent(w, current(w), lines.slice(from, i).join('\n'), w.blockLine + from, asList);
    from = i + 1;
    w.parsed.headings++;
    w.parsed.problems.push({
      line: w.blockLine + i,
      severity: 'error',
      code: 'TOO_DEEP',
      message: `A heading of level ${deep[0].trim().length} is deeper than 6 levels; it was not imported (lost card). Restructure to at most ######.`,
    });
  });
  if (from < lines.length) addContent(w, current(w), lines.slice(from).join('\n'), w.blockLine + from, asList);
}

function addContent(w: Walk, card: ParsedCard, raw: string, line: number, asList: boolean): void {
  const { parsed, opts } = w;
  const scan = scanMarkers(raw, line, parsed.problems);
  card.excerpts.push(...scan.excerpts);
  if (scan.style) Object.assign(card, scan.style);
  let rest = scan.rest.trim();
  if (rest) {
    rest = opts.stripWikilinks
      ? rest.replace(WIKILINK, (_a, t: string) => (parsed.wikilinks++, t))
      : stripLinks(rest, line, parsed);
    card.texts.push(asList ? `• ${rest}` : rest);
  }
}
