import type { OutlineEntry } from './protocol';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs' with { 'resolution-mode': 'import' };

/** A document pdf.js opened. */
export type PdfDocument = Awaited<ReturnType<(typeof PdfJsModule)['getDocument']>['promise']>;

/** The PDF's own outline (pages resolved), else the bridge's (detected headings). */
export async function outlineOf(
  doc: PdfDocument,
  links: { goToDestination(dest: unknown): Promise<void> },
  fallback: OutlineEntry[],
): Promise<Array<OutlineEntry & { go?: () => void }>> {
  type Node = { title: string; dest: unknown; items: Node[] };
  const tree = ((await doc.getOutline().catch(() => null)) ?? []) as Node[];
  if (!tree.length) return fallback;
  const out: Array<OutlineEntry & { go?: () => void }> = [];
  const pageOf = async (dest: unknown): Promise<number> => {
    try {
      const explicit = typeof dest === 'string' ? await doc.getDestination(dest) : (dest as unknown[] | null);
      const ref: unknown = explicit?.[0];
      if (Number.isInteger(ref)) return (ref as number) + 1;
      return ref ? (await doc.getPageIndex(ref as never)) + 1 : 0;
    } catch {
      return 0;
    }
  };
  const walk = async (nodes: Node[], level: number) => {
    for (const n of nodes) {
      out.push({
        title: n.title,
        page: await pageOf(n.dest),
        level,
        go: n.dest ? () => void links.goToDestination(n.dest) : undefined,
      });
      if (n.items?.length) await walk(n.items, level + 1);
    }
  };
  await walk(tree, 1);
  return out;
}
