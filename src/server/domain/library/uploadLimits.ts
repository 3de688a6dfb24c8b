import { BridgeError } from '../../errors';

/** 413 PAYLOAD_TOO_LARGE: an upload over the size limit (setting studyBridge.maxUploadMb, --max-upload-mb). Nothing was stored. */
export const uploadTooLarge = (limitBytes: number) =>
  new BridgeError(
    'PAYLOAD_TOO_LARGE',
    413,
    `The upload exceeds the limit of ${limitBytes} bytes (${Math.round(limitBytes / 1048576)} MB; setting studyBridge.maxUploadMb, CLI --max-upload-mb). Nothing was stored.`,
    { limitBytes, limitMb: Math.round(limitBytes / 1048576) },
  );

/** 422 PDF_TOO_MANY_PAGES: more pages than the limit (setting studyBridge.maxPages, --max-pages); refused before extraction. */
export const tooManyPages = (message: string, maxPages: number) =>
  new BridgeError(
    'PDF_TOO_MANY_PAGES',
    422,
    `${message} (setting studyBridge.maxPages, CLI --max-pages). Nothing was stored.`,
    { maxPages },
  );

/** 422 PDF_TOO_COMPLEX: reading the PDF went over what a PDF worker may spend on it (memory or time). */
export const pdfTooComplex = (reason: string) =>
  new BridgeError('PDF_TOO_COMPLEX', 422, `The PDF is too complex to read safely: ${reason}. Nothing was stored.`, {
    reason,
  });
