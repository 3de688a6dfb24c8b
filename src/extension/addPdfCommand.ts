// Add PDF: a file picked (or given) is uploaded, and the background reading of
// its pages is followed in a notification until every page is in.
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { BridgeClient } from '../client/bridgeClient';
import type { CommandGuard } from './commandGuard';

/** How long Add PDF follows the background reading (OCR of a long scan can take minutes). */
const READ_WAIT_MS = 10 * 60_000;

/**
 * Palette / view title: file picker → upload. From a study set's context menu
 * (`target` is its tree node) the book also joins that set. `file` (or a Uri
 * as `target`, e.g. from the explorer) skips the picker.
 */
export function addPdfCommand(refreshViews: () => void, requireClient: () => BridgeClient, guarded: CommandGuard) {
  return guarded('add PDF', async (target?: vscode.Uri | { studySet?: { topicid: string } }, file?: vscode.Uri) => {
    const client = requireClient();
    const topicid = target && !(target instanceof vscode.Uri) ? target.studySet?.topicid : undefined;
    const picked =
      file ??
      (target instanceof vscode.Uri ? target : undefined) ??
      (
        await vscode.window.showOpenDialog({
          canSelectMany: false,
          filters: { 'PDF documents': ['pdf'] },
          openLabel: 'Add to library',
        })
      )?.[0];
    if (!picked) return undefined;
    const { result, extraction } = await uploadAndFollow(client, picked, topicid, refreshViews);
    refreshViews();
    const notes = [
      extraction.state === 'failed' ? `reading failed: ${extraction.error ?? 'unknown error'}` : '',
      extraction.state !== 'ready' && extraction.state !== 'failed'
        ? `still reading (${extraction.extractedPages}/${extraction.pageCount} pages)`
        : '',
      ...result.warnings,
    ].filter(Boolean);
    const message = `Added ${result.filename} (${result.pageCount} pages) to the library${topicid && result.addedToStudySet ? ' and the study set' : ''}.`;
    if (notes.length) void vscode.window.showWarningMessage(`${message} ${notes.join(' ')}`);
    else void vscode.window.showInformationMessage(message);
    return { ...result, extraction };
  });
}

/** The upload answers at once; the book is read in the background: follow it until every page is in. */
function uploadAndFollow(
  client: BridgeClient,
  picked: vscode.Uri,
  topicid: string | undefined,
  refreshViews: () => void,
) {
  const filename = basename(picked.fsPath);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Study Bridge: ${filename}`, cancellable: false },
    async (progress) => {
      progress.report({ message: 'uploading…' });
      const bytes = picked.scheme === 'file' ? readFileSync(picked.fsPath) : await vscode.workspace.fs.readFile(picked);
      const uploaded = await client.uploadDocument(bytes, { filename, topicid });
      refreshViews();
      let shown = 0;
      const deadline = Date.now() + READ_WAIT_MS;
      for (;;) {
        const { extraction: ex } = await client.outline(uploaded.bookmd5);
        if (ex.state === 'ready' || ex.state === 'failed' || Date.now() > deadline)
          return { result: uploaded, extraction: ex };
        const pct = ex.pageCount ? Math.floor((100 * ex.extractedPages) / ex.pageCount) : 0;
        progress.report({
          message: `reading page ${ex.extractedPages} of ${ex.pageCount}`,
          increment: pct - shown,
        });
        shown = pct;
        await new Promise((r) => setTimeout(r, 300));
      }
    },
  );
}
