import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { BridgeError, conflict, invalidInput, notFound } from '../errors';
import type { BridgeConfig } from '../config';
import type { DocumentService, StoredPage } from '../library/documentService';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store } from '../store/store';
import type { UiHost } from '../ui/uiHost';
import { BUNDLE_FILES, RECEIPT_FILE, draftResult, manifestJson, outputContract, sourceJson, taskMarkdown, type BundleMeta } from './bundleFiles';
import { JobCancelled, SingleSlotRunner, type JobControl } from './bundleJobRunner';
import { validatePrepare, type PrepareBody, type PrepareRequest } from './bundlePrepare';
import { getBundle, getLiveBundle, pagesOf, requestOf, type BundleRequest, type BundleRow } from './bundleRecords';
import { BundleSource } from './bundleSource';
import { createHash } from 'node:crypto';

/** Pages read (and waited for) between two cancellation checkpoints. */
const CHUNK_PAGES = 10;

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Bundles: prepare (validated at once, then a job in the single slot), the
 * bundle folder, listing, files, focus and discard. Submit and check live in
 * bundleSubmit.ts and use `source()` and the in-flight guards here.
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
    readonly documents: DocumentService,
    private readonly ui: UiHost,
  ) {}

  get bundlesDir(): string {
    return path.join(this.config.exportFolder, 'bundles');
  }

  folderOf(bundleId: string): string {
    return path.join(this.bundlesDir, bundleId);
  }

  /** After a restart: jobs that were preparing are failed with a reason; half-written folders go. */
  async recover(): Promise<void> {
    const now = nowIso();
    await this.store.write((tx) =>
      tx.run(`UPDATE bundles SET state = 'failed', error = ?, updated_at = ? WHERE state = 'preparing'`, [
        'interrupted: the bridge stopped while this bundle was being prepared; prepare again (or discard it)',
        now,
      ]),
    );
    if (existsSync(this.bundlesDir)) for (const f of readdirSync(this.bundlesDir)) if (f.endsWith('.partial')) rmSync(path.join(this.bundlesDir, f), { recursive: true, force: true });
  }

  // ── prepare ──

  async prepare(body: PrepareBody): Promise<{ status: 200 | 202; body: Record<string, unknown> }> {
    assertStudySet(this.store, body.topicid);
    const doc = this.documents.get(body.bookmd5);
    const req = validatePrepare(body, doc);
    const refused = this.runner.busyError();
    if (refused) throw refused;
    if (!this.store.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [req.topicid, req.bookmd5])) {
      req.warnings.push('This document is not in the study set; the cards will still anchor to it. POST /study-sets/{id}/documents adds it.');
    }
    const bundleId = newId();
    const jobId = newId();
    const rootNoteId = newId();
    const now = nowIso();
    const stored: BundleRequest = { segments: req.segments, title: req.title, defaultFillIndex: req.defaultFillIndex, pagesTotal: req.pages.length };
    let rowWritten!: Promise<void>;
    const job = this.runner.start({ jobId, bundleId, pagesTotal: req.pages.length }, async (ctl) => {
      rowWritten = this.store.write((tx) =>
        tx.run(
          `INSERT INTO bundles(bundle_id, topicid, bookmd5, state, version, root_note_id, job_id, origin, preset, anchor_mode, segments, progress, created_at, updated_at)
           VALUES (?, ?, ?, 'preparing', 0, ?, ?, 'bridge', ?, ?, ?, 0, ?, ?)`,
          [bundleId, req.topicid, req.bookmd5, rootNoteId, jobId, req.preset, req.anchorMode, JSON.stringify(stored), now, now],
        ),
      );
      await rowWritten;
      await this.runJob(ctl, { bundleId, jobId, req, now, documentTitle: doc.filename });
    });
    await rowWritten;
    const base = { jobId, bundleId, bundlePath: this.folderOf(bundleId), pagesTotal: req.pages.length, ...(req.warnings.length ? { warnings: req.warnings } : {}) };
    if (req.async) return { status: 202, body: { ...base, state: 'preparing' } };
    await job.done;
    if (job.error instanceof JobCancelled) throw conflict('PREPARE_CANCELLED', 'This prepare was discarded while it ran; nothing was prepared.', { bundleId, jobId });
    if (job.error) throw job.error;
    return { status: 200, body: { ...base, state: 'prepared', version: 0, rootNoteId, files: [...BUNDLE_FILES] } };
  }

  private async runJob(ctl: JobControl, a: { bundleId: string; jobId: string; req: PrepareRequest; now: string; documentTitle: string }): Promise<void> {
    const { bundleId, req } = a;
    const partial = path.join(this.bundlesDir, `${bundleId}.partial`);
    try {
      const pages: StoredPage[] = [];
      for (let i = 0; i < req.pages.length; i += CHUNK_PAGES) {
        ctl.checkpoint();
        const chunk = req.pages.slice(i, i + CHUNK_PAGES);
        await this.waitForPages(ctl, req.bookmd5, chunk);
        pages.push(...(await this.readPages(req.bookmd5, chunk)));
        ctl.progress(pages.length);
      }
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
      const draft = draftResult(meta, (await this.documents.outline(this.documents.get(req.bookmd5))).segments);
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      const write = (name: string, content: string) => writeFileSync(path.join(partial, name), content);
      write('TASK.md', taskMarkdown(meta));
      write('OUTPUT-CONTRACT.md', outputContract(meta));
      write('manifest.json', manifestJson(meta, pages));
      write('source.json', sourceJson(meta, pages));
      write('result.md', draft);
      write(RECEIPT_FILE, JSON.stringify({ bundleId, jobId: a.jobId, state: 'prepared', draftSha256: sha256(draft), note: 'Written by the bridge. Do not edit or delete.' }, null, 2));
      ctl.checkpoint();
      renameSync(partial, this.folderOf(bundleId));
      // A discard that came between the last checkpoint and the rename must not leave the folder behind.
      if (ctl.job.cancelled) {
        rmSync(this.folderOf(bundleId), { recursive: true, force: true });
        throw new JobCancelled();
      }
      this.sources.delete(bundleId);
      await this.store.write((tx) =>
        tx.run(`UPDATE bundles SET state = 'prepared', progress = ?, updated_at = ? WHERE bundle_id = ? AND state = 'preparing'`, [pages.length, nowIso(), bundleId]),
      );
    } catch (e) {
      rmSync(partial, { recursive: true, force: true });
      if (!(e instanceof JobCancelled)) {
        const reason = e instanceof BridgeError ? `${e.code}: ${e.message}` : (e as Error).message;
        await this.store
          .write((tx) => tx.run(`UPDATE bundles SET state = 'failed', error = ?, updated_at = ? WHERE bundle_id = ? AND state = 'preparing'`, [reason.slice(0, 500), nowIso(), bundleId]))
          .catch(() => undefined);
      }
      throw e;
    }
  }

  /** Pages not extracted yet are read first (prepare right after upload works); checkpoints while waiting. */
  private async waitForPages(ctl: JobControl, bookmd5: string, pages: number[]): Promise<void> {
    for (;;) {
      try {
        await this.documents.waitForPages(this.documents.get(bookmd5), pages);
        return;
      } catch (e) {
        if (!(e instanceof BridgeError && e.code === 'EXTRACTION_IN_PROGRESS')) throw e;
        ctl.checkpoint();
      }
    }
  }

  private async readPages(bookmd5: string, pages: number[]): Promise<StoredPage[]> {
    const got = new Map((await this.documents.storedPages(bookmd5, pages[0], pages[pages.length - 1])).map((p) => [p.page, p]));
    return pages.map((page) => got.get(page) ?? { page, text: '', items: [], width: 0, height: 0, ocr: 2 });
  }

  /** The stored text (and blocks) of a bundle's pages, cached. */
  async source(row: BundleRow): Promise<BundleSource> {
    let s = this.sources.get(row.bundle_id);
    if (!s) {
      const req = requestOf(row);
      const pages: StoredPage[] = [];
      for (const seg of req.segments) pages.push(...(await this.readPages(row.bookmd5, pagesOf({ ...req, segments: [seg] }))));
      s = new BundleSource(pages);
      this.sources.set(row.bundle_id, s);
      if (this.sources.size > 4) this.sources.delete(this.sources.keys().next().value!);
    }
    return s;
  }

  // ── list, files, focus, discard ──

  list(opts: { origin?: string; since?: string }) {
    let sinceIso: string | undefined;
    if (opts.since !== undefined) {
      const ms = /^\d+$/.test(opts.since) ? Number(opts.since) : Date.parse(opts.since);
      if (!Number.isFinite(ms)) throw invalidInput(`since "${opts.since}" is neither an ISO 8601 time nor epoch milliseconds.`, { field: 'since' }, 'INVALID_SINCE');
      sinceIso = new Date(ms).toISOString();
    }
    const rows = this.store.all<BundleRow>(`SELECT * FROM bundles WHERE state <> 'discarded' ${opts.origin ? 'AND origin = ?' : ''} ORDER BY created_at, bundle_id`, opts.origin ? [opts.origin] : []);
    const running = this.runner.running;
    // The library file name of each book; null once the document left the library (the bundle stays listed).
    const filenames = new Map(this.store.all<{ bookmd5: string; filename: string }>(`SELECT bookmd5, filename FROM documents WHERE bookmd5 IN (SELECT bookmd5 FROM bundles WHERE state <> 'discarded')`).map((d) => [d.bookmd5, d.filename]));
    // A preparing job stays listed whatever `since` says: long jobs must not vanish.
    const bundles = rows
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
          segments: req.segments.map((s) => ({ startPage: s.startPage, endPage: s.endPage, ...(s.title ? { title: s.title } : {}) })),
          pagesTotal: total,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
          state: r.state,
          ...(r.state === 'prepared' || r.state === 'imported' ? { version: r.version, rootNoteId: r.root_note_id } : {}),
          ...(r.state === 'preparing' ? { progress: { pagesDone: live?.pagesDone ?? r.progress ?? 0, pagesTotal: total }, running: !!live } : {}),
          ...(r.state === 'failed' ? { error: r.error } : {}),
        };
      });
    return { bundles, count: bundles.length };
  }

  /** A bundle whose folder may be read: not while preparing (it is being written), not failed. */
  readyBundle(bundleId: string): BundleRow {
    const row = getLiveBundle(this.store, bundleId);
    if (row.state === 'preparing') {
      const j = this.runner.running;
      throw conflict(
        'BUNDLE_PREPARING',
        'This bundle is still being prepared and its folder must not be read yet. Poll GET /bundles until state is "prepared".',
        { bundleId, retryAfterSeconds: 15, ...(j?.bundleId === bundleId ? { progress: { pagesDone: j.pagesDone, pagesTotal: j.pagesTotal } } : {}) },
        true,
      );
    }
    if (row.state === 'failed') throw conflict('BUNDLE_FAILED', `This bundle failed: ${row.error ?? 'unknown reason'}. Fix the cause and prepare again, or discard it.`, { bundleId, error: row.error });
    if (this.discarding.has(bundleId)) throw conflict('BUNDLE_DISCARDING', 'This bundle is being discarded.', { bundleId });
    return row;
  }

  /** The listing, or one file's raw content; paths stay inside the folder. */
  files(bundleId: string, relPath: string | undefined): { list: Record<string, unknown> } | { file: Buffer; name: string } {
    const row = this.readyBundle(bundleId);
    const dir = this.folderOf(row.bundle_id);
    if (!existsSync(dir)) throw notFound('BUNDLE_FOLDER_MISSING', `The folder of bundle ${bundleId} is gone (${dir}); discard the bundle and prepare again.`, { bundlePath: dir });
    if (relPath === undefined) {
      const files = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => {
          const st = statSync(path.join(dir, d.name));
          return { path: d.name, size: st.size, modifiedAt: st.mtime.toISOString(), ...(d.name.startsWith('.') ? { hidden: true, doNotEdit: true } : {}) };
        })
        .sort((a, b) => (a.path < b.path ? -1 : 1));
      return { list: { bundleId, bundlePath: dir, state: row.state, files, count: files.length } };
    }
    const parts = relPath.split(/[\\/]+/);
    if (!relPath || path.isAbsolute(relPath) || /^[a-zA-Z]:/.test(relPath) || parts.includes('..') || relPath.includes('\0')) {
      throw invalidInput(`path "${relPath}" must be relative to the bundle folder, without "..": e.g. source.json.`, { field: 'path' }, 'INVALID_PATH');
    }
    const abs = path.resolve(dir, relPath);
    if (!existsSync(abs) || !statSync(abs).isFile()) throw notFound('FILE_NOT_FOUND', `No file "${relPath}" in bundle ${bundleId}. GET /bundles/{id}/files lists them.`, { path: relPath });
    const real = realpathSync(abs);
    if (!real.startsWith(realpathSync(dir) + path.sep)) throw invalidInput(`path "${relPath}" leads outside the bundle folder.`, { field: 'path' }, 'INVALID_PATH');
    return { file: readFileSync(real), name: relPath };
  }

  async focus(bundleId: string) {
    const row = getLiveBundle(this.store, bundleId);
    const first = requestOf(row).segments[0].startPage;
    await this.ui.open({ topicid: row.topicid, bookmd5: row.bookmd5, page: first, ...(row.state === 'imported' && row.root_note_id ? { noteid: row.root_note_id } : {}) });
    return { bundleId, accepted: true, state: row.state, hint: 'Focus is asynchronous: read GET /context to see what is shown.' };
  }

  async discard(bundleId: string) {
    const row = getBundle(this.store, bundleId);
    if (row.state === 'discarded') return { bundleId, discarded: true, alreadyDiscarded: true, cancelledJob: null, folderRemoved: !existsSync(this.folderOf(bundleId)) };
    if (this.submitting.has(bundleId)) throw conflict('SUBMIT_IN_FLIGHT', 'A submit of this bundle is running; discard after it finished (GET /bundles).', { bundleId, retryAfterSeconds: 2 }, true);
    if (this.discarding.has(bundleId)) throw conflict('BUNDLE_DISCARDING', 'This bundle is already being discarded.', { bundleId, retryAfterSeconds: 1 }, true);
    this.discarding.add(bundleId);
    try {
      const job = this.runner.cancel(bundleId);
      await this.store.write((tx) => tx.run(`UPDATE bundles SET state = 'discarded', updated_at = ? WHERE bundle_id = ?`, [nowIso(), bundleId]));
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
