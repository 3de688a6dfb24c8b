import MarkdownIt from 'markdown-it';

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

// No link reference definitions: `[excerpt: x]: y` on a line of its own would vanish silently as one.
const md = new MarkdownIt('commonmark').disable('reference');
/** Outlines nest bullets down to 64 card levels (a list level is two block levels); commonmark's default stops at 20. */
const mdOutline = new MarkdownIt('commonmark', { maxNesting: 160 }).disable('reference');
type Token = ReturnType<typeof md.parse>[number];

const BLOCK_ID = /^b_(\d+)_(\d+)$/;
const MARKER_START = /\[(excerpt|block|style)\s*:/gi;

interface Scan {
  rest: string;
  excerpts: ParsedExcerpt[];
  style?: { colorIndex?: number; fillIndex?: number };
}

/** Lines in `text` before offset `i`. */
const linesBefore = (text: string, i: number) => {
  let n = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < i; k = text.indexOf('\n', k + 1)) n++;
  return n;
};

/**
 * Where the marker whose text starts at `from` ends (the index of its `]`),
 * looking no further than `to` (the next marker or the end of the run); -1
 * when it is not closed. Quotes may hold unbalanced brackets (`[0, 360)`,
 * a stray `]`): the `]` that balances the opening `[` ends the marker only
 * when what follows it up to `to` has no unmatched `]`; otherwise the marker
 * ends at the first `]` that ends a line, else at the last `]` before `to`.
 */
export function markerEnd(text: string, from: number, to: number): number {
  let depth = 1;
  let balanced = -1;
  for (let k = from; k < to; k++) {
    if (text[k] === '[') depth++;
    else if (text[k] === ']' && --depth === 0) {
      balanced = k;
      break;
    }
  }
  if (balanced >= 0) {
    let d = 0;
    let stray = false;
    for (let k = balanced + 1; k < to && !stray; k++) {
      if (text[k] === '[') d++;
      else if (text[k] === ']') stray = --d < 0;
    }
    if (!stray) return balanced;
  }
  let last = -1;
  for (let k = from; k < to; k++) {
    if (text[k] !== ']') continue;
    if (/^[ \t]*(\n|$)/.test(text.slice(k + 1, to))) return k;
    last = k;
  }
  return last;
}

/** Pulls the markers out of one inline run; `line` is the run's first line (1-based). */
function scanMarkers(text: string, line: number, problems: Problem[]): Scan {
  const out: Scan = { rest: '', excerpts: [] };
  const starts = [...text.matchAll(MARKER_START)];
  let last = 0;
  for (let i = 0; i < starts.length; i++) {
    const m = starts[i];
    if (m.index < last) continue; // inside the previous marker's text
    const kind = m[1].toLowerCase();
    const at = line + linesBefore(text, m.index);
    const from = m.index + m[0].length;
    const next = starts.find((s, j) => j > i && s.index >= from);
    const end = markerEnd(text, from, next ? next.index : text.length);
    const unclosed = end < 0;
    if (unclosed) {
      problems.push({ line: at, severity: 'error', code: 'UNCLOSED_MARKER', message: `[${kind}: …] is not closed with "]"; the text up to the next marker (or the end of the paragraph) was taken as its text.` });
    }
    const stop = unclosed ? (next ? next.index : text.length) : end;
    const inner = text.slice(from, stop).trim();
    out.rest += text.slice(last, m.index);
    last = unclosed ? stop : end + 1;
    if (kind === 'excerpt') {
      const e: ParsedExcerpt = { kind: 'excerpt', text: inner.replace(/\s+/g, ' '), line: at };
      if (unclosed) e.invalid = 'unclosed';
      else if (!inner) e.invalid = 'empty';
      out.excerpts.push(e);
    } else if (kind === 'block') {
      for (const id of inner.split(/[\s,]+/).filter(Boolean)) {
        const e: ParsedExcerpt = { kind: 'block', text: id, line: at };
        if (!BLOCK_ID.test(id)) {
          e.invalid = 'bad_block_id';
          problems.push({ line: at, severity: 'error', code: 'BAD_BLOCK_ID', message: `"${id}" is not a block id; ids look like b_<page>_<seq> as in source.json.` });
        }
        out.excerpts.push(e);
      }
      if (!inner) {
        out.excerpts.push({ kind: 'block', text: '', line: at, invalid: 'empty' });
      }
    } else {
      out.style = { ...out.style, ...parseStyle(inner, at, problems) };
    }
  }
  out.rest += text.slice(last);
  return out;
}

function parseStyle(inner: string, line: number, problems: Problem[]): { colorIndex?: number; fillIndex?: number } {
  const style: { colorIndex?: number; fillIndex?: number } = {};
  for (const part of inner.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^(colorIndex|fillIndex)=(-?\d+)$/i.exec(part);
    const value = m ? Number(m[2]) : NaN;
    if (m && m[1].toLowerCase() === 'colorindex' && value >= 0 && value <= 15) style.colorIndex = value;
    else if (m && m[1].toLowerCase() === 'fillindex' && value >= -1 && value <= 2) style.fillIndex = value;
    else {
      problems.push({
        line,
        severity: 'error',
        code: 'BAD_STYLE',
        message: `"${part}" in [style: …] is not colorIndex=0..15 or fillIndex=-1..2 (2 = no fill; 0 is not "no fill"); ignored.`,
      });
    }
  }
  return style;
}

