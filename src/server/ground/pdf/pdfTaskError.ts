import { pdfTooComplexError, TOO_COMPLEX } from './extractionBudget';
import { loadErrorOf, rendererUnavailable } from './nativeCanvas';

/** A PDF worker task that failed; `workerCode` names why (CANCELLED, CLOSED, PDF_TOO_COMPLEX, PDF_TOO_MANY_PAGES…). */
export class PdfTaskError extends Error {
  /** The errno code of a file-system failure in the worker (ENOSPC...), as on a Node fs error. */
  readonly code?: string;
  constructor(
    message: string,
    readonly workerCode?: string,
    errno?: string,
  ) {
    super(message);
    this.name = 'PdfTaskError';
    if (errno) this.code = errno;
  }
}

/** A PDF over the worker budget; the message starts with the code, so a stored extraction error names it. */
export const tooComplex = (reason: string) =>
  Object.assign(new PdfTaskError(`${TOO_COMPLEX}: ${reason}`, TOO_COMPLEX), { reason });

/** A read that answers at once (render, export): over budget is the caller's 422, not a 500. */
export const answerTooComplex = (e: unknown): never => {
  throw e instanceof PdfTaskError && e.workerCode === TOO_COMPLEX
    ? pdfTooComplexError((e as { reason?: string }).reason ?? e.message)
    : e;
};

/** The canvas failed to load in the worker although it loads here: still a 503, never a corrupt PDF. */
export const answerRendererMissing = (e: unknown): never => {
  if (e instanceof PdfTaskError && e.code === 'RENDERER_UNAVAILABLE') throw rendererUnavailable(loadErrorOf(e.message));
  throw e;
};
