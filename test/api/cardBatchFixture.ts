/** Shared by the batch-create tests (HTTP and MCP): verbatim quotes of a book and a 20-card tree of them. */
import assert from 'node:assert/strict';

export interface Quote {
  page: number;
  text: string;
}

/** Lines of the pages' own text long enough to be a quote: each is anchored verbatim. */
export async function quotableLines(
  request: (path: string, query: Record<string, string>) => Promise<any>,
  bookmd5: string,
  start: number,
  end: number,
  n: number,
): Promise<Quote[]> {
  const res = await request(`/documents/${bookmd5}/pages`, { start: String(start), end: String(end) });
  const quotes: Quote[] = [];
  for (const p of res.pages) {
    const lines = new Set(
      (p.text as string)
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length >= 30 && l.length <= 90 && /^[A-Za-z]/.test(l)),
    );
    for (const text of lines) quotes.push({ page: p.page, text });
  }
  assert.ok(quotes.length >= n, `pages ${start}-${end} have ${quotes.length} quotable lines`);
  return quotes.slice(0, n);
}

/** A 20-card tree in pre-order: 4 chapters (parentIndex into the batch), each with 4 verbatim quotes. */
export function twentyCardTree(bookmd5: string, quotes: Quote[]) {
  const cards: Record<string, unknown>[] = [];
  for (let c = 0; c < 4; c++) {
    const chapter = cards.length;
    cards.push({ title: `Chapter ${c + 1}`, text: `What chapter ${c + 1} says.` });
    for (let q = 0; q < 4; q++)
      cards.push({
        parentIndex: chapter,
        excerpt: { bookmd5, ...quotes[c * 4 + q] },
        text: `Why quote ${c * 4 + q} matters.`,
      });
  }
  return cards;
}
