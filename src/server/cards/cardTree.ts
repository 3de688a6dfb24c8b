import { invalidInput } from '../errors';
import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';
import { getNote } from './noteRows';
import { cutTitle } from './sourceAnchor';

/** One visible card of a set as the tree reads it (a reference copy shows its original's title and excerpt). */
interface TreeRow {
  noteid: string;
  parent_id: string | null;
  position: number;
  title: string;
  color_index: number | null;
  fill_index: number | null;
  folded: number;
  sub_map: number;
  source_bookmd5: string | null;
  source_page: number | null;
  ex: number;
}

export interface TreeNode {
  noteid: string;
  parent: string | null;
  /** Sub-map roots among the strict ancestors: 0 = main map, > 0 = a nested sub-map. */
  depth: number;
  /** Distance from the set's root card. */
  level: number;
  childCount: number;
  /** The nearest strict ancestor that is a sub-map root (where the card lives), null = the main map. */
  subMapId: string | null;
  isSubMapRoot: boolean;
  title: string;
  folded: boolean;
  colorIndex: number | null;
  fillIndex: number | null;
  hasExcerpt: boolean;
  page: number | null;
}

/** A set's visible cards in pre-order (parent before children, siblings by position), with the full titles for paths. */
export interface SetTree {
  topicid: string;
  setTitle: string;
  rootNoteId: string | null;
  nodes: TreeNode[];
  fullTitles: Map<string, string>;
  indexOf: Map<string, number>;
}

/**
 * Reads the whole set in one query and builds the tree in memory: a 10k-card
 * set is one scan of notes_topic plus a sort per parent. Cards not reachable
 * from the root (a hidden ancestor) are not part of the tree.
 */
export function loadSetTree(db: Db, topicid: string): SetTree {
  assertStudySet(db, topicid);
  const topic = db.get<{ title: string; root_note_id: string | null }>('SELECT title, root_note_id FROM topics WHERE topicid = ?', [topicid])!;
  const rows = db.all<TreeRow>(
    `SELECT n.noteid, n.parent_id, n.position, COALESCE(o.title, n.title) AS title, n.color_index, n.fill_index, n.folded, n.sub_map,
       COALESCE(o.source_bookmd5, n.source_bookmd5) AS source_bookmd5, COALESCE(o.source_page, n.source_page) AS source_page,
       EXISTS(SELECT 1 FROM note_texts t WHERE t.noteid = COALESCE(o.noteid, n.noteid) AND t.excerpt = 1) AS ex
     FROM notes n LEFT JOIN notes o ON o.noteid = n.reference_of
     WHERE n.topicid = ? AND n.hidden = 0`,
    [topicid],
  );
  const children = new Map<string, TreeRow[]>();
  const byId = new Map<string, TreeRow>();
  for (const r of rows) {
    byId.set(r.noteid, r);
    if (r.parent_id === null) continue;
    const list = children.get(r.parent_id);
    if (list) list.push(r);
    else children.set(r.parent_id, [r]);
  }
  for (const list of children.values()) list.sort((a, b) => a.position - b.position || (a.noteid < b.noteid ? -1 : a.noteid > b.noteid ? 1 : 0));

  const nodes: TreeNode[] = [];
  const fullTitles = new Map<string, string>();
  const indexOf = new Map<string, number>();
  const root = topic.root_note_id ? byId.get(topic.root_note_id) : undefined;
  if (root) {
    const stack: Array<{ row: TreeRow; parent: TreeNode | null }> = [{ row: root, parent: null }];
    while (stack.length) {
      const { row, parent } = stack.pop()!;
      const kids = children.get(row.noteid) ?? [];
      const node: TreeNode = {
        noteid: row.noteid,
        parent: parent ? parent.noteid : null,
        depth: parent ? parent.depth + (parent.isSubMapRoot ? 1 : 0) : 0,
        level: parent ? parent.level + 1 : 0,
        childCount: kids.length,
        subMapId: parent ? (parent.isSubMapRoot ? parent.noteid : parent.subMapId) : null,
        isSubMapRoot: row.sub_map === 1,
        title: cutTitle(row.title),
        folded: row.folded === 1,
        colorIndex: row.color_index,
        fillIndex: row.fill_index,
        hasExcerpt: row.source_bookmd5 !== null || row.ex === 1,
        page: row.source_page,
      };
      indexOf.set(row.noteid, nodes.length);
      nodes.push(node);
      fullTitles.set(row.noteid, row.title);
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ row: kids[i], parent: node });
    }
  }
  return { topicid, setTitle: topic.title, rootNoteId: topic.root_note_id, nodes, fullTitles, indexOf };
}

/** The nodes of the sub-tree at `index` (itself first): pre-order keeps a sub-tree contiguous. */
export function subtreeSlice(nodes: readonly TreeNode[], index: number): TreeNode[] {
  const start = nodes[index];
  let end = index + 1;
  while (end < nodes.length && nodes[end].level > start.level) end++;
  return nodes.slice(index, end);
}

/** GET /study-sets/{id}/tree[?root=]: the whole set, or the sub-tree of one of its cards. */
export function readTree(db: Db, topicid: string, rootId?: string) {
  const tree = loadSetTree(db, topicid);
  let nodes = tree.nodes;
  if (rootId !== undefined) {
    const card = getNote(db, rootId);
    if (card.topicid !== topicid) {
      throw invalidInput(`Card ${rootId} belongs to study set ${card.topicid}, not ${topicid}.`, { root: rootId, topicids: [topicid, card.topicid] }, 'NOTES_IN_DIFFERENT_SETS');
    }
    const i = tree.indexOf.get(rootId);
    // A visible card cut off from the root (under a hidden card) has no place in the tree.
    if (i === undefined) throw invalidInput(`Card ${rootId} is not reachable from the set's root card.`, { root: rootId }, 'NOTE_NOT_IN_TREE');
    nodes = subtreeSlice(tree.nodes, i);
  }
  return { topicid, rootNoteId: nodes[0]?.noteid ?? tree.rootNoteId, setRootNoteId: tree.rootNoteId, nodes, count: nodes.length };
}

/**
 * GET /study-sets/{id}/sub-maps: the sub-map roots in application order (the
 * tree's pre-order). cardCount counts every visible card below the root,
 * nested sub-maps included; parentPath holds the full titles from the set's
 * root card down to the sub-map's parent.
 */
export function readSubMaps(db: Db, topicid: string) {
  const tree = loadSetTree(db, topicid);
  const { nodes, indexOf } = tree;
  const below = new Array<number>(nodes.length).fill(0);
  for (let i = nodes.length - 1; i > 0; i--) {
    const p = indexOf.get(nodes[i].parent!)!;
    below[p] += below[i] + 1;
  }
  const subMaps = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (!n.isSubMapRoot) continue;
    const parentPath: string[] = [];
    for (let p = n.parent; p !== null; p = nodes[indexOf.get(p)!].parent) parentPath.unshift(tree.fullTitles.get(p)!);
    subMaps.push({ noteid: n.noteid, title: tree.fullTitles.get(n.noteid)!, cardCount: below[i], parentPath, depth: n.depth, level: n.level, subMapId: n.subMapId });
  }
  return { topicid, subMaps, count: subMaps.length };
}
