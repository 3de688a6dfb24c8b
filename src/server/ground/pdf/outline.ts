import type { PdfDocument } from './pdfjsLoader';
import type { OutlineSegment } from './pdfTypes';

interface RawOutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: RawOutlineNode[];
}

/** 1-based page of an outline destination, or undefined when it does not resolve. */
async function destPage(doc: PdfDocument, dest: RawOutlineNode['dest']): Promise<number | undefined> {
  try {
    const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || explicit.length === 0) return undefined;
    const target: unknown = explicit[0];
    if (typeof target === 'number') return target + 1;
    if (target && typeof target === 'object')
      return (await doc.getPageIndex(target as { num: number; gen: number })) + 1;
  } catch {
    /* broken destination */
  }
  return undefined;
}

/**
 * The document's bookmarks, flattened depth-first: `level` 0 is the top.
 * Entries whose destination does not resolve keep the previous entry's page
 * (1 at the start) so the list still mirrors the bookmarks one to one. Pages
 * are passed through as the source has them, advancing or not.
 */
export async function readOutline(doc: PdfDocument): Promise<OutlineSegment[]> {
  const roots = ((await doc.getOutline()) ?? []) as RawOutlineNode[];
  const out: OutlineSegment[] = [];
  let lastPage = 1;
  const walk = async (nodes: RawOutlineNode[], level: number) => {
    for (const node of nodes) {
      const page = await destPage(doc, node.dest);
      if (page !== undefined) lastPage = page;
      out.push({ startPage: page ?? lastPage, title: (node.title ?? '').replace(/\s+/g, ' ').trim(), level });
      if (node.items?.length) await walk(node.items, level + 1);
    }
  };
  await walk(roots, 0);
  return out;
}
