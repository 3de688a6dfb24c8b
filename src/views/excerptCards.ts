import type { BridgeClient } from '../client/bridgeClient';

/** A card anchored in a book: what "Go to Card" lists and where it goes. */
export interface ExcerptCard {
  noteid: string;
  topicid: string;
  setTitle: string;
  /** The card's title, else the first words of its excerpt. */
  title: string;
  bookmd5: string;
  /** The book's file name, as the set's Documents list it ('' when the book is not one of them). */
  filename: string;
  page: number;
}

/**
 * The excerpt cards of the library (or of one set, or of one card's subtree:
 * `under` needs `topicid`),
 * in tree order within each set, sets by title. One GET tree per set, one
 * batch-get per 200 excerpt cards (the tree knows the page, not the book),
 * one GET documents per set for the book names. No vscode: plain client calls.
 */
export async function listExcerptCards(
  client: BridgeClient,
  scope: { topicid?: string; under?: string } = {},
): Promise<ExcerptCard[]> {
  const sets = (await client.listStudySets())
    .filter((s) => !scope.topicid || s.topicid === scope.topicid)
    .sort((a, b) => a.title.localeCompare(b.title));
  const found: ExcerptCard[] = [];
  for (const set of sets) {
    // ?root=: the card's subtree, itself first.
    const tree = await client.cards.tree(set.topicid, scope.under);
    const anchored = tree.nodes.filter((n) => n.hasExcerpt && n.page && n.noteid !== tree.setRootNoteId);
    if (!anchored.length) continue;
    const books = new Map<string, string>();
    for (const d of await client.studySetDocuments(set.topicid)) books.set(d.bookmd5, d.filename);
    const anchors = new Map<string, { bookmd5: string | null; page: number | null }>();
    for (const n of await client.cards.batchGetAll(anchored.map((n) => n.noteid)))
      anchors.set(n.noteid, n.sourceAnchor);
    for (const n of anchored) {
      const a = anchors.get(n.noteid);
      if (!a?.bookmd5 || !a.page) continue; // an excerpt never placed in a book has nowhere to go
      const title = n.displayTitle || n.title.trim() || '(untitled card)';
      found.push({
        noteid: n.noteid,
        topicid: set.topicid,
        setTitle: set.title,
        title,
        bookmd5: a.bookmd5,
        filename: books.get(a.bookmd5) ?? '',
        page: a.page,
      });
    }
  }
  return found;
}
