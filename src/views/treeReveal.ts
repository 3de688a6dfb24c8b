import type * as vscode from 'vscode';

/** A tree provider that can say when VS Code has stopped fetching its children. */
export interface SettlingTree {
  settled(): Promise<void>;
}

/**
 * TreeView.reveal overlapping the view's own refresh can fail with "Element with id … is already registered":
 * VS Code fetches the same parent's children twice at once and registers an element twice (microsoft/vscode
 * #192055, open). Its maintainers' advice is to reveal once the tree has finished refreshing, which the
 * provider knows (settled); a reveal that still loses the race is tried again. A refresh between reading
 * the node and revealing it leaves VS Code holding another element for its id ("Cannot resolve tree item"):
 * given as a function, the node is read again for each try.
 */
export async function revealSettled<T>(
  tree: vscode.TreeView<T>,
  provider: SettlingTree,
  node: T | (() => Promise<T | undefined>),
  options: Parameters<vscode.TreeView<T>['reveal']>[1],
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await provider.settled();
    const target = typeof node === 'function' ? await (node as () => Promise<T | undefined>)() : node;
    if (target === undefined) return;
    try {
      return await tree.reveal(target, options);
    } catch (err) {
      if (attempt >= 3 || !/is already registered|Cannot resolve tree item/.test(String((err as Error)?.message ?? err))) throw err;
    }
  }
}
