import type { PrintCard } from './printTree';

export type PrintMode = 'keepStructure' | 'classic' | 'cardFlow';
export type PageKind = 'branchOverview' | 'mergedSiblingBranches' | 'singleCard';

export interface PlannedPage {
  kind: PageKind;
  /** 0-based slice of the page's branch (or of the whole map in classic), of sliceCount. */
  sliceIndex: number;
  sliceCount: number;
  /** The card the page is about: the branch root, the first merged sibling, the first card of a flow. */
  anchorNoteId: string;
  /** Pre-order. */
  visibleNoteIds: string[];
  /** Levels shown below the page's shallowest card (0 = one level). */
  visibleDepth: number;
}

/** Cards per page: sparse (0) to dense (1). Tree pages hold 6..60 rows of an outline; card flow 1..12 card boxes. */
export function cardsPerPage(mode: PrintMode, density: number): number {
  return mode === 'cardFlow' ? 1 + Math.round(density * 11) : 6 + Math.round(density * 54);
}

interface Index {
  cards: PrintCard[];
  pos: Map<string, number>;
  children: Map<string, string[]>;
  size: Map<string, number>;
}

function index(cards: PrintCard[]): Index {
  const pos = new Map(cards.map((c, i) => [c.noteid, i]));
  const children = new Map<string, string[]>();
  for (const c of cards)
    if (c.parent !== null) (children.get(c.parent) ?? children.set(c.parent, []).get(c.parent)!).push(c.noteid);
  const size = new Map<string, number>();
  for (let i = cards.length - 1; i >= 0; i--) {
    const id = cards[i].noteid;
    size.set(id, 1 + (children.get(id) ?? []).reduce((s, k) => s + size.get(k)!, 0));
  }
  return { cards, pos, children, size };
}

/** The branch of `id` in pre-order (a branch is contiguous in pre-order). */
const branch = (ix: Index, id: string) => {
  const p = ix.pos.get(id)!;
  return ix.cards.slice(p, p + ix.size.get(id)!).map((c) => c.noteid);
};

const depthSpan = (ix: Index, ids: string[]) => {
  const ds = ids.map((id) => ix.cards[ix.pos.get(id)!].depth);
  return Math.max(...ds) - Math.min(...ds);
};

function page(ix: Index, kind: PageKind, ids: string[], sliceIndex = 0, sliceCount = 1): PlannedPage {
  return { kind, sliceIndex, sliceCount, anchorNoteId: ids[0], visibleNoteIds: ids, visibleDepth: depthSpan(ix, ids) };
}

/**
 * keepStructure: a branch that fits is one page; a bigger one gets an
 * overview page (its card and as many whole levels below as fit, the
 * children sliced over several pages when even they do not fit), then its
 * children's branches: big ones recursively, small neighbours packed
 * together (mergedSiblingBranches), a lone leaf on its own (singleCard).
 */
function keepStructure(ix: Index, rootId: string, cap: number, out: PlannedPage[]): void {
  const all = branch(ix, rootId);
  if (all.length <= cap) {
    out.push(page(ix, all.length === 1 ? 'singleCard' : 'branchOverview', all));
    return;
  }
  const kids = ix.children.get(rootId) ?? [];
  // Whole levels below the root while they fit.
  const rootDepth = ix.cards[ix.pos.get(rootId)!].depth;
  let shown = 1 + kids.length;
  let levels = 1;
  if (shown <= cap) {
    for (let d = 2; ; d++) {
      const n = all.filter((id) => ix.cards[ix.pos.get(id)!].depth - rootDepth <= d).length;
      if (n > cap || n === shown) break;
      shown = n;
      levels = d;
    }
    out.push(
      page(
        ix,
        'branchOverview',
        all.filter((id) => ix.cards[ix.pos.get(id)!].depth - rootDepth <= levels),
      ),
    );
  } else {
    const per = Math.max(1, cap - 1);
    const count = Math.ceil(kids.length / per);
    for (let s = 0; s < count; s++)
      out.push(page(ix, 'branchOverview', [rootId, ...kids.slice(s * per, (s + 1) * per)], s, count));
  }
  // Children whose whole branch the overview already showed need no page of their own.
  const pending = kids.filter(
    (k) => ix.size.get(k)! > 1 && branch(ix, k).some((id) => ix.cards[ix.pos.get(id)!].depth - rootDepth > levels),
  );
  let group: string[] = [];
  let groupSize = 0;
  const flush = () => {
    if (!group.length) return;
    const ids = group.flatMap((k) => branch(ix, k));
    out.push(
      page(ix, group.length > 1 ? 'mergedSiblingBranches' : ids.length === 1 ? 'singleCard' : 'branchOverview', ids),
    );
    group = [];
    groupSize = 0;
  };
  for (const k of pending) {
    const n = ix.size.get(k)!;
    if (n > cap) {
      flush();
      keepStructure(ix, k, cap, out);
      continue;
    }
    if (groupSize + n > cap) flush();
    group.push(k);
    groupSize += n;
  }
  flush();
}

/** The pages of a print, in order. */
export function paginate(cards: PrintCard[], mode: PrintMode, density: number): PlannedPage[] {
  const ix = index(cards);
  const cap = cardsPerPage(mode, density);
  const ids = cards.map((c) => c.noteid);
  if (mode === 'keepStructure') {
    const out: PlannedPage[] = [];
    keepStructure(ix, ids[0], cap, out);
    return out;
  }
  // classic: the whole map cut into consecutive tiles; cardFlow: the cards one after another as boxes.
  const count = Math.ceil(ids.length / cap);
  return Array.from({ length: count }, (_, s) =>
    page(ix, mode === 'cardFlow' ? 'singleCard' : 'branchOverview', ids.slice(s * cap, (s + 1) * cap), s, count),
  );
}
