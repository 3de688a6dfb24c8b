import { createHash, createHmac } from 'node:crypto';
import { z } from 'zod';
import { cardsPerPage, paginate, type PlannedPage, type PrintMode } from './printPagination';
import type { PrintTree } from './printTree';

export const PLAN_SCHEMA = 'study-bridge.mindMapPrintPlan.v0' as const;
export const PRINT_MODES = ['keepStructure', 'classic', 'cardFlow'] as const;
export const DEFAULT_DENSITY = 0.5;
/** Above this many pages a preview warns (a print this long is rarely meant). */
const MANY_PAGES = 200;

/** What preview answers and export takes back (extra fields of the answer are ignored). */
export const planSchema = z.object({
  schema: z.literal(PLAN_SCHEMA),
  topicid: z.string(),
  rootNoteId: z.string(),
  mode: z.enum(PRINT_MODES),
  densityValue: z.number().min(0).max(1),
  cardCount: z.number().int().min(1),
  pageCountEstimate: z.number().int().min(1),
  pages: z
    .array(
      z.object({
        kind: z.enum(['branchOverview', 'mergedSiblingBranches', 'singleCard']),
        sliceIndex: z.number().int().min(0),
        sliceCount: z.number().int().min(1),
        anchorNoteId: z.string(),
        visibleNoteIds: z.array(z.string()).min(1),
        visibleDepth: z.number().int().min(0),
      }),
    )
    .min(1),
  exportOptions: z.object({
    pageSize: z.literal('A4'),
    orientation: z.literal('portrait'),
    cardsPerPage: z.number().int().min(1),
    drawConnectors: z.boolean(),
  }),
  treeFingerprint: z.string(),
  planFingerprint: z.string(),
});
export type PrintPlan = z.infer<typeof planSchema>;

/** JSON with sorted keys: the fingerprint does not depend on how a client orders fields. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * HMAC of the plan under a key derived from the bridge's token: a plan edited
 * by hand (or made up) does not verify, so export never draws pages the
 * bridge did not plan.
 */
export function planFingerprint(plan: Omit<PrintPlan, 'planFingerprint'>, secret: string): string {
  const key = createHash('sha256').update(`mind-map-print-plan\0${secret}`).digest();
  const { planFingerprint: _ignored, ...rest } = plan as PrintPlan;
  return createHmac('sha256', key).update(canonical(rest)).digest('hex');
}

export function buildPlan(
  tree: PrintTree,
  mode: PrintMode,
  densityValue: number,
  secret: string,
): { plan: PrintPlan; warnings: string[] } {
  const pages: PlannedPage[] = paginate(tree.cards, mode, densityValue);
  const body = {
    schema: PLAN_SCHEMA,
    topicid: tree.topicid,
    rootNoteId: tree.rootNoteId,
    mode,
    densityValue,
    cardCount: tree.cards.length,
    pageCountEstimate: pages.length,
    pages,
    exportOptions: {
      pageSize: 'A4' as const,
      orientation: 'portrait' as const,
      cardsPerPage: cardsPerPage(mode, densityValue),
      drawConnectors: mode !== 'cardFlow',
    },
    treeFingerprint: tree.fingerprint,
  };
  const warnings: string[] = [];
  if (pages.length > MANY_PAGES)
    warnings.push(
      `The print has ${pages.length} pages; a higher densityValue or a rootNoteId (one branch) makes it shorter.`,
    );
  if (tree.cards.length === 1) warnings.push('The printed branch is a single card.');
  return { plan: { ...body, planFingerprint: planFingerprint(body, secret) }, warnings };
}
