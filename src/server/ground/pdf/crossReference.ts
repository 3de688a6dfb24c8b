/**
 * Whether pdf.js can find a PDF's objects through its cross-reference table, checked on the bytes before pdf.js
 * sees them. Where it cannot (no `startxref` at the end, or one that points at neither an `xref` table nor an xref
 * stream's `N G obj`), pdf.js rebuilds the table by scanning the whole file, and that scan holds the file again as
 * one string: twice its size on top of the bytes (a 200 MB body of junk: +400 MB, 35 s). A damaged file up to
 * MAX_REBUILD_BYTES is still rebuilt (truncated downloads are common and pdf.js recovers them); a larger one is
 * refused before the scan.
 */

export const MAX_REBUILD_BYTES = 64 * 1024 * 1024;

/** pdf.js looks for `startxref` from the end; this far back covers trailing junk a writer may leave. */
const TAIL_BYTES = 64 * 1024;
const latin1 = new TextDecoder('latin1');

/** Why the PDF must not be given to pdf.js, or undefined when its table is where it says (or the file is small). */
export function crossReferenceRefusal(bytes: Uint8Array, maxRebuildBytes = MAX_REBUILD_BYTES): string | undefined {
  if (bytes.byteLength <= maxRebuildBytes) return undefined;
  if (pointsAtTable(bytes)) return undefined;
  return rebuildRefusal('missing or broken', bytes.byteLength, maxRebuildBytes);
}

/**
 * pdf.js rebuilds the table by that same scan also when the table is where `startxref` says but an object it
 * checks on opening (the catalog, the page tree, the first or last page) is not where the table says; it warns
 * "Indexing all PDF objects" just before. While a PDF over MAX_REBUILD_BYTES opens, `watchRebuilds` turns that
 * warning into `refuse` (a budget overrun: the thread ends, and with it the scan). pdf.js's other warnings stay
 * unprinted, as at verbosity 0. `opening` gives the sizes of the PDFs opening now; installed once per thread.
 */
export function watchRebuilds(opening: () => number, refuse: (reason: string) => never): void {
  if (watching) return;
  watching = true;
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    const msg = args[0];
    if (typeof msg !== 'string' || !msg.startsWith('Warning: ')) return warn(...args);
    const size = opening();
    if (size > MAX_REBUILD_BYTES && msg.startsWith('Warning: Indexing all PDF objects'))
      refuse(rebuildRefusal('broken (an object is not where the table says)', size, MAX_REBUILD_BYTES));
  };
}

let watching = false;

const mb = (n: number) => Math.round(n / 1048576);

/** The refusal of a table pdf.js would rebuild by scanning a file over the limit. */
function rebuildRefusal(state: string, size: number, max: number): string {
  return (
    `The PDF's cross-reference table is ${state}, and the file is ${mb(size)} MB: ` +
    `rebuilding the table means scanning it whole, which is allowed up to ${mb(max)} MB. ` +
    'Repair the file first (for example `qpdf damaged.pdf repaired.pdf`) and upload that.'
  );
}

function pointsAtTable(bytes: Uint8Array): boolean {
  const tailStart = Math.max(0, bytes.byteLength - TAIL_BYTES);
  const tail = latin1.decode(bytes.subarray(tailStart));
  const at = tail.lastIndexOf('startxref');
  if (at < 0) return false;
  const offset = /^startxref\s+(\d{1,12})/.exec(tail.slice(at, at + 40))?.[1];
  if (offset === undefined) return false;
  // Offsets count from the header, which pdf.js finds within the first 1024 bytes (junk before it is tolerated).
  const header = Math.max(0, latin1.decode(bytes.subarray(0, 1024)).indexOf('%PDF-'));
  return [header + Number(offset), Number(offset)].some((start) => tableAt(bytes, start));
}

function tableAt(bytes: Uint8Array, start: number): boolean {
  if (start >= bytes.byteLength) return false;
  const head = latin1.decode(bytes.subarray(start, Math.min(bytes.byteLength, start + 64)));
  return /^\s*(xref\b|\d+\s+\d+\s+obj\b)/.test(head);
}
