import { existsSync, readdirSync, rmSync } from 'node:fs';
import { renameReplacingSync } from '../../ground/store/renameReplacing';
import * as path from 'node:path';
import { BridgeError, conflict } from '../../errors';
import { asNoSpace, failedForSpace } from '../../ground/store/diskSpace';
import { mkdirPrivate, writePrivateFile } from '../../ground/store/privateFiles';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { ExtractionScheduler } from '../library/extractionScheduler';
import type { PageReader, StoredPage } from '../library/pageReader';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store } from '../../ground/store/store';
import { draftResult } from './draftOutline';
import {
  BUNDLE_FILES,
  RECEIPT_FILE,
  manifestJson,
  outputContract,
  sha256,
  sourceJson,
  taskMarkdown,
  type BundleMeta,
} from './bundleFiles';
import { JobCancelled, type JobControl, type SingleSlotRunner } from './bundleJobRunner';
import { validatePrepare, type PrepareBody, type PrepareRequest } from './bundlePrepare';
import { STALE_PREPARE, type BundleRequest } from './bundleRecords';
import { readBundlePages } from './bundleSource';

/** Pages read (and waited for) between two cancellation checkpoints. */
const CHUNK_PAGES = 10;

/**
 * The prepare job: validated at once, then run in the single slot: the
 * pages are read (waiting for extraction, with cancellation checkpoints),
 * the folder is written as <id>.partial and renamed when whole, and the
 * row goes preparing → prepared (or failed, with a reason).
 */
export class BundlePrepareJob {
  constructor(
    private readonly store: Store,
    private readonly documents: DocumentCatalogue,
    private readonly extraction: Pick<ExtractionScheduler, 'waitForPages'>,
    private readonly pages: Pick<PageReader, 'outline' | 'storedPages'>,
    /** The one job slot, shared with discard (which cancels) and the bundle list (which shows progress). */
    private readonly runner: SingleSlotRunner,
    private readonly folders: { readonly bundlesDir: string; folderOf(bundleId: string): string },
  ) {}

  /** After a restart: jobs that were preparing are failed with a reason; half-written folders go. */
  async recover(): Promise<void> {
    await this.failStale();
    if (existsSync(this.folders.bundlesDir))
      for (const f of readdirSync(this.folders.bundlesDir))
        if (f.endsWith('.partial')) rmSync(path.join(this.folders.bundlesDir, f), { recursive: true, force: true });
  }

  /**
   * Records as failed every 'preparing' row whose job is not in the slot: at
   * start, and when writes work again after a full disk (the job's own
   * 'failed' write may have been refused). Until then the rows answer as
   * failed anyway (BundleService.settled). Only when there is one: every
   * start would otherwise journal a write.
   */
  async failStale(): Promise<void> {
    await this.retryWithdrawn();
    const running = this.runner.running?.bundleId ?? '';
    if (!this.store.get(`SELECT 1 FROM bundles WHERE state = 'preparing' AND bundle_id <> ? LIMIT 1`, [running]))
      return;
    await this.store
      .write((tx) =>
        tx.run(
          `UPDATE bundles SET state = 'failed', error = ?, updated_at = ? WHERE state = 'preparing' AND bundle_id <> ?`,
          [STALE_PREPARE, nowIso(), running],
        ),
      )
      .catch((e) => {
        if (!failedForSpace(e)) throw e;
      });
  }

