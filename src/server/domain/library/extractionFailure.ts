/**
 * A stored extraction error names its reason code first when it has one
 * ("PDF_TOO_COMPLEX: a compressed stream inflates to more than 256 MB"):
 * the code is given back beside the message, so a client can tell a PDF
 * that is too complex from one that is damaged.
 */
export function extractionErrorCode(error: string): { errorCode?: string } {
  const m = /^([A-Z][A-Z0-9_]{2,40}): /.exec(error);
  return m ? { errorCode: m[1] } : {};
}
