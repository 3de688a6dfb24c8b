import type * as vscode from 'vscode';

/** A tree provider that can say when VS Code has stopped fetching its children, and reload them. */
export interface SettlingTree {
  /** Runs `reveal` once the tree is settled, one reveal at a time; refreshes asked meanwhile wait for it. */
  revealAlone<R>(reveal: () => Promise<R>): Promise<R>;
  refresh(): void;
}

/** Tries of one reveal; the later ones after a reload of the view and a pause that grows. */
const ATTEMPTS = 5;
/** A reveal VS Code has not finished by then is taken as lost: it can wait for good on a view mid-refresh. */
export const REVEAL_TIMEOUT_MS = 4000;
const TIMED_OUT = 'reveal timed out';

/**
 * TreeView.reveal overlapping the view's own refresh can fail with "Element with id … is already registered":
 * VS Code fetches the same parent's children twice at once and registers an element twice (microsoft/vscode
 * #192055, open). Its maintainers' advice is to reveal once the tree has finished refreshing, which the
 * provider knows: it runs reveals one at a time on a settled tree (revealAlone); one that still loses the
 * race is tried again (`onRetry` hears of it). A refresh between reading
 * the node and revealing it leaves VS Code holding another element for its id ("Cannot resolve tree item"):
 * given as a function, the node is read again for each try. The same error comes when an ancestor is newer
 * than the view's elements (a set an import just made, before the change feed's refresh reached the view):
 * then the view is reloaded before the next try. A reveal that never settles (seen on a view refreshed under
 * it, on VS Code 1.103 and 1.139 alike) is given up after REVEAL_TIMEOUT_MS and tried again after a reload.
 */
export async function revealSettled<T>(
  tree: vscode.TreeView<T>,
  provider: SettlingTree,
  node: T | (() => Promise<T | undefined>),
  options: Parameters<vscode.TreeView<T>['reveal']>[1],
  onRetry?: (message: string) => void,
  timeoutMs = REVEAL_TIMEOUT_MS,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await provider.revealAlone(async () => {
        const target = typeof node === 'function' ? await (node as () => Promise<T | undefined>)() : node;
        if (target !== undefined) await withTimeout(tree.reveal(target, options), timeoutMs);
      });
    } catch (err) {
      const message = String((err as Error)?.message ?? err);
      if (attempt >= ATTEMPTS || !/is already registered|Cannot resolve tree item|reveal timed out/.test(message))
        throw err;
      onRetry?.(message);
      if (!message.includes('is already registered')) provider.refresh();
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

async function withTimeout(work: Thenable<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${TIMED_OUT} after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
