import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { conflict, invalidInput, notFound } from '../../errors';
import type { BridgeConfig } from '../../config';
import type { PageReader, StoredPage } from '../library/pageReader';
import { nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import type { UiHost } from '../ui/uiHost';
import { SingleSlotRunner } from './bundleJobRunner';
import { getBundle, getLiveBundle, pagesOf, requestOf, STALE_PREPARE, type BundleRow } from './bundleRecords';
import { BundleSource, readBundlePages } from './bundleSource';
import { sectionRanges } from './excerptPlace';
import type { DocumentRow } from '../library/documentCatalogue';
import { isWithin, portableRelativePathProblem } from '../security/portableNames';

/**
 * Bundles once asked for: the bundle folder, listing, files, focus and
 * discard. The prepare job is bundlePrepareJob.ts (it shares `runner`);
 * submit and check live in bundleSubmit.ts and use `source()` and the
 * in-flight guards here.
 */
export class BundleService {
  readonly runner = new SingleSlotRunner();
  /** Bundles being discarded right now (submit and prepare answer 409). */
  readonly discarding = new Set<string>();
  /** Bundles with a submit in flight. */
  readonly submitting = new Set<string>();
  private readonly sources = new Map<string, BundleSource>();

  constructor(
    readonly store: Store,
    readonly config: BridgeConfig,
    private readonly pages: Pick<PageReader, 'storedPages' | 'outline'>,
    private readonly ui: UiHost,
  ) {}

  get bundlesDir(): string {
    return path.join(this.config.exportFolder, 'bundles');
  }

  folderOf(bundleId: string): string {
    return path.join(this.bundlesDir, bundleId);
  }

  /** The stored text (and blocks) of a bundle's pages, cached. */
  async source(row: BundleRow): Promise<BundleSource> {
    let s = this.sources.get(row.bundle_id);
    if (!s) {
      const req = requestOf(row);
      const pages: StoredPage[] = [];
      for (const seg of req.segments)
        pages.push(...(await readBundlePages(this.pages, row.bookmd5, pagesOf({ ...req, segments: [seg] }))));
      s = new BundleSource(pages, await this.sectionsOf(row.bookmd5));
      this.sources.set(row.bundle_id, s);
      if (this.sources.size > 4) this.sources.delete(this.sources.keys().next().value!);
    }
    return s;
  }

  /** The book's outline as section ranges; none when the document or its outline cannot be read. */
  private async sectionsOf(bookmd5: string) {
    const doc = this.store.get<DocumentRow>('SELECT * FROM documents WHERE bookmd5 = ?', [bookmd5]);
    if (!doc) return [];
    try {
      return sectionRanges((await this.pages.outline(doc)).segments, doc.page_count);
    } catch {
      return []; // the PDF is gone: excerpts that match on several pages are then decided by reading order only
    }
  }

  // ── list, files, focus, discard ──

  list(opts: { origin?: string; since?: string }) {
    let sinceIso: string | undefined;
    if (opts.since !== undefined) {
      const ms = /^\d+$/.test(opts.since) ? Number(opts.since) : Date.parse(opts.since);
      if (!Number.isFinite(ms))
        throw invalidInput(
          `since "${opts.since}" is neither an ISO 8601 time nor epoch milliseconds.`,
          { field: 'since' },
          'INVALID_SINCE',
        );
      sinceIso = new Date(ms).toISOString();
    }
    const rows = this.store.all<BundleRow>(
      `SELECT * FROM bundles WHERE state <> 'discarded' ${opts.origin ? 'AND origin = ?' : ''} ORDER BY created_at, bundle_id`,
      opts.origin ? [opts.origin] : [],
    );
    const running = this.runner.running;
    // The library file name of each book; null once the document left the library (the bundle stays listed).
    const filenames = new Map(
      this.store
        .all<{ bookmd5: string; filename: string }>(
          `SELECT bookmd5, filename FROM documents WHERE bookmd5 IN (SELECT bookmd5 FROM bundles WHERE state <> 'discarded')`,
        )
        .map((d) => [d.bookmd5, d.filename]),
    );
    // A preparing job stays listed whatever `since` says: long jobs must not vanish.
    const bundles = rows
      .filter((r) => !this.runner.withdrawn.has(r.bundle_id))
      .map((r) => this.settled(r))
      .filter((r) => !sinceIso || r.state === 'preparing' || r.updated_at >= sinceIso)
      .map((r) => {
        const live = running?.bundleId === r.bundle_id ? running : undefined;
        const req = requestOf(r);
        const total = req.pagesTotal;
        return {
          bundleId: r.bundle_id,
          jobId: r.job_id,
          bundlePath: this.folderOf(r.bundle_id),
          topicid: r.topicid,
          bookmd5: r.bookmd5,
          // From the stored request, so the list needs no folder (preparing, failed, another machine).
          title: req.title,
          documentTitle: filenames.get(r.bookmd5) ?? null,
          preset: r.preset,
          anchorMode: r.anchor_mode,
          segments: req.segments.map((s) => ({
            startPage: s.startPage,
            endPage: s.endPage,
            ...(s.title ? { title: s.title } : {}),
          })),
          pagesTotal: total,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
          state: r.state,
          ...(r.state === 'prepared' || r.state === 'imported'
            ? { version: r.version, rootNoteId: r.root_note_id }
            : {}),
          ...(r.state === 'preparing'
            ? { progress: { pagesDone: live?.pagesDone ?? r.progress ?? 0, pagesTotal: total }, running: !!live }
            : {}),
          ...(r.state === 'failed' ? { error: r.error } : {}),
        };
      });
    return { bundles, count: bundles.length };
  }

  /**
   * The row as it really stands. The row is written inside the job, so a
   * 'preparing' row with no job in the slot is a job that ended but whose
   * 'failed' could not be saved (a full disk): it answers as failed now, and
   * BundlePrepareJob.failStale records it once writes work again.
   */
  private settled(row: BundleRow): BundleRow {
    if (row.state !== 'preparing' || this.runner.running?.bundleId === row.bundle_id) return row;
    return { ...row, state: 'failed', error: row.error ?? STALE_PREPARE };
  }

  /** A bundle whose folder may be read: not while preparing (it is being written), not failed. */
  readyBundle(bundleId: string): BundleRow {
    const row = this.settled(getLiveBundle(this.store, bundleId));
    if (row.state === 'preparing') {
      const j = this.runner.running;
      throw conflict(
        'BUNDLE_PREPARING',
        'This bundle is still being prepared and its folder must not be read yet. Poll GET /bundles until state is "prepared".',
        {
          bundleId,
          retryAfterSeconds: 15,
          ...(j?.bundleId === bundleId ? { progress: { pagesDone: j.pagesDone, pagesTotal: j.pagesTotal } } : {}),
        },
        true,
      );
    }
    if (row.state === 'failed')
      throw conflict(
        'BUNDLE_FAILED',
        `This bundle failed: ${row.error ?? 'unknown reason'}. Fix the cause and prepare again, or discard it.`,
        { bundleId, error: row.error },
      );
    if (this.discarding.has(bundleId))
      throw conflict('BUNDLE_DISCARDING', 'This bundle is being discarded.', { bundleId });
    return row;
  }

  /** The listing, or one file's raw content; paths stay inside the folder. */
  files(
    bundleId: string,
    relPath: string | undefined,
  ): { list: Record<string, unknown> } | { file: Buffer; name: string } {
    const row = this.readyBundle(bundleId);
    const dir = this.folderOf(row.bundle_id);
    if (!existsSync(dir))
      throw notFound(
        'BUNDLE_FOLDER_MISSING',
        `The folder of bundle ${bundleId} is gone (${dir}); discard the bundle and prepare again.`,
        { bundlePath: dir },
      );
    if (relPath === undefined) {
      const files = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => {
          const st = statSync(path.join(dir, d.name));
          return {
            path: d.name,
            size: st.size,
            modifiedAt: st.mtime.toISOString(),
            ...(d.name.startsWith('.') ? { hidden: true, doNotEdit: true } : {}),
          };
        })
        .sort((a, b) => (a.path < b.path ? -1 : 1));
      return { list: { bundleId, bundlePath: dir, state: row.state, files, count: files.length } };
    }
    // The same rules on every platform: `..\`, `C:\`, `\\server\share`, device names and trailing dots are refused.
    const problem = relPath ? portableRelativePathProblem(relPath) : 'it is empty';
    if (problem) {
      throw invalidInput(
        `path "${relPath.slice(0, 200)}" must be relative to the bundle folder, without "..": e.g. source.json (${problem}).`,
        { field: 'path' },
        'INVALID_PATH',
      );
    }
    const abs = path.resolve(dir, relPath);
    if (!existsSync(abs) || !statSync(abs).isFile())
      throw notFound(
        'FILE_NOT_FOUND',
        `No file "${relPath}" in bundle ${bundleId}. GET /bundles/{id}/files lists them.`,
        { path: relPath },
      );
    const real = realpathSync(abs);
    if (real === realpathSync(dir) || !isWithin(realpathSync(dir), real))
      throw invalidInput(`path "${relPath}" leads outside the bundle folder.`, { field: 'path' }, 'INVALID_PATH');
    return { file: readFileSync(real), name: relPath };
  }

  async focus(bundleId: string) {
    const row = getLiveBundle(this.store, bundleId);
    const first = requestOf(row).segments[0].startPage;
    await this.ui.open({
      topicid: row.topicid,
      bookmd5: row.bookmd5,
      page: first,
      ...(row.state === 'imported' && row.root_note_id ? { noteid: row.root_note_id } : {}),
    });
    return {
      bundleId,
      accepted: true,
      state: row.state,
      hint: 'Focus is asynchronous: read GET /context to see what is shown.',
    };
  }

  async discard(bundleId: string) {
    const row = getBundle(this.store, bundleId);
    if (row.state === 'discarded')
      return {
        bundleId,
        discarded: true,
        alreadyDiscarded: true,
        cancelledJob: null,
        folderRemoved: !existsSync(this.folderOf(bundleId)),
      };
    if (this.submitting.has(bundleId))
      throw conflict(
        'SUBMIT_IN_FLIGHT',
        'A submit of this bundle is running; discard after it finished (GET /bundles).',
        { bundleId, retryAfterSeconds: 2 },
        true,
      );
    if (this.discarding.has(bundleId))
      throw conflict(
        'BUNDLE_DISCARDING',
        'This bundle is already being discarded.',
        { bundleId, retryAfterSeconds: 1 },
        true,
      );
    this.discarding.add(bundleId);
    try {
      const job = this.runner.cancel(bundleId);
      await this.store.write((tx) =>
        tx.run(`UPDATE bundles SET state = 'discarded', updated_at = ? WHERE bundle_id = ?`, [nowIso(), bundleId]),
      );
      this.sources.delete(bundleId);
      let folderRemoved = true;
      try {
        await rm(this.folderOf(bundleId), { recursive: true, force: true });
      } catch {
        folderRemoved = false;
      }
      return {
        bundleId,
        discarded: true,
        cancelledJob: job ? { jobId: job.jobId, pagesDone: job.pagesDone, pagesTotal: job.pagesTotal } : null,
        folderRemoved,
        ...(row.state === 'imported' ? { importedCardsKept: true, rootNoteId: row.root_note_id } : {}),
      };
    } finally {
      this.discarding.delete(bundleId);
    }
  }
}
