import { notFound } from '../../errors';
import type { Db } from '../cards/noteRows';

/** A `bundles` row. `segments` holds the prepare request as JSON (see BundleRequest). */
export interface BundleRow {
  bundle_id: string;
  topicid: string;
  bookmd5: string;
  state: 'preparing' | 'prepared' | 'imported' | 'failed' | 'discarded';
  version: number;
  root_note_id: string | null;
  job_id: string | null;
  origin: string;
  preset: string;
  anchor_mode: string;
  segments: string;
  progress: number | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** What prepare asked for, kept with the row so submit never depends on files the agent can edit. */
export interface BundleRequest {
  segments: { startPage: number; endPage: number; title?: string }[];
  title: string;
  defaultFillIndex: number | null;
  pagesTotal: number;
}

export const requestOf = (row: BundleRow): BundleRequest => JSON.parse(row.segments) as BundleRequest;

export const pagesOf = (req: BundleRequest): number[] =>
  req.segments.flatMap((s) => Array.from({ length: s.endPage - s.startPage + 1 }, (_, i) => s.startPage + i));

/** The row (discarded ones included), or 404 BUNDLE_NOT_FOUND. */
export function getBundle(db: Db, bundleId: string): BundleRow {
  const row = db.get<BundleRow>('SELECT * FROM bundles WHERE bundle_id = ?', [bundleId]);
  if (!row) throw notFound('BUNDLE_NOT_FOUND', `No bundle ${bundleId}. GET /bundles lists them.`, { bundleId });
  return row;
}

/** A bundle that still exists: discarded ones answer 404 too, saying so. */
/** Why a bundle left 'preparing' without its job: stopped with the bridge, or ended when its failure could not be saved. */
export const STALE_PREPARE =
  'interrupted: the prepare job ended without finishing (the bridge stopped, or the disk was full); prepare again (or discard it)';

export function getLiveBundle(db: Db, bundleId: string): BundleRow {
  const row = getBundle(db, bundleId);
  if (row.state === 'discarded') {
    throw notFound(
      'BUNDLE_NOT_FOUND',
      `Bundle ${bundleId} was discarded (its folder is gone; imported cards stay). Prepare a new one.`,
      { bundleId, discarded: true },
    );
  }
  return row;
}
