import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { invalidInput } from '../../errors';
import type { Store } from '../../ground/store/store';
import type { BridgeConfig } from '../../config';
import { fsyncDir } from '../../ground/store/durableFiles';
import { renameReplacingSync } from '../../ground/store/renameReplacing';
import { asNoSpace, skipForSpace } from '../../ground/store/diskSpace';
import { PdfTaskError } from '../../ground/pdf/extractionPool';
import type { DocumentInfo } from '../../ground/pdf/pdfTypes';
import { checkFilename, checkFolder, insideLibrary } from './libraryPaths';
import { caseFoldKey } from '../security/portableNames';
import { nowIso } from './ids';
import { addDocumentToSetTx } from './studySetMembership';
import { assertStudySet } from './studySets';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { PageCache } from '../../ground/cache/pageCache';
import type { DocumentCatalogue } from './documentCatalogue';
import type { ExtractionScheduler } from './extractionScheduler';
import { spoolUpload } from './uploadSpool';
import { pdfTooComplex, tooManyPages } from './uploadLimits';

/** What an upload touches. */
export interface DocumentUploadDeps {
  config: BridgeConfig;
  documents: DocumentCatalogue;
  extraction: Pick<ExtractionScheduler, 'startExtraction'>;
  pool: Pick<ExtractionPool, 'info' | 'open'>;
  pageCache: Pick<PageCache, 'discard' | 'writeOutline'>;
}

export interface UploadInput {
  /** The file's bytes as they arrive (never held whole). */
  body: Readable;
  filename: string;
  folder?: string;
  topicid?: string;
}

const notAPdf = () =>
  invalidInput('The uploaded bytes are not a PDF (no %PDF- header). Nothing was stored.', undefined, 'NOT_A_PDF');

/**
 * An upload: checked (name, PDF header, size and page limits, readable by
 * pdf.js in a PDF worker), written to a `.part` file as it arrives, moved
 * under <dataDir>/library/<folder>/<filename> without ever overwriting (a
 * clash gets a free name), durable before its row is journaled; then the
 * pages are read in the background. The same bytes again add nothing.
 */
export async function uploadDocument(deps: DocumentUploadDeps, input: UploadInput) {
  const { config } = deps;
  const filename = checkFilename(input.filename);
  const folder = checkFolder(input.folder);
  if (!/\.pdf$/i.test(filename))
    throw invalidInput(
      `filename "${filename}" must end in .pdf: the library holds PDF documents.`,
      { field: 'filename' },
      'NOT_A_PDF',
    );
  if (input.topicid) assertStudySet(deps.documents.store, input.topicid);
  mkdirSync(config.libraryDir, { recursive: true });
  const spooled = await spoolUpload(input.body, config.libraryDir, config.limits.uploadBytes, (head) => {
    if (head.length < 8 || head.indexOf('%PDF-') < 0) throw notAPdf();
  });
  let stored = false;
  try {
    const r = await storeUpload(deps, input, {
      filename,
      folder,
      part: spooled.path,
      size: spooled.size,
      bookmd5: spooled.md5,
    });
    stored = r.created;
    return r;
  } finally {
    if (!stored) await rm(spooled.path, { force: true });
  }
}

/** Reads the page count and outline in a PDF worker; its refusals become 422s. */
export async function readInfo(
  { pool, config }: Pick<DocumentUploadDeps, 'pool' | 'config'>,
  bookmd5: string,
  file: string,
): Promise<DocumentInfo> {
  let info;
  try {
    info = await pool.info({ key: bookmd5, path: file }, config.limits.maxPages);
  } catch (e) {
    const code = e instanceof PdfTaskError ? e.workerCode : undefined;
    if (code === 'PDF_TOO_MANY_PAGES') throw tooManyPages((e as Error).message, config.limits.maxPages);
    if (code === 'PDF_TOO_COMPLEX') throw pdfTooComplex((e as { reason?: string }).reason ?? (e as Error).message);
    if (code === 'CLOSED') throw e;
    throw invalidInput(
      `The file is not a readable PDF: ${(e as Error).message}. Nothing was stored.`,
      undefined,
      'CORRUPT_PDF',
    );
  }
  if (info.pageCount < 1) throw invalidInput('The PDF has no pages. Nothing was stored.', undefined, 'CORRUPT_PDF');
  return info;
}

