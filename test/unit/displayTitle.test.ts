import assert from 'node:assert/strict';
import { displayTitle, firstWords } from '../../src/server/domain/cards/displayTitle';
import { nodeHtml } from '../../src/views/mindMapModel';

describe('card display titles (an untitled excerpt card shows its first words)', () => {
  it('a title wins, whitespace collapsed', () => {
    assert.equal(displayTitle('  Cell   wall ', 'The excerpt'), 'Cell wall');
  });
  it('no title: the first words of the lead text, cut at a word end with …', () => {
    const excerpt =
      'Photosynthesis converts light energy into chemical energy that is stored in glucose and other sugars.';
    const shown = displayTitle('', excerpt);
    assert.ok(shown.endsWith('…'), shown);
    assert.ok(excerpt.startsWith(shown.slice(0, -1)), shown);
    assert.ok(shown.length <= 49 && shown.length > 24, shown);
    assert.ok(!shown.slice(0, -1).endsWith(' '), 'cut at a word end, no trailing space');
    assert.equal(displayTitle('', 'Short excerpt\nwith a break'), 'Short excerpt with a break');
  });
  it('CJK text has no spaces: cut by characters, never splitting a surrogate pair', () => {
    const zh =
      '植物通过光合作用把光能转化为化学能并储存在葡萄糖中，这一过程发生在叶绿体内，叶绿体的结构与功能密切相关。';
    const shown = firstWords(zh);
    assert.equal(shown, `${Array.from(zh).slice(0, 48).join('')}…`);
    const ext = '𠀀'.repeat(60);
    assert.equal(Array.from(firstWords(ext)).length, 49);
  });
  it('neither title nor text: empty, so a view falls back to "(untitled card)"', () => {
    assert.equal(displayTitle(' ', null), '');
    assert.equal(displayTitle('', '   '), '');
  });
  it('the mind map node shows the display title; without one, "(untitled card)"', () => {
    const base = { noteid: 'n3', title: '', colorIndex: null, isSubMapRoot: false, hasExcerpt: true, page: 4 };
    assert.equal(
      nodeHtml({ ...base, displayTitle: '光合作用的过程…' }, []),
      '<span class="card" data-noteid="n3" tabindex="0" role="button"><span class="title">光合作用的过程…</span><span class="meta">p. 4</span></span>',
    );
    assert.equal(
      nodeHtml({ ...base, displayTitle: '' }, []),
      '<span class="card" data-noteid="n3" tabindex="0" role="button"><span class="title">(untitled card)</span><span class="meta">p. 4</span></span>',
    );
  });
});
