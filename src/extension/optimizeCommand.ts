import * as vscode from 'vscode';
import { BridgeClientError, type BridgeClient } from '../client/bridgeClient';
import {
  applyFsrsParameters,
  optimizeDeckStream,
  type OptimizeProgress,
  type OptimizeResult,
} from '../client/deckStatsApi';

/** What Optimize FSRS Parameters ended with (the command's answer, for scripts and the extension suite). */
export type OptimizeOutcome =
  | { outcome: 'refused'; code: string; message: string; details?: Record<string, unknown> }
  | { outcome: 'cancelled' }
  | { outcome: 'applied' | 'kept'; result: OptimizeResult };

/** Refusals the person reads as they are: nothing changed, nothing to report as a failure. */
const REFUSALS = new Set(['REVIEW_HISTORY_TOO_SHORT', 'FSRS_OPTIMIZER_UNAVAILABLE']);

// The notification's bar: prepare, fit (the long part), score.
const STAGES: Record<OptimizeProgress['stage'], { from: number; share: number; text: string }> = {
  prepare: { from: 0, share: 10, text: 'Reading the review log' },
  fit: { from: 10, share: 80, text: 'Fitting FSRS’s weights' },
  score: { from: 90, share: 10, text: 'Scoring on the held-out reviews' },
};

const four = (x: number) => x.toFixed(4);

/** Default vs fitted (and the weights in use, when fitted before), as the person reads it. */
export function scoresText(r: OptimizeResult): string {
  const { default: d, current, fitted } = r.scores;
  const lines = [
    `Log loss: default ${four(d.logLoss)} → fitted ${four(fitted.logLoss)}` +
      (current ? ` (in use ${four(current.logLoss)})` : ''),
    `RMSE (bins): default ${four(d.rmseBins)} → fitted ${four(fitted.rmseBins)}` +
      (current ? ` (in use ${four(current.rmseBins)})` : ''),
    `Measured on ${r.testItems} held-out grades (from ${r.heldOutFrom.slice(0, 10)}); fitted on ${r.trainItems}.`,
  ];
  return lines.join('\n');
}

/**
 * Optimize FSRS Parameters: POST /decks/{id}/optimize (stream, apply:false) behind a
 * cancellable progress notification fed by its progress events; then the scores, and
 * the fitted weights go into the deck's preset only when the person says Apply.
 */
export async function optimizeDeckCommand(
  client: BridgeClient,
  deck: { deckId: string; title: string },
): Promise<OptimizeOutcome> {
  const abort = new AbortController();
  let result: OptimizeResult;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Study Bridge: optimizing FSRS for “${deck.title}”`,
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let done = 0;
        return optimizeDeckStream(client, deck.deckId, {
          apply: false,
          signal: abort.signal,
          onProgress: (p) => {
            const stage = STAGES[p.stage] ?? STAGES.fit;
            const at = stage.from + (stage.share * p.percent) / 100;
            progress.report({ message: `${stage.text}… ${p.percent}%`, increment: Math.max(0, at - done) });
            done = Math.max(done, at);
          },
        });
      },
    );
  } catch (e) {
    if (abort.signal.aborted) {
      void vscode.window.showInformationMessage('Study Bridge: Optimize cancelled. Nothing was changed.');
      return { outcome: 'cancelled' };
    }
    if (e instanceof BridgeClientError && REFUSALS.has(e.code)) {
      void vscode.window.showWarningMessage(`Study Bridge: ${e.message}`);
      return { outcome: 'refused', code: e.code, message: e.message, details: e.details };
    }
    throw e;
  }
  return askToApply(client, deck, result);
}

async function askToApply(
  client: BridgeClient,
  deck: { title: string },
  result: OptimizeResult,
): Promise<OptimizeOutcome> {
  const better = result.scores.fitted.logLoss < (result.scores.current ?? result.scores.default).logLoss;
  const shared = result.deckIds.length > 1 ? ` It is shared by ${result.deckIds.length} decks.` : '';
  // A notification, not a modal: the weights are not urgent, the person may read the statistics first, and a
  // notification's buttons can be clicked by the extension suite (VS Code refuses modal dialogs under tests).
  const answer = await vscode.window.showInformationMessage(
    `Study Bridge: FSRS fitted to ${result.reviews} reviews of “${deck.title}”. ` +
      scoresText(result).replace(/\n/g, '. ') +
      (better ? '' : ' The fitted weights do not score better than those in use.') +
      shared +
      ` Lower is better for both. Apply the fitted weights to preset “${result.presetName}”?`,
    'Apply',
    'Keep current',
  );
  if (answer !== 'Apply') return { outcome: 'kept', result };
  await applyFsrsParameters(client, result.presetId, result.parameters);
  void vscode.window.showInformationMessage(
    `Study Bridge: preset “${result.presetName}” now schedules with the fitted weights.`,
  );
  return { outcome: 'applied', result };
}