async function storeUpload(
  deps: DocumentUploadDeps,
  input: UploadInput,
  {
    filename,
    folder,
    part,
    size,
    bookmd5,
  }: { filename: string; folder: string; part: string; size: number; bookmd5: string },
) {
  const { config, documents, extraction, pool } = deps;
  const store = documents.store;
  const warnings: string[] = [];
  const existing = documents.find(bookmd5);
  if (existing) {
    warnings.push(
      `The same bytes are already in the library as ${existing.folder ? `${existing.folder}/` : ''}${existing.filename}; nothing new was stored.`,
    );
    const added = input.topicid ? await addToStudySet(store, input.topicid, bookmd5) : false;
    return {
      bookmd5,
      created: false,
      alreadyPresent: true,
      filename: existing.filename,
      folder: existing.folder,
      addedToStudySet: added,
      movedToFolder: false,
      pageCount: existing.page_count,
      extraction: documents.progress(existing),
      warnings,
    };
  }
  const info = await readInfo(deps, bookmd5, part);

  const { targetFolder, finalName, movedToFolder } = placeUpload(store, config, folder, filename, warnings);
  const abs = insideLibrary(config.libraryDir, targetFolder, finalName);
  mkdirSync(path.dirname(abs), { recursive: true, mode: 0o700 });
  // The .part is fsynced: on disk before the record that points at it is acknowledged (the record is fsynced by the journal).
  renameReplacingSync(part, abs);
  try {
    fsyncDir(path.dirname(abs));
    // The other worker (started if need be) opens the PDF while the row is written, so extraction starts on both.
    void pool.open({ key: bookmd5, path: abs }).catch(() => undefined);
    await recordDocument(deps, {
      bookmd5,
      filename: finalName,
      folder: targetFolder,
      size,
      info,
      topicid: input.topicid,
    });
  } catch (e) {
    await rm(abs, { force: true });
    throw asNoSpace(e, 'Storing the upload', path.dirname(abs));
  }
  extraction.startExtraction(bookmd5, abs, info);
  return {
    bookmd5,
    created: true,
    filename: finalName,
    folder: targetFolder,
    addedToStudySet: !!input.topicid,
    movedToFolder,
    pageCount: info.pageCount,
    hasToc: info.outline.length > 0,
    extraction: { state: 'extracting', extractedPages: 0, pageCount: info.pageCount },
    warnings,
  };
}

/**
 * The row of a PDF now in the library (upload, or adoption at start-up), in
 * state 'extracting'; its outline goes to the page cache first.
 */
export async function recordDocument(
  { documents, pageCache }: Pick<DocumentUploadDeps, 'documents' | 'pageCache'>,
  d: { bookmd5: string; filename: string; folder: string; size: number; info: DocumentInfo; topicid?: string },
): Promise<void> {
  const now = nowIso();
  // Stale pages of an earlier copy (deleted while its cache was being written) must not count.
  await pageCache.discard(d.bookmd5);
  await pageCache.writeOutline(d.bookmd5, d.info.outline).catch(skipForSpace); // a cache: read from the PDF again when missing
  await documents.store.write((tx) => {
    tx.run(
      `INSERT INTO documents(bookmd5, filename, folder, size, page_count, extraction_state, extracted_pages, outline_original, toc_display, added_at, modified_at)
       VALUES (?, ?, ?, ?, ?, 'extracting', 0, NULL, 'original', ?, ?)`,
      [d.bookmd5, d.filename, d.folder, d.size, d.info.pageCount, now, now],
    );
    if (d.topicid) addDocumentToSetTx(tx, d.topicid, d.bookmd5, now);
  });
}

/** Where the file goes, never overwriting: a clash in the asked folder puts it at the root, under a free name. */
function placeUpload(store: Store, config: BridgeConfig, folder: string, filename: string, warnings: string[]) {
  let targetFolder = folder;
  let movedToFolder = folder !== '';
  if (folder && nameTaken(store, config, folder, filename)) {
    targetFolder = '';
    movedToFolder = false;
    warnings.push(
      `"${folder}/${filename}" already exists; the file was kept at the library root instead (never overwritten).`,
    );
  }
  const finalName = freeName(store, config, targetFolder, filename);
  if (finalName !== filename) warnings.push(`"${filename}" already exists there; stored as "${finalName}".`);
  return { targetFolder, finalName, movedToFolder };
}

/**
 * Taken on disk or in the catalogue, without regard to case: Windows and
 * macOS see `Book.pdf` and `book.pdf` as one file, so a library made on
 * Linux must never hold both.
 */
function nameTaken(store: Store, config: BridgeConfig, folder: string, filename: string): boolean {
  if (existsSync(insideLibrary(config.libraryDir, folder, filename))) return true;
  const key = caseFoldKey(`${folder}/${filename}`);
  // All rows (one per document; cheap beside reading the PDF): SQLite's lower() knows ASCII only.
  const rows = store.all<{ folder: string; filename: string }>('SELECT folder, filename FROM documents');
  return rows.some((r) => caseFoldKey(`${r.folder}/${r.filename}`) === key);
}

function freeName(store: Store, config: BridgeConfig, folder: string, filename: string): string {
  if (!nameTaken(store, config, folder, filename)) return filename;
  const ext = path.extname(filename);
  const stem = filename.slice(0, filename.length - ext.length);
  for (let i = 2; ; i++) {
    const candidate = `${stem} (${i})${ext}`;
    if (!nameTaken(store, config, folder, candidate)) return candidate;
  }
}

async function addToStudySet(store: Store, topicid: string, bookmd5: string): Promise<boolean> {
  await store.write((tx) => addDocumentToSetTx(tx, topicid, bookmd5, nowIso()));
  return true;
}
