/**
 * A PDF whose cross-reference table is where `startxref` says and whose
 * catalog and page tree read, but whose one page's entry points into
 * padding: pdf.js finds the table, fails on the page, and (unless stopped)
 * rebuilds the table by scanning the whole file. `size` bytes in all, made
 * as chunks so the test never holds the file.
 */
export function* brokenChainPdf(size: number, chunk = 1024 * 1024): Generator<Buffer> {
  const head = [
    '%PDF-1.7\n',
    '1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n',
    '2 0 obj\n<</Type/Pages/Kids[3 0 R]/Count 1>>\nendobj\n',
  ];
  const offsets = [head[0].length, head[0].length + head[1].length];
  let at = head.join('').length;
  yield Buffer.from(head.join(''), 'latin1');
  const page = '3 0 obj\n<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>\nendobj\n';
  const line = '% padding that is neither an object nor a table, the kind a damaged writer leaves\n';
  const padding = size - at - page.length - 400;
  const block = Buffer.from(line.repeat(Math.ceil(chunk / line.length)), 'latin1').subarray(0, chunk);
  // The page's entry points half way into the padding: a comment, not `3 0 obj`.
  const wrong = at + Math.floor(padding / 2) - (Math.floor(padding / 2) % line.length) + 2;
  for (let left = padding; left > 0; left -= block.length) {
    const b = left >= block.length ? block : block.subarray(0, left);
    at += b.length;
    yield b;
  }
  const entry = (n: number) => `${String(n).padStart(10, '0')} 00000 n \n`;
  const tail =
    page +
    `xref\n0 4\n0000000000 65535 f \n${entry(offsets[0])}${entry(offsets[1])}${entry(wrong)}` +
    `trailer\n<</Size 4/Root 1 0 R>>\nstartxref\n${at + page.length}\n%%EOF\n`;
  yield Buffer.from(tail, 'latin1');
}
