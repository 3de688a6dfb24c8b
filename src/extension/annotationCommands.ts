import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import type { RouteResponse } from '../server/api/http/routeTable';
import type { annotationImportResponse } from '../server/api/routes/annotations';
import { DocumentNode, StudySetNode } from '../views/studySetsView';
import { commandGuard, UserFacingError } from './commands';

export interface AnnotationCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  refreshViews(): void;
}

type ImportAnswer = RouteResponse<typeof annotationImportResponse>;

/** A document of a set: from the Study Sets view, or `{bookmd5, topicid}` for scripted callers. */
type DocTarget = DocumentNode | { bookmd5: string; topicid: string };

/** How a study set and one of its books are named for the bridge. */
async function setAndBook(
  client: BridgeClient,
  target: unknown,
  title: string,
): Promise<{ topicid: string; bookmd5: string; filename: string } | undefined> {
  if (target instanceof DocumentNode)
    return { topicid: target.studySet.topicid, bookmd5: target.doc.bookmd5, filename: target.doc.filename };
  const t = target as { bookmd5?: unknown; topicid?: unknown } | undefined;
  if (t && typeof t.bookmd5 === 'string' && typeof t.topicid === 'string')
    return { topicid: t.topicid, bookmd5: t.bookmd5, filename: `${t.bookmd5}.pdf` };
  const set: StudySet | undefined = target instanceof StudySetNode ? target.studySet : await pickSet(client, title);
  if (!set) return undefined;
  const docs = await client.studySetDocuments(set.topicid);
  if (!docs.length) throw new UserFacingError(`“${set.title}” has no documents. Add a PDF to the set first.`);
  const doc =
    docs.length === 1
      ? docs[0]
      : (
          await vscode.window.showQuickPick(
            docs.map((d) => ({ label: d.filename, description: `${d.pageCount} pages`, d })),
            { title, placeHolder: 'Pick a book of the set' },
          )
        )?.d;
  return doc && { topicid: set.topicid, bookmd5: doc.bookmd5, filename: doc.filename };
}

async function pickSet(client: BridgeClient, title: string): Promise<StudySet | undefined> {
  const sets = await client.listStudySets();
  if (!sets.length) throw new UserFacingError('There are no study sets yet. Create one in the Study Sets view.');
  return (
    await vscode.window.showQuickPick(
      sets.map((s) => ({ label: s.title, description: `${s.noteCount} cards`, s })),
      { title, placeHolder: 'Pick a study set' },
    )
  )?.s;
}

/**
 * "Import Highlights from PDF" (a document of a set): the PDF's own
 * highlights, underlines and notes become cards of that set; importing again
 * adds only what is new. "Export Highlighted PDF…" (a set, or one of its
 * documents): a copy of the book with the set's excerpt cards as standard
 * highlights, saved where the person chooses (`uri` for scripted callers).
 */
export function registerAnnotationCommands(deps: AnnotationCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  const importHighlights = guarded(
    'import highlights',
    async (target?: DocTarget): Promise<ImportAnswer | undefined> => {
      const client = deps.requireClient();
      const at = await setAndBook(client, target, 'Import Highlights from PDF');
      if (!at) return undefined;
      const answer = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Importing the highlights of ${at.filename}…` },
        () =>
          client.request<ImportAnswer>('POST', `/documents/${at.bookmd5}/annotations/import`, {
            body: { topicid: at.topicid, confirm: true },
          }),
      );
      deps.refreshViews();
      const skipped = answer.skipped.length
        ? ` ${answer.skipped.length} skipped (${[...new Set(answer.skipped.map((s) => s.kind))].join(', ')}).`
        : '';
      const already = answer.alreadyImported ? ` ${answer.alreadyImported} were already cards.` : '';
      void vscode.window.showInformationMessage(
        `Study Bridge: ${answer.created.length} ${answer.created.length === 1 ? 'card' : 'cards'} from the highlights and notes of ${at.filename}.${already}${skipped}`,
      );
      return answer;
    },
  );

  const exportHighlighted = guarded(
    'export highlighted PDF',
    async (target?: DocTarget | StudySetNode | { topicid: string; bookmd5: string; uri?: vscode.Uri }) => {
      const client = deps.requireClient();
      const at = await setAndBook(client, target, 'Export Highlighted PDF');
      if (!at) return undefined;
      const given = (target as { uri?: unknown } | undefined)?.uri;
      const uri =
        given instanceof vscode.Uri
          ? given
          : await vscode.window.showSaveDialog({
              title: 'Export Highlighted PDF',
              filters: { PDF: ['pdf'] },
              defaultUri: vscode.Uri.file(`${at.filename.replace(/\.pdf$/i, '')}-highlighted.pdf`),
            });
      if (!uri) return undefined;
      const res = await client.raw('GET', `/study-sets/${at.topicid}/annotated-pdf`, {
        query: { bookmd5: at.bookmd5 },
      });
      if (res.status !== 200)
        throw new UserFacingError(
          res.json<{ error?: { message?: string } }>().error?.message ?? `export failed (${res.status})`,
        );
      await vscode.workspace.fs.writeFile(uri, res.bytes);
      const count = res.headers.get('x-highlight-count') ?? '?';
      void vscode.window.showInformationMessage(`Study Bridge: ${count} highlights written to ${uri.fsPath}.`);
      return { uri, highlights: Number(count), bytes: res.bytes.length };
    },
  );

  return [
    vscode.commands.registerCommand('studyBridge.importHighlights', importHighlights),
    vscode.commands.registerCommand('studyBridge.exportHighlightedPdf', exportHighlighted),
  ];
}
