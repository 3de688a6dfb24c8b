// pdf-lib, required on first use: setting up its modules took 24 ms of every
// bridge start (the worker bundle's largest top-level cost), and only writing
// PDFs (highlights, flat exports, the printed mind map) and reading their
// annotations need it.
type PdfLib = typeof import('pdf-lib');

let lib: PdfLib | undefined;

export function pdfLib(): PdfLib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (lib ??= require('pdf-lib') as PdfLib);
}
