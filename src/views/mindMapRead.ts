// What a mind map shows, read from the bridge: the set's tree, its palette,
// and (for sets that are not too big) the cards' hashtags.
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import { buildMindMapTree } from './mindMapModel';
import type { MindMapData } from '../webviews/mindMap/protocol';

/** Hashtags are read (batch-get) for sets up to this size; bigger maps show titles and pages only. */
const HASHTAG_CARDS_MAX = 2000;
/** Used when the bridge has no note-palette route. */
const FALLBACK_PALETTE = [
  '#FFF6A8',
  '#CDEFC4',
  '#C4DDF7',
  '#F7C9D0',
  '#FFE14D',
  '#7DD87A',
  '#5BAEF0',
  '#EE6A6A',
  '#F5A04A',
  '#3C8F5A',
  '#2F5FB3',
  '#A83A3A',
  '#FFFFFF',
  '#E2E2E2',
  '#A9A9A9',
  '#C7B2E8',
];

/** One GET tree, the palette, and (for sets up to HASHTAG_CARDS_MAX cards) the hashtags by batch-get. */
export async function readMindMap(client: BridgeClient, studySet: StudySet, seq: number): Promise<MindMapData> {
  const [tree, palette] = await Promise.all([
    client.cards.tree(studySet.topicid),
    client.cards.palette(studySet.topicid).then(
      (p) => p.map((e) => e.displayColor),
      () => FALLBACK_PALETTE,
    ),
  ]);
  const hashtags = new Map<string, string[]>();
  if (tree.nodes.length <= HASHTAG_CARDS_MAX) {
    for (const n of await client.cards.batchGetAll(tree.nodes.map((n) => n.noteid)))
      if (n.hashtags?.length) hashtags.set(n.noteid, n.hashtags);
  }
  const root = buildMindMapTree(tree.nodes, hashtags);
  if (!root) throw new Error('the set has no root card');
  const title = tree.nodes[0]?.title || studySet.title;
  return { topicid: studySet.topicid, title, rootNoteId: tree.rootNoteId, cardCount: tree.count, seq, palette, root };
}