const WIKILINK = /\[\[([^\]\n]+)\]\]/g;

/** Drops `[[ ]]` from body text, counting them, with a warning: they are never links. */
function stripLinks(text: string, line: number, parsed: ParsedResult): string {
  return text.replace(WIKILINK, (_all, title: string) => {
    parsed.wikilinks++;
    parsed.problems.push({
      line,
      severity: 'warning',
      code: 'WIKILINK_NOT_A_LINK',
      message: `[[${title}]] is not a link: only a heading that is exactly [[Title]] merges into that card; here it became plain text. Cross-reference with plain text or studybridge://note/<ID>.`,
    });
    return title;
  });
}

export function parseResult(markdown: string, opts: ParseOptions = {}): ParsedResult {
  const parsed: ParsedResult = { cards: [], headings: 0, wikilinks: 0, problems: [] };
  const root: ParsedCard = { index: 0, title: '', level: 0, line: 1, parent: null, children: [], texts: [], excerpts: [] };
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
      rest = opts.stripWikilinks ? rest.replace(WIKILINK, (_a, t: string) => (parsed.wikilinks++, t)) : stripLinks(rest, line, parsed);
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
      awaitingTitle = { index: parsed.cards.length, title: '', level: 6 + listDepth, line: blockLine, parent: parent.index, children: [], texts: [], excerpts: [] };
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
          parsed.problems.push({ line: blockLine, severity: 'warning', code: 'LEVEL_SKIPPED', message: `Heading level ${level} follows level ${parent.level}; it becomes a child of "${parent.title}".` });
        }
        card = { index: parsed.cards.length, title: '', level, line: blockLine, parent: parent.index, children: [], texts: [], excerpts: [] };
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
        title = opts.stripWikilinks ? title.replace(WIKILINK, (_a, x: string) => (parsed.wikilinks++, x)) : stripLinks(title, blockLine, parsed);
      }
      if (!title) parsed.problems.push({ line: blockLine, severity: 'warning', code: 'EMPTY_TITLE', message: 'This heading has no title; the card is imported without one.' });
      card.title = title;
    } else if (t.type === 'inline') {
      // A 7th level is not a heading in Markdown: tell the author instead of importing it as text.
      // Each such line is one lost heading; the paragraph's other lines stay content.
      const lines = t.content.split('\n');
      let from = 0;
      lines.forEach((l, i) => {
        const deep = /^#{7,}(\s|$)/.exec(l);
        if (!deep) return;
        if (i > from) addContent(current(), lines.slice(from, i).join('\n'), blockLine + from, listDepth > 0 && !opts.listItemsAsCards);
        from = i + 1;
        parsed.headings++;
        parsed.problems.push({ line: blockLine + i, severity: 'error', code: 'TOO_DEEP', message: `A heading of level ${deep[0].trim().length} is deeper than 6 levels; it was not imported (lost card). Restructure to at most ######.` });
      });
      if (from < lines.length) addContent(current(), lines.slice(from).join('\n'), blockLine + from, listDepth > 0 && !opts.listItemsAsCards);
    } else if (t.type === 'fence' || t.type === 'code_block') {
      const text = t.content.replace(/\n$/, '');
      if (text.trim()) current().texts.push(text);
    }
  }
  resolveMerges(parsed);
  return parsed;
}

/** `## [[Target]]` → the card titled Target (first non-merging heading with that title, case-insensitive). */
function resolveMerges(parsed: ParsedResult): void {
  const byTitle = new Map<string, number>();
  for (const c of parsed.cards) if (c.level > 0 && !c.mergeTitle && !byTitle.has(c.title.toLowerCase())) byTitle.set(c.title.toLowerCase(), c.index);
  for (const c of parsed.cards) {
    if (!c.mergeTitle) continue;
    const target = byTitle.get(c.mergeTitle.toLowerCase());
    let inside = false;
    for (let p = target; p !== undefined && p !== null; p = parsed.cards[p].parent ?? undefined) if (p === c.index) inside = true;
    if (target === undefined) {
      parsed.problems.push({ line: c.line, severity: 'warning', code: 'MERGE_TARGET_MISSING', message: `No heading is titled "${c.mergeTitle}"; [[${c.mergeTitle}]] became a card of that title.` });
      byTitle.set(c.mergeTitle.toLowerCase(), c.index);
      c.mergeTitle = undefined;
    } else if (inside) {
      parsed.problems.push({ line: c.line, severity: 'warning', code: 'MERGE_INTO_OWN_BRANCH', message: `"${c.mergeTitle}" lies inside this section; it cannot merge into its own branch and stays a card.` });
      c.mergeTitle = undefined;
    } else c.mergedInto = target;
  }
}
