import { invalidInput } from '../errors';
import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';
import { getNote } from './noteRows';
import { cutTitle } from './sourceAnchor';
import { displayTitle } from './displayTitle';

/** One visible card as the tree query reads it (a reference copy carries its original's title and excerpt). */
interface TreeRow {
  id: string;
  parent: string | null;
  pos: number;
  title: string;
  color: number | null;
  fill: number | null;
  folded: number;
  subMap: number;
  book: string | null;
  page: number | null;
  excerpt: number;
  /** The first text (an excerpt first) of an untitled card, cut: what it shows instead of a title. */
  lead: string | null;
}

/**
 * The columns the tree shows, one row per visible card. hasExcerpt reads the
 * partial index note_texts_excerpt (only excerpt rows), not each card's texts.
 * Rows as objects through a cached statement: cheaper than one JSON array
 * built by SQLite, decoded and parsed again.
 */
const TREE_SQL = `SELECT n.noteid AS id, n.parent_id AS parent, n.position AS pos, COALESCE(o.title, n.title) AS title, n.color_index AS color, n.fill_index AS fill,
   n.folded AS folded, n.sub_map AS subMap, COALESCE(o.source_bookmd5, n.source_bookmd5) AS book, COALESCE(o.source_page, n.source_page) AS page,
   EXISTS(SELECT 1 FROM note_texts t WHERE t.noteid = COALESCE(o.noteid, n.noteid) AND t.excerpt = 1) AS excerpt,
   CASE WHEN trim(COALESCE(o.title, n.title)) = '' THEN (SELECT substr(t.text, 1, 200) FROM note_texts t WHERE t.noteid = COALESCE(o.noteid, n.noteid) AND trim(t.text) <> ''
     ORDER BY t.excerpt DESC, t.idx LIMIT 1) END AS lead
 FROM notes n LEFT JOIN notes o ON o.noteid = n.reference_of
 WHERE n.topicid = ? AND n.hidden = 0`;

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
  /** The title, else the first words of the excerpt or body (displayTitle.ts); '' when the card has neither. */
  displayTitle: string;
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
  /** Untrimmed titles, parallel to nodes. */
  fullTitles: string[];
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
  const rows = db.all<TreeRow>(TREE_SQL, [topicid]);
  const children = new Map<string, TreeRow[]>();
  const byId = new Map<string, TreeRow>();
  for (const r of rows) {
    byId.set(r.id, r);
    if (r.parent === null) continue;
    const list = children.get(r.parent);
    if (list) list.push(r);
    else children.set(r.parent, [r]);
  }
  const bySiblingOrder = (a: TreeRow, b: TreeRow) => a.pos - b.pos || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  for (const list of children.values()) if (list.length > 1) list.sort(bySiblingOrder);

  const nodes: TreeNode[] = [];
  const fullTitles: string[] = [];
  const indexOf = new Map<string, number>();
  const root = topic.root_note_id ? byId.get(topic.root_note_id) : undefined;
  if (root) {
    const rowStack: TreeRow[] = [root];
    const parentStack: Array<TreeNode | null> = [null];
    while (rowStack.length) {
      const row = rowStack.pop()!;
      const parent = parentStack.pop()!;
      const kids = children.get(row.id);
      const title = cutTitle(row.title);
      const shown = displayTitle(row.title, row.lead);
      const node: TreeNode = {
        noteid: row.id,
        parent: parent ? parent.noteid : null,
        depth: parent ? parent.depth + (parent.isSubMapRoot ? 1 : 0) : 0,
        level: parent ? parent.level + 1 : 0,
        childCount: kids ? kids.length : 0,
        subMapId: parent ? (parent.isSubMapRoot ? parent.noteid : parent.subMapId) : null,
        isSubMapRoot: row.subMap === 1,
        title,
        displayTitle: shown === row.title ? title : cutTitle(shown),
        folded: row.folded === 1,
        colorIndex: row.color,
        fillIndex: row.fill,
        hasExcerpt: row.book !== null || row.excerpt === 1,
        page: row.page,
      };
      indexOf.set(row.id, nodes.length);
      nodes.push(node);
      fullTitles.push(row.title);
      if (kids) {
        for (let i = kids.length - 1; i >= 0; i--) {
          rowStack.push(kids[i]);
          parentStack.push(node);
        }
      }
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
    for (let p = n.parent; p !== null; p = nodes[indexOf.get(p)!].parent) parentPath.unshift(tree.fullTitles[indexOf.get(p)!]);
    subMaps.push({ noteid: n.noteid, title: tree.fullTitles[i], cardCount: below[i], parentPath, depth: n.depth, level: n.level, subMapId: n.subMapId });
  }
  return { topicid, subMaps, count: subMaps.length };
}
