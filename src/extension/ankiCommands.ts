import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { AnkiImportResult } from '../client/ankiApi';
import { DeckNode } from '../views/decksView';
import { commandGuard } from './commands';

export interface AnkiCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  refreshViews(): void;
}

/**
 * Import Anki Deck… (file picker → POST /decks/import) and Export Deck to
 * Anki… (save dialog ← GET /decks/{id}/apkg) on the Review Decks view. A file
 * Uri passed as argument skips the dialog (scripts, the extension suite).
 */
export function registerAnkiCommands(deps: AnkiCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  const importDeck = guarded('import Anki deck', async (file?: vscode.Uri): Promise<AnkiImportResult | undefined> => {
    const client = deps.requireClient();
    const picked =
      (file instanceof vscode.Uri ? file : undefined) ??
      (
        await vscode.window.showOpenDialog({
          canSelectMany: false,
          filters: { 'Anki deck packages': ['apkg'] },
          openLabel: 'Import into Study Bridge',
          title: 'Import Anki Deck',
        })
      )?.[0];
    if (!picked) return undefined;
    const filename = basename(picked.fsPath || picked.path);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Study Bridge: importing ${filename}…` },
      async () => {
        const bytes =
          picked.scheme === 'file' ? readFileSync(picked.fsPath) : await vscode.workspace.fs.readFile(picked);
        return client.anki.importPackage(bytes, filename);
      },
    );
    deps.refreshViews();
    const deck = (await client.listDecks()).find((d) => d.deckId === result.deckId);
    const what = result.updated ? `${result.created} new, ${result.updated} updated` : `${result.created} cards`;
    const skipped = result.skipped.length ? `; ${result.skipped.length} skipped (see the log)` : '';
    for (const s of result.skipped.slice(0, 50))
      deps.log.info(`Anki import ${filename}: skipped ${s.kind} ${s.ref}: ${s.reason}`);
    void vscode.window.showInformationMessage(
      `Imported “${deck?.title ?? filename}”: ${what}, ${result.media} pictures${skipped}.`,
    );
    return result;
  });

  const exportDeck = guarded(
    'export deck to Anki',
    async (target?: DeckNode | { deckId: string }, file?: vscode.Uri) => {
      const client = deps.requireClient();
      let deckId = target instanceof DeckNode ? target.deck.deckId : target?.deckId;
      let title = target instanceof DeckNode ? target.deck.title : undefined;
      if (!deckId) {
        const decks = await client.listDecks();
        const pick = await vscode.window.showQuickPick(
          decks.map((d) => ({ label: d.title, description: `${d.cardCount} cards`, deckId: d.deckId })),
          { title: 'Export Deck to Anki: which deck?' },
        );
        if (!pick) return undefined;
        deckId = pick.deckId;
        title = pick.label;
      }
      const out = await client.anki.exportPackage(deckId);
      const dest =
        file ??
        (await vscode.window.showSaveDialog({
          title: `Export “${title ?? out.filename}” to Anki`,
          defaultUri: vscode.Uri.joinPath(
            vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(process.env.HOME ?? '/'),
            out.filename,
          ),
          filters: { 'Anki deck packages': ['apkg'] },
          saveLabel: 'Export',
        }));
      if (!dest) return undefined;
      await vscode.workspace.fs.writeFile(dest, out.bytes);
      void vscode.window.showInformationMessage(
        `Exported “${title ?? out.filename}” to ${dest.fsPath}: open it with Anki or AnkiDroid.`,
      );
      return { path: dest.fsPath, bytes: out.bytes.length };
    },
  );

  return [
    vscode.commands.registerCommand('studyBridge.importAnkiDeck', importDeck),
    vscode.commands.registerCommand('studyBridge.exportAnkiDeck', exportDeck),
  ];
}
