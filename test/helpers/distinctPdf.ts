/**
 * A copy of a PDF that is another book to the library (another md5): a PDF
 * comment line appended after %%EOF, which readers ignore.
 */
export function distinctCopy(pdf: Uint8Array, n: number): Buffer {
  return Buffer.concat([pdf, Buffer.from(`\n%study-bridge copy ${n}\n`, 'latin1')]);
}
