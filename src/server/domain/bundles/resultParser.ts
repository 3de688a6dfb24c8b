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
  const stack: ParsedCard[] = [root];
  const current = () => stack[stack.length - 1];
  const tokens: Token[] = (opts.listItemsAsCards ? mdOutline : md).parse(markdown, {});
  let inHeading = 0;
  let blockLine = 1;
  let listDepth = 0;
  /** A bullet card whose title (the item's first inline) is still to come. */
  let awaitingTitle: ParsedCard | undefined;
  const listCards: ParsedCard[] = [];

  const addContent = (card: ParsedCard, raw: string, line: number, asList: boolean) => {
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
  };

  for (const t of tokens) {
    if (t.map) blockLine = t.map[0] + 1;
    if (t.type === 'heading_open') inHeading = Number(t.tag.slice(1));
    else if (t.type === 'heading_close') inHeading = 0;
    else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') listDepth++;
    else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') listDepth--;
    else if (opts.listItemsAsCards && t.type === 'list_item_open') {
      // Bullets sit below the six heading levels: level 6 + list depth.
      const parent = current();
      awaitingTitle = {
        index: parsed.cards.length,
        title: '',
        level: 6 + listDepth,
        line: blockLine,
        parent: parent.index,
        children: [],
        texts: [],
        excerpts: [],
      };
      parsed.cards.push(awaitingTitle);
      parent.children.push(awaitingTitle.index);
      stack.push(awaitingTitle);
      listCards.push(awaitingTitle);
    } else if (opts.listItemsAsCards && t.type === 'list_item_close') {
      const card = listCards.pop();
      while (stack.length > 1 && stack.pop() !== card);
      awaitingTitle = undefined;
    } else if (t.type === 'inline' && (inHeading || awaitingTitle)) {
      let card: ParsedCard;
      if (awaitingTitle) {
        card = awaitingTitle;
        awaitingTitle = undefined;
      } else {
        parsed.headings++;
        const level = inHeading;
        while (current().level >= level) stack.pop();
        const parent = current();
        if (level > parent.level + 1 && parent.level > 0) {
          parsed.problems.push({
            line: blockLine,
            severity: 'warning',
            code: 'LEVEL_SKIPPED',
            message: `Heading level ${level} follows level ${parent.level}; it becomes a child of "${parent.title}".`,
          });
        }
        card = {
          index: parsed.cards.length,
          title: '',
          level,
          line: blockLine,
          parent: parent.index,
          children: [],
          texts: [],
          excerpts: [],
        };
        parsed.cards.push(card);
        parent.children.push(card.index);
        stack.push(card);
      }
      const scan = scanMarkers(t.content, blockLine, parsed.problems);
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
    } else if (t.type === 'inline') {
      // A 7th level is not a heading in Markdown: tell the author instead of importing it as text.
      // Each such line is one lost heading; the paragraph's other lines stay content.
      const lines = t.content.split('\n');
      let from = 0;
      lines.forEach((l, i) => {
        const deep = /^#{7,}(\s|$)/.exec(l);
        if (!deep) return;
        if (i > from)
          addContent(
            current(),
            lines.slice(from, i).join('\n'),
            blockLine + from,
            listDepth > 0 && !opts.listItemsAsCards,
          );
        from = i + 1;
        parsed.headings++;
        parsed.problems.push({
          line: blockLine + i,
          severity: 'error',
          code: 'TOO_DEEP',
          message: `A heading of level ${deep[0].trim().length} is deeper than 6 levels; it was not imported (lost card). Restructure to at most ######.`,
        });
      });
      if (from < lines.length)
        addContent(current(), lines.slice(from).join('\n'), blockLine + from, listDepth > 0 && !opts.listItemsAsCards);
    } else if (t.type === 'fence' || t.type === 'code_block') {
      const text = t.content.replace(/\n$/, '');
      if (text.trim()) current().texts.push(text);
    }
  }
  resolveMerges(parsed);
  return parsed;
}
