import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  clozeParts,
  clozeText,
  hashtagToTag,
  htmlToText,
  imageNames,
  tagToHashtag,
} from '../../src/server/api/ankiconnect/ankiFields';
import { ankiIdOf, uuidPrefixOf } from '../../src/server/api/ankiconnect/ankiIds';
import { queryTerms } from '../../src/server/api/ankiconnect/ankiSearch';

describe('AnkiConnect fields, ids and queries (pure)', () => {
  it('ids: a UUID → a safe integer → a prefix of that UUID, for 10,000 random ids', () => {
    for (let i = 0; i < 10_000; i++) {
      const id = randomUUID().toUpperCase();
      const n = ankiIdOf(id)!;
      assert.ok(Number.isSafeInteger(n) && n >= 0 && n < 2 ** 52, id);
      assert.ok(id.startsWith(uuidPrefixOf(n)!), id);
    }
    assert.equal(ankiIdOf('not-a-uuid'), undefined);
    for (const bad of [-1, 1.5, 2 ** 52, '12', null]) assert.equal(uuidPrefixOf(bad), undefined, String(bad));
  });

  it('HTML → text: breaks, blocks, entities, sounds and scripts', () => {
    assert.equal(
      htmlToText(
        '<div><b>to</b> speak</div><div>a&nbsp;b &amp; c &lt;d&gt; &#x6C34;&#27700;</div>[sound:x.mp3]<script>alert(1)</script>',
      ),
      'to speak\na b & c <d> 水水',
    );
    assert.equal(htmlToText('line<br>next<br/>last'), 'line\nnext\nlast');
  });

  it('<img src>: bare media names only, each once, entities decoded', () => {
    assert.deepEqual(
      imageNames(
        `<img src="a.png"><IMG alt=x src='b &amp; c.jpg'/><img src=d.gif><img src="https://x.example/e.png"><img src="a.png">`,
      ),
      ['a.png', 'b & c.jpg', 'd.gif'],
    );
  });

  it('Cloze: Text → title and question, and back (hints dropped, numbers in order)', () => {
    const parts = clozeParts('{{c1::Paris}} is the capital of {{c2::France::country}}.');
    assert.deepEqual(parts, {
      title: 'Paris is the capital of France.',
      question: '{{cloze}} is the capital of {{cloze}}.',
      deletions: 2,
    });
    assert.equal(clozeText(parts.title, parts.question), '{{c1::Paris}} is the capital of {{c2::France}}.');
    assert.equal(clozeParts('no deletion').deletions, 0);
  });

  it('tags ↔ hashtags: :: is the hierarchy, other characters a hashtag cannot hold become _', () => {
    assert.equal(tagToHashtag('jlpt::n5'), 'jlpt/n5');
    assert.equal(tagToHashtag('日本語::漢字'), '日本語/漢字');
    assert.equal(tagToHashtag('a:b c'), 'a_b_c');
    assert.equal(tagToHashtag('::'), null);
    assert.equal(hashtagToTag('jlpt/n5'), 'jlpt::n5');
  });

  it('query terms: quotes keep spaces, a leading - stays', () => {
    assert.deepEqual(queryTerms('deck:"My deck" -tag:x "two words" plain'), [
      'deck:My deck',
      '-tag:x',
      'two words',
      'plain',
    ]);
    assert.deepEqual(queryTerms('"deck:A B"'), ['deck:A B']);
  });
});
