import assert from 'node:assert/strict';
import type { WriteTx } from '../../src/server/ground/store/groupCommit';
import { drained, SLICE_END, stepsOf } from '../../src/server/ground/store/writeSteps';

/** A stepped write's slices (store/writeSteps.ts): the clock ends a slice, and so does SLICE_END. */
describe('stepped writes', () => {
  const tx = {} as WriteTx;
  function* body(done: string[]) {
    done.push('a');
    yield;
    done.push('b');
    yield SLICE_END;
    done.push('long statement');
    yield SLICE_END;
    done.push('c');
    return done.length;
  }

  it('SLICE_END ends the slice however little of it was spent, so a long statement starts a slice of its own', () => {
    const done: string[] = [];
    const step = stepsOf(() => body(done), 60_000);
    assert.equal(step(tx), undefined);
    assert.deepEqual(done, ['a', 'b']);
    assert.equal(step(tx), undefined);
    assert.deepEqual(done, ['a', 'b', 'long statement']);
    assert.deepEqual(step(tx), { value: 4 });
  });

  it('run whole (inside another write), the same body ignores it', () => {
    assert.equal(drained(body([])), 4);
  });
});
