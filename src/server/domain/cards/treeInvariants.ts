/**
 * What a valid card tree looks like, checked over the flat node list of
 * GET /study-sets/{id}/tree. Pure (no store, no I/O): the property tests run
 * it after every step, and anything else may use it as a consistency check.
 */

export interface TreeNodeLike {
  noteid: string;
  parent: string | null;
  childCount?: number;
  subMapId?: string | null;
  isSubMapRoot?: boolean;
  depth?: number;
  level?: number;
}

/** Every broken rule, as readable sentences; empty = valid. */
export function treeViolations(nodes: readonly TreeNodeLike[], rootNoteId?: string): string[] {
  const out: string[] = [];
  const byId = new Map<string, TreeNodeLike>();
  for (const n of nodes) {
    if (byId.has(n.noteid)) out.push(`${n.noteid} appears twice`);
    byId.set(n.noteid, n);
  }
  const roots = nodes.filter((n) => n.parent === null);
  if (roots.length !== 1) out.push(`${roots.length} root cards (parent null), expected exactly one`);
  if (rootNoteId !== undefined && roots[0] && roots[0].noteid !== rootNoteId)
    out.push(`root is ${roots[0].noteid}, expected ${rootNoteId}`);

  const kids = new Map<string, number>();
  for (const n of nodes) {
    if (n.parent === null) continue;
    if (!byId.has(n.parent)) out.push(`${n.noteid} has parent ${n.parent}, which is not in the set`);
    kids.set(n.parent, (kids.get(n.parent) ?? 0) + 1);
  }

  // Walk up from each card: a valid tree reaches the root within nodes.length steps.
  const ancestors = new Map<string, string[]>();
  for (const n of nodes) {
    const chain: string[] = [];
    let cur = n.parent;
    while (cur !== null && byId.has(cur) && chain.length <= nodes.length) {
      chain.push(cur);
      cur = byId.get(cur)!.parent;
    }
    if (chain.length > nodes.length) {
      out.push(`${n.noteid} is on a cycle`);
      continue;
    }
    ancestors.set(n.noteid, chain);
  }

  const seen = new Set<string>();
  for (const n of nodes) {
    if (n.parent !== null && byId.has(n.parent) && !seen.has(n.parent))
      out.push(`${n.noteid} is listed before its parent ${n.parent}`);
    seen.add(n.noteid);
    if (n.childCount !== undefined && n.childCount !== (kids.get(n.noteid) ?? 0)) {
      out.push(`${n.noteid} says childCount ${n.childCount}, has ${kids.get(n.noteid) ?? 0}`);
    }
    const chain = ancestors.get(n.noteid);
    if (!chain) continue;
    if (n.level !== undefined && n.level !== chain.length)
      out.push(`${n.noteid} says level ${n.level}, is ${chain.length} below the root`);
    if (n.subMapId !== undefined) {
      const expected = chain.find((a) => byId.get(a)!.isSubMapRoot) ?? null;
      if (n.subMapId !== expected) out.push(`${n.noteid} says subMapId ${n.subMapId}, expected ${expected}`);
    }
    if (n.depth !== undefined && nodes.every((x) => x.isSubMapRoot !== undefined)) {
      const expected = chain.filter((a) => byId.get(a)!.isSubMapRoot).length;
      if (n.depth !== expected) out.push(`${n.noteid} says depth ${n.depth}, expected ${expected}`);
    }
  }
  return out;
}

/** Per sub-map root: how many cards live in it directly (subMapId = root) and how many lie below it in all. */
export function subMapCounts(nodes: readonly TreeNodeLike[]): Map<string, { direct: number; descendants: number }> {
  const byId = new Map(nodes.map((n) => [n.noteid, n]));
  const counts = new Map<string, { direct: number; descendants: number }>();
  for (const n of nodes) if (n.isSubMapRoot) counts.set(n.noteid, { direct: 0, descendants: 0 });
  for (const n of nodes) {
    if (n.subMapId && counts.has(n.subMapId)) counts.get(n.subMapId)!.direct++;
    const guard = new Set<string>();
    for (let cur = n.parent; cur !== null && !guard.has(cur); cur = byId.get(cur)?.parent ?? null) {
      guard.add(cur);
      const c = counts.get(cur);
      if (c) c.descendants++;
    }
  }
  return counts;
}
