import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { BundleEntry } from '../client/bundlesApi';
import { BridgeTreeProvider, type BridgeNode } from './bridgeTreeProvider';

/** While a bundle is preparing, the view re-reads GET /bundles this often (progress is not a library write). */
const PREPARING_POLL_MS = 1_000;

/**
 * Bundles view (GET /bundles): bundles grouped by book, with their state and
 * live progress while preparing. Titles, book names and pages come with each
 * listed bundle (no folder is read: it may be preparing, or on another machine).
 */
export class BundlesProvider extends BridgeTreeProvider {
  private poll: NodeJS.Timeout | undefined;
  /** The last listing (tests and commands read it). */
  bundles: BundleEntry[] = [];

  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const { bundles } = await client.bundles.list();
    this.bundles = bundles;
    this.schedulePoll(bundles.some((b) => b.state === 'preparing'));
    const byBook = new Map<string, BundleEntry[]>();
    for (const b of bundles) byBook.set(b.bookmd5, [...(byBook.get(b.bookmd5) ?? []), b]);
    return [...byBook.entries()]
      .map(
        ([bookmd5, list]) =>
          new BookNode(
            bookmd5,
            list[0].documentTitle ?? `Book ${bookmd5.slice(0, 8)}… (no longer in the library)`,
            list.map((b) => new BundleNode(b)),
          ),
      )
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** A preparing job reports progress in memory only: poll while one runs. */
  private schedulePoll(preparing: boolean): void {
    clearTimeout(this.poll);
    this.poll = preparing ? setTimeout(() => this.refresh(), PREPARING_POLL_MS) : undefined;
  }

  override dispose(): void {
    clearTimeout(this.poll);
    super.dispose();
  }
}

export class BookNode implements BridgeNode {
  readonly id: string;
  constructor(
    readonly bookmd5: string,
    readonly name: string,
    private readonly bundles: BundleNode[],
  ) {
    this.id = `book/${bookmd5}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('book');
    item.description = `${this.bundles.length} ${this.bundles.length === 1 ? 'bundle' : 'bundles'}`;
    item.tooltip = `${this.name}\n${this.bookmd5}`;
    item.contextValue = 'studyBridge.bundleBook';
    return item;
  }
  async children(): Promise<BridgeNode[]> {
    return this.bundles;
  }
}

const STATE_ICONS: Record<string, [string, string | undefined]> = {
  preparing: ['sync~spin', undefined],
  prepared: ['package', 'charts.blue'],
  imported: ['pass-filled', 'testing.iconPassed'],
  failed: ['error', 'problemsErrorIcon.foreground'],
};

export class BundleNode implements BridgeNode {
  readonly id: string;
  constructor(readonly bundle: BundleEntry) {
    this.id = `bundle/${bundle.bundleId}`;
  }
  get bundleId(): string {
    return this.bundle.bundleId;
  }
  /** The result.md this bundle's folder holds (on this machine). */
  get resultUri(): vscode.Uri {
    return vscode.Uri.joinPath(vscode.Uri.file(this.bundle.bundlePath), 'result.md');
  }
  treeItem(): vscode.TreeItem {
    const b = this.bundle;
    const title = b.title || `Bundle ${b.bundleId.slice(0, 8)}`;
    const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const [icon, color] = STATE_ICONS[b.state] ?? ['package', undefined];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const pages = segmentRanges(b.segments);
    item.description =
      b.state === 'preparing' && b.progress
        ? `preparing ${b.progress.pagesDone}/${b.progress.pagesTotal} pages`
        : b.state === 'imported'
          ? `imported v${b.version}${pages ? ` · pp. ${pages}` : ''}`
          : `${b.state}${pages ? ` · pp. ${pages}` : ''}`;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${escapeMd(title)}** — ${b.state}\n\n`);
    tip.appendMarkdown(`${escapeMd(b.documentTitle ?? b.bookmd5)}, pages ${pages} · ${b.preset} · ${b.anchorMode}\n\n`);
    if (b.state === 'failed' && b.error) tip.appendMarkdown(`$(error) ${escapeMd(b.error)}\n\n`);
    tip.appendMarkdown(`\`${b.bundlePath}\``);
    item.tooltip = tip;
    item.contextValue = `studyBridge.bundle.${b.state}`;
    if (b.state === 'prepared' || b.state === 'imported') {
      item.command = { command: 'studyBridge.openResult', title: 'Open result.md', arguments: [this] };
    }
    return item;
  }
}

/** Merged segments → "19–26, 30" */
export function segmentRanges(segments: Array<{ startPage: number; endPage: number }>): string {
  return segments
    .map((s) => (s.startPage === s.endPage ? String(s.startPage) : `${s.startPage}–${s.endPage}`))
    .join(', ');
}

const escapeMd = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