  /** An async prepare answers at once with state 'preparing' (the job runs on); else once the bundle is written, state 'prepared'. */
  async prepare(body: PrepareBody): Promise<Record<string, unknown> & { state: 'preparing' | 'prepared' }> {
    assertStudySet(this.store, body.topicid);
    const doc = this.documents.get(body.bookmd5);
    const req = validatePrepare(body, doc);
    const refused = this.runner.busyError();
    if (refused) throw refused;
    await this.retryWithdrawn();
    if (
      !this.store.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [req.topicid, req.bookmd5])
    ) {
      req.warnings.push(
        'This document is not in the study set; the cards will still anchor to it. POST /study-sets/{id}/documents adds it.',
      );
    }
    const bundleId = newId();
    const jobId = newId();
    const rootNoteId = newId();
    const now = nowIso();
    const stored: BundleRequest = {
      segments: req.segments,
      title: req.title,
      defaultFillIndex: req.defaultFillIndex,
      pagesTotal: req.pages.length,
    };
    let rowWritten!: Promise<void>;
    const job = this.runner.start({ jobId, bundleId, pagesTotal: req.pages.length }, async (ctl) => {
      rowWritten = this.store.write((tx) =>
        tx.run(
          `INSERT INTO bundles(bundle_id, topicid, bookmd5, state, version, root_note_id, job_id, origin, preset, anchor_mode, segments, progress, created_at, updated_at)
           VALUES (?, ?, ?, 'preparing', 0, ?, ?, 'bridge', ?, ?, ?, 0, ?, ?)`,
          [
            bundleId,
            req.topicid,
            req.bookmd5,
            rootNoteId,
            jobId,
            req.preset,
            req.anchorMode,
            JSON.stringify(stored),
            now,
            now,
          ],
        ),
      );
      await rowWritten;
      await this.runJob(ctl, { bundleId, jobId, req, now, documentTitle: doc.filename });
    });
    await rowWritten;
    const base = {
      jobId,
      bundleId,
      bundlePath: this.folders.folderOf(bundleId),
      pagesTotal: req.pages.length,
      ...(req.warnings.length ? { warnings: req.warnings } : {}),
    };
    if (req.async) return { ...base, state: 'preparing' };
    await job.done;
    if (job.error instanceof JobCancelled)
      throw conflict('PREPARE_CANCELLED', 'This prepare was discarded while it ran; nothing was prepared.', {
        bundleId,
        jobId,
      });
    if (job.error) {
      // Answered 507: nothing was prepared, so no failed bundle is left to list either (a retry makes a new one).
      if (failedForSpace(job.error)) await this.withdraw(bundleId).catch(() => this.runner.withdrawn.add(bundleId));
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the job's own error, rethrown as it was caught
      throw job.error;
    }
    return { ...base, state: 'prepared', version: 0, rootNoteId, files: [...BUNDLE_FILES] };
  }

  private async runJob(
    ctl: JobControl,
    a: { bundleId: string; jobId: string; req: PrepareRequest; now: string; documentTitle: string },
  ): Promise<void> {
    const { bundleId, req } = a;
    const partial = path.join(this.folders.bundlesDir, `${bundleId}.partial`);
    try {
      const pages = await this.readPages(ctl, req);
      ctl.checkpoint();
      const meta: BundleMeta = {
        bundleId,
        jobId: a.jobId,
        topicid: req.topicid,
        bookmd5: req.bookmd5,
        documentTitle: a.documentTitle,
        title: req.title,
        preset: req.preset,
        anchorMode: req.anchorMode,
        segments: req.segments,
        pages: req.pages,
        defaultFillIndex: req.defaultFillIndex,
        createdAt: a.now,
      };
      const doc = this.documents.get(req.bookmd5);
      const draft = draftResult(meta, (await this.pages.outline(doc)).segments, doc.page_count);
      writeFolder(partial, meta, pages, draft);
      ctl.checkpoint();
      // On Windows a reader of a file inside (an indexer, an editor) holds the folder for a moment.
      renameReplacingSync(partial, this.folders.folderOf(bundleId));
      // A discard that came between the last checkpoint and the rename must not leave the folder behind.
      if (ctl.job.cancelled) {
        rmSync(this.folders.folderOf(bundleId), { recursive: true, force: true });
        throw new JobCancelled();
      }
      await this.store.write((tx) =>
        tx.run(
          `UPDATE bundles SET state = 'prepared', progress = ?, updated_at = ? WHERE bundle_id = ? AND state = 'preparing'`,
          [pages.length, nowIso(), bundleId],
        ),
      );
    } catch (raw) {
      const e = asNoSpace(raw, 'Preparing the bundle', this.folders.bundlesDir);
      rmSync(partial, { recursive: true, force: true });
      if (!(e instanceof JobCancelled)) {
        const reason = e instanceof BridgeError ? `${e.code}: ${e.message}` : (e as Error).message;
        await this.store
          .write((tx) =>
            tx.run(
              `UPDATE bundles SET state = 'failed', error = ?, updated_at = ? WHERE bundle_id = ? AND state = 'preparing'`,
              [reason.slice(0, 500), nowIso(), bundleId],
            ),
          )
          .catch(() => undefined);
      }
      throw e;
    }
  }

  /** The bundle's pages, CHUNK_PAGES at a time, with a checkpoint before each chunk and progress after. */
  private async readPages(ctl: JobControl, req: PrepareRequest): Promise<StoredPage[]> {
    const pages: StoredPage[] = [];
    for (let i = 0; i < req.pages.length; i += CHUNK_PAGES) {
      ctl.checkpoint();
      const chunk = req.pages.slice(i, i + CHUNK_PAGES);
      await this.waitForPages(ctl, req.bookmd5, chunk);
      pages.push(...(await readBundlePages(this.pages, req.bookmd5, chunk)));
      ctl.progress(pages.length);
    }
    return pages;
  }

  /** Deletes the rows of prepares answered 507 that a full disk kept (at the next prepare, or once writable). */
  private async retryWithdrawn(): Promise<void> {
    for (const bundleId of this.runner.withdrawn) {
      await this.withdraw(bundleId).then(
        () => this.runner.withdrawn.delete(bundleId),
        (e) => {
          if (!failedForSpace(e)) throw e;
        },
      );
    }
  }

  /** Deletes the row of a prepare answered 507 ('preparing' still when its 'failed' was refused too). */
  private withdraw(bundleId: string): Promise<unknown> {
    return this.store.write((tx) =>
      tx.run(`DELETE FROM bundles WHERE bundle_id = ? AND state IN ('failed', 'preparing')`, [bundleId]),
    );
  }

  /** Pages not extracted yet are read first (prepare right after upload works); checkpoints while waiting. */
  private async waitForPages(ctl: JobControl, bookmd5: string, pages: number[]): Promise<void> {
    for (;;) {
      try {
        await this.extraction.waitForPages(this.documents.get(bookmd5), pages);
        return;
      } catch (e) {
        if (!(e instanceof BridgeError && e.code === 'EXTRACTION_IN_PROGRESS')) throw e;
        ctl.checkpoint();
      }
    }
  }
}

/** The bundle folder's files, written afresh into `partial` (renamed into place once whole). */
function writeFolder(partial: string, meta: BundleMeta, pages: StoredPage[], draft: string): void {
  rmSync(partial, { recursive: true, force: true });
  mkdirPrivate(partial);
  const write = (name: string, content: string) => writePrivateFile(path.join(partial, name), content);
  write('TASK.md', taskMarkdown(meta));
  write('OUTPUT-CONTRACT.md', outputContract(meta));
  write('manifest.json', manifestJson(meta, pages));
  write('source.json', sourceJson(meta, pages));
  write('result.md', draft);
  write(
    RECEIPT_FILE,
    JSON.stringify(
      {
        bundleId: meta.bundleId,
        jobId: meta.jobId,
        state: 'prepared',
        draftSha256: sha256(draft),
        note: 'Written by the bridge. Do not edit or delete.',
      },
      null,
      2,
    ),
  );
}
