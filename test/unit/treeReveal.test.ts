// revealSettled (src/views/treeReveal.ts) against a tree view that fails the way VS Code's does: an ancestor the
// view does not hold yet ("Cannot resolve tree item", until the view reloads), or an element registered twice.
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { revealSettled } from '../../src/views/treeReveal';

/** A view that holds the elements it loaded at its last refresh; a reveal of anything newer fails as VS Code's does. */
function staleView(opts: { knownAfterRefreshes: number; error?: string }) {
  const calls = { reveals: [] as string[], refreshes: 0, settled: 0 };
  const tree = {
    reveal: async (node: string) => {
      calls.reveals.push(node);
      if (calls.refreshes < opts.knownAfterRefreshes)
        throw new Error(opts.error ?? `Cannot resolve tree item for element 1/studySet/${node}`);
    },
  } as unknown as vscode.TreeView<string>;
  const provider = {
    revealAlone: async <R>(reveal: () => Promise<R>) => {
      calls.settled++;
      return reveal();
    },
    refresh: () => void calls.refreshes++,
  };
  return { tree, provider, calls };
}

describe('revealSettled (selecting in a tree view that is behind the library)', () => {
  it('reloads the view when an ancestor is newer than its elements, then reveals, reading the node again', async () => {
    const { tree, provider, calls } = staleView({ knownAfterRefreshes: 1 });
    let reads = 0;
    await revealSettled(tree, provider, async () => `set-${++reads}`, { select: true });
    assert.deepEqual(calls.reveals, ['set-1', 'set-2']);
    assert.equal(calls.refreshes, 1);
    assert.equal(calls.settled, 2, 'each try waits for the view to settle');
  });

  it('an element registered twice (a reveal racing a refresh) is tried again without a reload', async () => {
    const { tree, provider, calls } = staleView({
      knownAfterRefreshes: 1,
      error: 'Element with id card/1 is already registered',
    });
    // Never reloaded by revealSettled, so every try fails: five tries, then the error.
    await assert.rejects(revealSettled(tree, provider, 'card', { select: true }), /already registered/);
    assert.deepEqual([calls.reveals.length, calls.refreshes], [5, 0]);
  });

  it('gives up after five tries, and at once on another error', async () => {
    const stale = staleView({ knownAfterRefreshes: 99 });
    await assert.rejects(
      revealSettled(stale.tree, stale.provider, 'set', { select: true }),
      /Cannot resolve tree item/,
    );
    assert.deepEqual([stale.calls.reveals.length, stale.calls.refreshes], [5, 4]);
    const other = staleView({ knownAfterRefreshes: 1, error: 'TreeError: something else' });
    await assert.rejects(revealSettled(other.tree, other.provider, 'set', { select: true }), /something else/);
    assert.equal(other.calls.reveals.length, 1);
  });

  it('a node that is gone (undefined) is not revealed', async () => {
    const { tree, provider, calls } = staleView({ knownAfterRefreshes: 0 });
    await revealSettled(tree, provider, async () => undefined, { select: true });
    assert.deepEqual(calls.reveals, []);
  });

  it('a reveal VS Code never finishes is given up, the view reloaded, and the reveal tried again', async () => {
    const calls = { reveals: 0, refreshes: 0, retries: [] as string[] };
    const tree = {
      // The first reveal never settles (a view refreshed under it); the next one does.
      reveal: (_node: string) => (++calls.reveals === 1 ? new Promise<void>(() => undefined) : Promise.resolve()),
    } as unknown as vscode.TreeView<string>;
    const provider = {
      revealAlone: <R>(reveal: () => Promise<R>) => reveal(),
      refresh: () => void calls.refreshes++,
    };
    await revealSettled(tree, provider, 'card', { select: true }, (m) => calls.retries.push(m), 50);
    assert.equal(calls.reveals, 2);
    assert.equal(calls.refreshes, 1);
    assert.match(calls.retries[0], /reveal timed out after 50 ms/);
  });
});
