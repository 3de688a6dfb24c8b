import { z } from 'zod';
import { invalidInput } from '../../errors';
import { VIRTUAL_PAGE_BASE } from '../../domain/library/documentCatalogue';

/** {id} of document routes: a bookmd5 (32 lowercase hex digits). Topic and note ids are UUIDs and are refused here. */
export const bookmd5Param = z
  .string()
  .regex(
    /^[0-9a-f]{32}$/,
    'id must be a bookmd5 (32 lowercase hex digits); study-set, deck and note ids are not document ids',
  );

export const docParams = z.object({ id: bookmd5Param });

/** A PDF page number: integer ≥ 1 (PDF order). Virtual blank pages (≥ 66000) are refused separately. */
export const pageNumber = z.coerce
  .number({ error: 'page must be an integer' })
  .int('page must be an integer')
  .min(1, 'pages are 1-based (PDF order)');

/** Virtual blank pages are never PDF pages: 422 VIRTUAL_PAGE. */
export function refuseVirtual(...pages: (number | undefined)[]): void {
  const v = pages.find((p) => p !== undefined && p >= VIRTUAL_PAGE_BASE);
  if (v !== undefined) {
    throw invalidInput(
      `Page ${v} is a virtual blank page (≥ ${VIRTUAL_PAGE_BASE}); PDF routes take real PDF pages (GET /context converts).`,
      { page: v },
      'VIRTUAL_PAGE',
    );
  }
}

export const flag = z.enum(['0', '1', 'true', 'false']).optional();
export const isOn = (v: string | undefined) => v === '1' || v === 'true';
