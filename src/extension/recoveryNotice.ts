import * as vscode from 'vscode';
import type { BridgeClient, StatusResponse } from '../client/bridgeClient';

type Recovery = NonNullable<StatusResponse['recovery']>;

const damaged = (r: Recovery) => r.lostRecords > 0 || r.keptAs !== undefined;

/** The report as the person reads it: what was lost, where the evidence is, what to do with it. */
export function recoveryReportText(r: Recovery): string {
  const lines = ['# Study Bridge: the library was repaired at start', ''];
  if (damaged(r)) {
    lines.push(
      `The write journal was damaged (a flipped bit or a bad sector): ${r.lostRecords} acknowledged change(s) could not be recovered` +
        ` (${r.damagedBytes} unreadable bytes; ${r.failedRecords} later change(s) depended on them). Every other change was kept.`,
      '',
      ...(r.keptAs === undefined
        ? ['The damaged journal could not be kept aside.']
        : ['The damaged journal is kept, as it was found, at:', '', `    ${r.keptAs}`]),
      '',
    );
  }
  if (r.staleRedoKeptAs !== undefined) {
    lines.push(
      'A leftover checkpoint file did not match the library and was set aside, not applied. Nothing was lost by it. It is at:',
      '',
      `    ${r.staleRedoKeptAs}`,
      '',
    );
  }
  if (r.rewriteError !== undefined)
    lines.push(
      `The journal could not be rewritten (${r.rewriteError}); the bridge reads it the same way at the next start.`,
      '',
    );
  lines.push('Kept files are not used again; delete them once you no longer need them for a bug report.');
  return lines.join('\n');
}

const summary = (r: Recovery) =>
  damaged(r)
    ? `Study Bridge found a damaged journal: ${r.lostRecords} change(s) lost, everything else recovered.`
    : 'Study Bridge set aside a leftover checkpoint file that did not match the library. Nothing was lost.';

/**
 * Asks the bridge this window hosts whether opening the library found damage
 * and, if so, warns once; "Show" opens the report (with the kept files' paths).
 */
export async function showRecoveryNotice(client: BridgeClient, log: vscode.LogOutputChannel): Promise<void> {
  const recovery = (await client.status()).recovery;
  if (!recovery) return;
  const text = recoveryReportText(recovery);
  log.warn(text);
  const pick = await vscode.window.showWarningMessage(summary(recovery), 'Show');
  if (pick !== 'Show') return;
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  await vscode.window.showTextDocument(doc, { preview: false });
}
