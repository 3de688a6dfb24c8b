import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { PdfReaderEditorProvider } from '../editors/pdfReaderEditor';
import type { PdfReaderSession } from '../editors/pdfReaderSession';
import { CardNode } from '../views/cardTree';
import { DocumentNode } from '../views/studySetsView';
import { commandGuard, UserFacingError } from './commands';

export interface ReaderCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  reader: PdfReaderEditorProvider;
}

/**
 * Reader commands: Open in Reader (a document of the Study Sets view, or
 * `{bookmd5, topicid?, page?}`), Open Source Page (an excerpt card: the book
 * at its page, the card's rectangle flashing), and Make card (the webview's
 * context menu, Ctrl+Alt+M, the toolbar button).
 */
export function registerReaderCommands(deps: ReaderCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  const openInReader = guarded(
    'open in reader',
    async (target?: DocumentNode | { bookmd5: string; topicid?: string; page?: number }) => {
      if (target instanceof DocumentNode) {
        if (target.doc.sourceState === 'missing_file')
          throw new UserFacingError(`The file of ${target.doc.filename} is missing from the library folder.`);
        return deps.reader.openBook({ bookmd5: target.doc.bookmd5, topicid: target.studySet.topicid });
      }
      if (target && typeof target.bookmd5 === 'string') return deps.reader.openBook(target);
      throw new UserFacingError('Choose a document in the Study Sets view (Documents of a set).');
    },
  );

  const openCardSource = guarded('open source page', async (target?: CardNode) => {
    if (!(target instanceof CardNode))
      throw new UserFacingError('Choose an excerpt card in the Study Sets view first.');
    const [note] = (await deps.requireClient().cards.batchGet([target.noteid])).notes;
    const a = note?.sourceAnchor;
    if (!a?.bookmd5 || !a.page) throw new UserFacingError(`“${target.card.title}” has no source page.`);
    return deps.reader.openBook({
      bookmd5: a.bookmd5,
      topicid: target.studySet.topicid,
      page: a.page,
      noteid: target.noteid,
    });
  });

  /** From the webview's context menu the argument is its context ({webview, webviewSection}); the toolbar passes its session. */
  const makeCard = guarded('make card', async (arg?: { session?: PdfReaderSession }) => {
    const session = arg?.session ?? deps.reader.current;
    try {
      return await deps.reader.makeCard(session);
    } catch (err) {
      session?.notice(err instanceof Error ? err.message : String(err), 'error');
      throw err;
    }
  });

  return [
    vscode.commands.registerCommand('studyBridge.openInReader', openInReader),
    vscode.commands.registerCommand('studyBridge.openCardSource', openCardSource),
    vscode.commands.registerCommand('studyBridge.reader.makeCard', makeCard),
  ];
}
