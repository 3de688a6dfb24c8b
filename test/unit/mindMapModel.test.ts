import assert from 'node:assert/strict';
import type { TreeNode } from '../../src/client/cardsApi';
import { buildMindMapTree, nodeHtml, visibleNodeCount } from '../../src/views/mindMapModel';
import type { MindMapNode } from '../../src/webviews/mindMap/protocol';

const node = (noteid: string, parent: string | null, over: Partial<TreeNode> = {}): TreeNode => ({
  noteid,
  parent,
  depth: 0,
  level: 0,
  childCount: 0,
  subMapId: null,
  isSubMapRoot: false,
  title: noteid.toUpperCase(),
  displayTitle: noteid.toUpperCase(),
  folded: false,
  colorIndex: null,
  fillIndex: null,
  hasExcerpt: false,
  page: null,
  ...over,
});

const shape = (n: MindMapNode): unknown => [n.payload.noteid, n.children.map(shape)];

describe('mind map model', () => {
  it('builds the markmap tree from the pre-order nodes, keeping sibling order', () => {
    const root = buildMindMapTree([
      node('r', null, { childCount: 2 }),
      node('a', 'r', { childCount: 2 }),
      node('a1', 'a'),
      node('a2', 'a'),
      node('b', 'r'),
    ]);
    assert.deepEqual(shape(root!), [
      'r',
      [
        [
          'a',
          [
            ['a1', []],
            ['a2', []],
          ],
        ],
        ['b', []],
      ],
    ]);
  });

  it('starts sub-map roots and stored folds folded (never a leaf, never the root card)', () => {
    const root = buildMindMapTree([
      node('r', null, { childCount: 3, folded: true }),
      node('s', 'r', { childCount: 1, isSubMapRoot: true }),
      node('s1', 's', { subMapId: 's', depth: 1 }),
      node('f', 'r', { childCount: 1, folded: true }),
      node('f1', 'f'),
      node('leaf', 'r', { folded: true }),
    ])!;
    assert.deepEqual(
      [root, ...root.children].map((n) => [n.payload.noteid, n.payload.startsFolded]),
      [
        ['r', false],
        ['s', true],
        ['f', true],
        ['leaf', false],
      ],
    );
    // Folded nodes hide their descendants: r, s, f, leaf.
    assert.equal(visibleNodeCount(root), 4);
  });

  it('escapes titles and shows colour, sub-map mark, page and hashtags', () => {
    const html = nodeHtml(
      { noteid: 'n1', title: '<b>x & "y"</b>', colorIndex: 7, isSubMapRoot: true, hasExcerpt: true, page: 12 },
      ['Math/Algebra', '#exam'],
    );
    assert.equal(
      html,
      '<span class="card c7 submap" data-noteid="n1" tabindex="0" role="button"><span class="title">&lt;b&gt;x &amp; &quot;y&quot;&lt;/b&gt;</span><span class="meta">sub-map · p. 12 · #Math/Algebra · #exam</span></span>',
    );
    assert.equal(
      nodeHtml({ noteid: 'n2', title: '  ', colorIndex: null, isSubMapRoot: false, hasExcerpt: false, page: null }, []),
      '<span class="card" data-noteid="n2" tabindex="0" role="button"><span class="title">(untitled card)</span></span>',
    );
  });
});
