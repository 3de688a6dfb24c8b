import { newId } from '../library/ids';
import type { AnchorFailReason, AnchorRect } from '../../ground/text/anchorIndex';
import type { BundleSource } from './bundleSource';
import { cardRanges, placeInSection, type DecidedBy, type Placed, type SectionRange } from './excerptPlace';
import type { ParsedCard, ParsedExcerpt, ParsedResult } from './parsedResult';

/**
 * The card tree a parsed result.md imports as: what check shows and submit
 * writes, computed by the same code so the preview cannot differ from the import.
 */

export interface PlanOptions {
  title: string;
  bookmd5: string;
  /** child: one child card per excerpt; merge: excerpts go into their heading's card. */
  excerptMode: 'child' | 'merge';
  withBlank: boolean;
  defaultFillIndex: number | null;
  /** Ids of the cards to write: fresh ones, or the kept root id on replace. */
  rootNoteId: string;
}

export interface PlannedText {
  text: string;
  excerpt: boolean;
}

export interface PlannedCard {
  noteid: string;
  /** null for the import's root (its parent is the target card). */
  parent: string | null;
  depth: number;
  title: string;
  texts: PlannedText[];
  source: { bookmd5: string; page: number; rect: AnchorRect; rects?: AnchorRect[] } | null;
  colorIndex: number | null;
  fillIndex: number | null;
  kind: 'card' | 'excerpt' | 'blank';
  /** result.md line of the heading or excerpt that made it. */
  line: number;
}

export interface PlannedExcerpt {
  noteid: string;
  kind: 'excerpt' | 'block';
  line: number;
  excerpt: string;
  anchored: boolean;
  page?: number;
  rect?: AnchorRect;
  rects?: AnchorRect[];
  score?: number;
  reason?: AnchorFailReason;
  /** Set when the excerpt matches on several pages: the others (all of them when it is not anchored). */
  alsoOn?: number[];
  decidedBy?: DecidedBy;
}

export interface ImportPlan {
  cards: PlannedCard[];
  excerpts: PlannedExcerpt[];
  headings: number;
  importedCards: number;
  wikilinks: number;
  blanks: number;
}

function anchorOne(
  e: ParsedExcerpt,
  source: BundleSource,
  placed: Placed | undefined,
): Omit<PlannedExcerpt, 'noteid'> & { text: string } {
  const base = { kind: e.kind, line: e.line, excerpt: e.text.slice(0, 300) };
  if (e.invalid) return { ...base, text: e.text, anchored: false, reason: 'invalid_excerpt' };
  if (e.kind === 'block') {
    const b = source.block(e.text);
    const page = Number(e.text.split('_')[1]);
    if (!b)
      return { ...base, text: e.text, anchored: false, reason: source.pageSet.has(page) ? 'no_match' : 'missing_info' };
    if (!(b.rect.width > 0 && b.rect.height > 0))
      return { ...base, text: b.text, anchored: false, page: b.page, reason: 'no_coordinates' };
    return { ...base, text: b.text, anchored: true, page: b.page, rect: b.rect, score: 1 };
  }
  const r = placed?.result ?? source.anchor(e.text);
  // Written out, not spread: spreading a fresh object costs microseconds each, and a result.md has thousands.
  return {
    kind: e.kind,
    line: e.line,
    excerpt: base.excerpt,
    text: e.text,
    anchored: r.anchored,
    page: r.page,
    rect: r.rect,
    rects: r.rects,
    score: r.score,
    reason: r.reason,
    alsoOn: placed?.alsoOn,
    decidedBy: placed?.decidedBy,
  };
}

/** A section's excerpts anchored, the ones that match on several pages placed by the section's context. */
function anchorSection(g: ParsedCard, source: BundleSource, range: SectionRange | undefined) {
  const quotes = g.excerpts.filter((e) => !e.invalid && e.kind === 'excerpt');
  const placed = placeInSection(
    quotes.map((e) => source.anchor(e.text)),
    range,
  );
  const of = new Map(quotes.map((e, i) => [e, placed[i]]));
  return g.excerpts.map((e) => anchorOne(e, source, of.get(e)));
}

/** What the plan lists of an excerpt: all but its full text (written out for the same reason; undefined fields are absent in JSON). */
function plannedExcerpt(e: ReturnType<typeof anchorOne>, noteid: string): PlannedExcerpt {
  return {
    kind: e.kind,
    line: e.line,
    excerpt: e.excerpt,
    anchored: e.anchored,
    page: e.page,
    rect: e.rect,
    rects: e.rects,
    score: e.score,
    reason: e.reason,
    alsoOn: e.alsoOn,
    decidedBy: e.decidedBy,
    noteid,
  };
}

/** What planning a tree reads and adds to, card after card. */
interface Planner {
  cards: ParsedCard[];
  /** Sections merged (`## [[Title]]`) into each card, by its index. */
  mergedFrom: Map<number, ParsedCard[]>;
  plan: ImportPlan;
  source: BundleSource;
  opts: PlanOptions;
  fill: number | null;
  ranges: ReturnType<typeof cardRanges>;
}

