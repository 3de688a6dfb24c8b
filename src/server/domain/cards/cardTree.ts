import { invalidInput } from '../../errors';
import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';
import { getNote } from './noteRows';
import { cutTitle } from './sourceAnchor';
import { displayTitle } from './displayTitle';
import { packedRows } from './packedRows';

/**
 * One visible card as the tree query reads it (a reference copy carries its
 * original's title and excerpt): id, parent, position, title, color, fill,
 * flags (FOLDED | SUB_MAP | EXCERPT), page, and lead: the first text (an
 * excerpt first) of an untitled card, cut, which it shows instead of a title.
 */
type TreeRow = [
  id: string,
  parent: string | null,
  pos: number,
  title: string,
  color: number | null,
  fill: number | null,
  flags: number,
  page: number | null,
  lead: string | null,
];
const TREE_COLUMNS = 'id, parent, pos, title, color, fill, flags, page, lead';
const FOLDED = 1;
const SUB_MAP = 2;
const EXCERPT = 4;

/**
 * The columns the tree shows, one row per visible card. hasExcerpt reads the
 * partial index note_texts_excerpt (only excerpt rows), not each card's
 * texts; the three flags come as one number (each column read out of sql.js
 * costs, at 10k rows more than the JS that shapes them).
 */
export const TREE_SQL = `SELECT n.noteid AS id, n.parent_id AS parent, n.position AS pos, COALESCE(o.title, n.title) AS title, n.color_index AS color, n.fill_index AS fill,
   (n.folded = 1) | ((n.sub_map = 1) << 1) | ((COALESCE(o.source_bookmd5, n.source_bookmd5) IS NOT NULL
     OR EXISTS(SELECT 1 FROM note_texts t WHERE t.noteid = COALESCE(o.noteid, n.noteid) AND t.excerpt = 1)) << 2) AS flags,
   COALESCE(o.source_page, n.source_page) AS page,
   CASE WHEN trim(COALESCE(o.title, n.title)) = '' THEN (SELECT substr(t.text, 1, 200) FROM note_texts t WHERE t.noteid = COALESCE(o.noteid, n.noteid) AND trim(t.text) <> ''
     ORDER BY t.excerpt DESC, t.idx LIMIT 1) END AS lead
 FROM notes n LEFT JOIN notes o ON o.noteid = n.reference_of
 WHERE n.topicid = ? AND n.hidden = 0`;

const bySiblingOrder = (a: TreeRow, b: TreeRow) => a[2] - b[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

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
  /** Index in nodes by card id (built on first use: the whole tree's GET never needs it). */
  readonly indexOf: Map<string, number>;
}

/** A title with nothing to collapse or trim (most): shown and listed as stored, without allocating. */
const MESSY = /\s\s|[^\S ]|^ | $/;

/**
 * Reads the whole set in one query and builds the tree in memory: a 10k-card
 * set is one scan of notes_topic plus a sort per parent (of rows that mostly
 * come in order). Cards not reachable from the root (a hidden ancestor) are
 * not part of the tree. No map of every card by id is built unless asked for
 * (indexOf): GET /tree never needs one, and hashing 10k fresh id strings shows.
 */
export function loadSetTree(db: Db, topicid: string): SetTree {
  assertStudySet(db, topicid);
  const topic = db.get<{ title: string; root_note_id: string | null }>(
    'SELECT title, root_note_id FROM topics WHERE topicid = ?',
    [topicid],
  )!;
  const rows = packedRows<TreeRow>(db, TREE_COLUMNS, `(${TREE_SQL})`, [topicid]);
  // Each card's children in sibling order (rows come mostly in that order already: the sort has little to do).
  const children = new Map<string, TreeRow[]>();
  let root: TreeRow | undefined;
  for (const r of rows) {
    const parent = r[1];
    if (r[0] === topic.root_note_id) root = r;
    if (parent === null) continue;
    const list = children.get(parent);
    if (list) list.push(r);
    else children.set(parent, [r]);
  }
  for (const list of children.values()) if (list.length > 1) list.sort(bySiblingOrder);

  const nodes: TreeNode[] = [];
  const fullTitles: string[] = [];
  if (root) {
    const rowStack: TreeRow[] = [root];
    const parentStack: Array<TreeNode | null> = [null];
    while (rowStack.length) {
      const [id, , , fullTitle, color, fill, flags, page, lead] = rowStack.pop()!;
      const parent = parentStack.pop()!;
      const kids = children.get(id);
      let title = fullTitle;
      let shown = title;
      if (title === '' || title.length > 64 || MESSY.test(title)) {
        title = cutTitle(fullTitle);
        const own = displayTitle(fullTitle, lead);
        shown = own === fullTitle ? title : cutTitle(own);
      }
      const node: TreeNode = {
        noteid: id,
        parent: parent ? parent.noteid : null,
        depth: parent ? parent.depth + (parent.isSubMapRoot ? 1 : 0) : 0,
        level: parent ? parent.level + 1 : 0,
        childCount: kids ? kids.length : 0,
        subMapId: parent ? (parent.isSubMapRoot ? parent.noteid : parent.subMapId) : null,
        isSubMapRoot: (flags & SUB_MAP) !== 0,
        title,
        displayTitle: shown,
        folded: (flags & FOLDED) !== 0,
        colorIndex: color,
        fillIndex: fill,
        hasExcerpt: (flags & EXCERPT) !== 0,
        page,
      };
      nodes.push(node);
      fullTitles.push(fullTitle);
      if (kids) {
        for (let i = kids.length - 1; i >= 0; i--) {
          rowStack.push(kids[i]);
          parentStack.push(node);
        }
      }
    }
  }
  let indexOf: Map<string, number> | undefined;
  return {
    topicid,
    setTitle: topic.title,
    rootNoteId: topic.root_note_id,
    nodes,
    fullTitles,
    get indexOf() {
      return (indexOf ??= new Map(nodes.map((n, i) => [n.noteid, i])));
    },
  };
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
      throw invalidInput(
        `Card ${rootId} belongs to study set ${card.topicid}, not ${topicid}.`,
        { root: rootId, topicids: [topicid, card.topicid] },
        'NOTES_IN_DIFFERENT_SETS',
      );
    }
    const i = tree.indexOf.get(rootId);
    // A visible card cut off from the root (under a hidden card) has no place in the tree.
    if (i === undefined)
      throw invalidInput(
        `Card ${rootId} is not reachable from the set's root card.`,
        { root: rootId },
        'NOTE_NOT_IN_TREE',
      );
    nodes = subtreeSlice(tree.nodes, i);
  }
  return {
    topicid,
    rootNoteId: nodes[0]?.noteid ?? tree.rootNoteId,
    setRootNoteId: tree.rootNoteId,
    nodes,
    count: nodes.length,
  };
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
    for (let p = n.parent; p !== null; p = nodes[indexOf.get(p)!].parent)
      parentPath.unshift(tree.fullTitles[indexOf.get(p)!]);
    subMaps.push({
      noteid: n.noteid,
      title: tree.fullTitles[i],
      cardCount: below[i],
      parentPath,
      depth: n.depth,
      level: n.level,
      subMapId: n.subMapId,
    });
  }
  return { topicid, subMaps, count: subMaps.length };
}
