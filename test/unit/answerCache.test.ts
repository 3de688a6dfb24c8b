import assert from 'node:assert/strict';
import { AnswerCache } from '../../src/server/api/http/answerCache';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

const bytes = (s: string) => Buffer.from(s);

describe('AnswerCache: an answer is kept until the library changes, never while a write is in flight', () => {
  it('keeps and returns an answer while the mark stays; a new mark drops every answer', () => {
    const store = { quietMark: 1 as number | undefined };
    const cache = new AnswerCache(store);
    const mark = cache.markNow();
    cache.set('a', mark, bytes('A'));
    assert.equal(cache.get('a')?.toString(), 'A');
    store.quietMark = 2;
    assert.equal(cache.get('a'), undefined);
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  });

  it('does not keep an answer made before a write, nor one made or asked for while a write is in flight', () => {
    const store = { quietMark: 1 as number | undefined };
    const cache = new AnswerCache(store);
    const before = cache.markNow();
    store.quietMark = 2; // a write landed while the answer was being made
    cache.set('a', before, bytes('old'));
    assert.equal(cache.get('a'), undefined);
    store.quietMark = undefined; // in flight
    const during = cache.markNow();
    assert.equal(during, undefined);
    cache.set('b', during, bytes('maybe phantom'));
    assert.equal(cache.size.entries, 0);
    store.quietMark = 3;
    cache.set('c', 3, bytes('C'));
    store.quietMark = undefined;
    assert.equal(cache.get('c'), undefined, 'not served while a write is in flight');
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const store = { quietMark: 7 };
    const cache = new AnswerCache(store, 40);
    cache.set('a', 7, Buffer.alloc(10));
    cache.set('b', 7, Buffer.alloc(10));
    cache.set('c', 7, Buffer.alloc(10));
    assert.ok(cache.get('a')); // a is now the newest
    cache.set('d', 7, Buffer.alloc(10));
    cache.set('e', 7, Buffer.alloc(10));
    assert.equal(cache.get('b'), undefined);
    assert.ok(cache.get('a') && cache.get('e'));
    assert.equal(cache.size.bytes, 40);
    cache.set('huge', 7, Buffer.alloc(11)); // over a quarter of the bound: not kept
    assert.equal(cache.get('huge'), undefined);
  });

  it("the store's quiet mark: undefined while a write is applied but not yet on disk, new once it is, and moved by a write that rolled back", async () => {
    const store = await Store.open(tempDir(), { idleCheckpointMs: 0 });
    try {
      const start = store.quietMark;
      assert.equal(typeof start, 'number');
      const write = store.write((tx) => tx.run(`INSERT OR REPLACE INTO ui_state(key, value) VALUES ('k', 'v')`));
      assert.equal(store.quietMark, undefined, 'in flight');
      await write;
      const after = store.quietMark;
      assert.notEqual(after, undefined);
      assert.notEqual(after, start);
      await assert.rejects(
        store.write((tx) => {
          tx.run(`INSERT OR REPLACE INTO ui_state(key, value) VALUES ('k', 'w')`);
          throw new Error('the write changes its mind');
        }),
      );
      assert.equal(store.quietMark, after, 'a write that threw left the rows as they were');
      await store.write(() => undefined);
      assert.equal(store.quietMark, after, 'a write of no statements changes nothing');
    } finally {
      await store.close();
    }
  });
});