type Anchored = ReturnType<typeof anchorOne>;

export function buildPlan(parsed: ParsedResult, source: BundleSource, opts: PlanOptions): ImportPlan {
  const { cards } = parsed;
  const mergedFrom = new Map<number, ParsedCard[]>();
  for (const c of cards)
    if (c.mergedInto !== undefined) mergedFrom.set(c.mergedInto, [...(mergedFrom.get(c.mergedInto) ?? []), c]);
  const plan: ImportPlan = {
    cards: [],
    excerpts: [],
    headings: parsed.headings,
    importedCards: 0,
    wikilinks: parsed.wikilinks,
    blanks: 0,
  };
  const [fill, ranges] = [opts.defaultFillIndex, cardRanges(cards, source.sections)];
  planCard({ cards, mergedFrom, plan, source, opts, fill, ranges }, cards[0], null, 0);
  return plan;
}

/** A heading's card (with the sections merged into it), its excerpts, then its sub-headings, depth first. */
function planCard(p: Planner, c: ParsedCard, parent: string | null, depth: number): void {
  const { plan, opts } = p;
  const group = [c, ...(p.mergedFrom.get(c.index) ?? [])];
  const noteid = parent === null ? opts.rootNoteId : newId();
  const color = group.find((g) => g.colorIndex !== undefined)?.colorIndex ?? null;
  const ownFill = group.find((g) => g.fillIndex !== undefined)?.fillIndex;
  const card: PlannedCard = {
    noteid,
    parent,
    depth,
    title: parent === null ? opts.title : c.title,
    texts: [],
    source: null,
    colorIndex: color,
    fillIndex: ownFill ?? p.fill,
    kind: 'card',
    line: c.line,
  };
  plan.cards.push(card);
  if (c.level > 0) plan.importedCards += group.length;
  const bodyTexts = group.flatMap((g) => g.texts);
  const anchored = group.map((g) => anchorSection(g, p.source, p.ranges[g.index]));
  const children = (g: ParsedCard) => {
    for (const child of g.children)
      if (p.cards[child].mergedInto === undefined) planCard(p, p.cards[child], noteid, depth + 1);
  };
  if (opts.excerptMode === 'merge') {
    mergeExcerpts(p, card, anchored.flat(), bodyTexts);
    group.forEach(children);
    return;
  }
  if (bodyTexts.length) card.texts.push({ text: bodyTexts.join('\n\n'), excerpt: false });
  // Each section in file order: its excerpt cards, then its sub-headings (a merged section comes after the target's own).
  group.forEach((g, gi) => {
    excerptCards(p, card, anchored[gi]);
    children(g);
  });
}

/** Merge mode: the first anchored excerpt is the card's source and first text, the body next, then the other excerpts. */
function mergeExcerpts(p: Planner, card: PlannedCard, excerpts: Anchored[], bodyTexts: string[]): void {
  const { opts } = p;
  const first = excerpts.find((e) => e.anchored);
  if (first) {
    card.source = { bookmd5: opts.bookmd5, page: first.page!, rect: first.rect!, rects: first.rects };
    card.texts.push({ text: first.text, excerpt: true });
  }
  if (bodyTexts.length) card.texts.push({ text: bodyTexts.join('\n\n'), excerpt: false });
  for (const e of excerpts) {
    if (e !== first) card.texts.push({ text: e.text, excerpt: e.anchored });
    p.plan.excerpts.push(plannedExcerpt(e, card.noteid));
    if (e.anchored && opts.withBlank) addBlank(p, card.noteid, card.depth + 1, e.line);
  }
}

/** Child mode: one child card per excerpt of a section (an excerpt card when anchored, a plain one when not). */
function excerptCards(p: Planner, card: PlannedCard, excerpts: Anchored[]): void {
  const { opts } = p;
  for (const e of excerpts) {
    const id = newId();
    p.plan.cards.push({
      noteid: id,
      parent: card.noteid,
      depth: card.depth + 1,
      title: '',
      texts: [{ text: e.text, excerpt: e.anchored }],
      source: e.anchored ? { bookmd5: opts.bookmd5, page: e.page!, rect: e.rect!, rects: e.rects } : null,
      colorIndex: null,
      fillIndex: p.fill,
      kind: e.anchored ? 'excerpt' : 'card',
      line: e.line,
    });
    p.plan.excerpts.push(plannedExcerpt(e, id));
    if (e.anchored && opts.withBlank) addBlank(p, card.noteid, card.depth + 1, e.line);
  }
}

function addBlank(p: Planner, parent: string, depth: number, line: number): void {
  p.plan.blanks++;
  p.plan.cards.push({
    noteid: newId(),
    parent,
    depth,
    title: '',
    texts: [],
    source: null,
    colorIndex: null,
    fillIndex: p.fill,
    kind: 'blank',
    line,
  });
}
