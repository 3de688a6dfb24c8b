import type { TreeNode } from '../client/cardsApi';
import type { MindMapNode } from '../webviews/mindMap/protocol';

/**
 * Builds markmap's data tree ({content, children, payload}) from the set's
 * flat pre-order tree: no markdown in between, so a title is only ever text.
 * Pure (no vscode): the plain mocha tests call it.
 */
export function buildMindMapTree(
  nodes: readonly TreeNode[],
  hashtags: ReadonlyMap<string, readonly string[]> = new Map(),
): MindMapNode | undefined {
  const byId = new Map<string, MindMapNode>();
  let root: MindMapNode | undefined;
  for (const n of nodes) {
    const node: MindMapNode = {
      content: nodeHtml(n, hashtags.get(n.noteid) ?? []),
      payload: {
        noteid: n.noteid,
        colorIndex: n.colorIndex,
        isSubMapRoot: n.isSubMapRoot,
        startsFolded: n.childCount > 0 && (n.isSubMapRoot || n.folded),
      },
      children: [],
    };
    byId.set(n.noteid, node);
    // Pre-order: a parent always comes before its children.
    const parent = n.parent ? byId.get(n.parent) : undefined;
    if (parent) parent.children.push(node);
    else root ??= node;
  }
  // The set's root card is the map itself: never drawn folded.
  if (root) root.payload.startsFolded = false;
  return root;
}

/** The node's HTML: the title, then (subtle) sub-map mark, excerpt page and hashtags. */
export function nodeHtml(
  n: Pick<TreeNode, 'noteid' | 'title' | 'colorIndex' | 'isSubMapRoot' | 'hasExcerpt' | 'page'> &
    Partial<Pick<TreeNode, 'displayTitle'>>,
  tags: readonly string[],
): string {
  const title = n.displayTitle?.trim() || n.title.trim() || '(untitled card)'; // an untitled excerpt card shows its first words
  const colour = typeof n.colorIndex === 'number' && n.colorIndex >= 0 && n.colorIndex < 16 ? ` c${n.colorIndex}` : '';
  const meta = [
    n.isSubMapRoot ? 'sub-map' : '',
    n.hasExcerpt && n.page ? `p. ${n.page}` : '',
    ...tags.map((t) => (t.startsWith('#') ? t : `#${t}`)),
  ].filter(Boolean);
  const metaHtml = meta.length ? `<span class="meta">${escapeHtml(meta.join(' · '))}</span>` : '';
  // Focusable and announced as a button: Tab reaches every card, Enter opens it (webviews/mindMap/main.ts).
  return `<span class="card${colour}${n.isSubMapRoot ? ' submap' : ''}" data-noteid="${escapeHtml(n.noteid)}" tabindex="0" role="button"><span class="title">${escapeHtml(title)}</span>${metaHtml}</span>`;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** How many nodes the map draws when nothing was toggled: folded nodes hide their descendants. */
export function visibleNodeCount(root: MindMapNode | undefined): number {
  if (!root) return 0;
  let count = 1;
  if (!root.payload.startsFolded) for (const c of root.children) count += visibleNodeCount(c);
  return count;
}
