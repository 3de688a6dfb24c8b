import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { BridgeError, invalidInput } from '../errors';
import type { Store } from '../store/store';
import type { BridgeConfig } from '../config';
import { fsyncDir, writeDurably } from '../store/durableFiles';
import { checkFilename, checkFolder, insideLibrary } from './libraryPaths';
import { nowIso } from './ids';
import { addDocumentToSetTx } from './studySetDocuments';
import { assertStudySet } from './studySets';
import type { DocumentService } from './documentService';

export interface UploadInput {
  bytes: Buffer;
  filename: string;
  folder?: string;
  topicid?: string;
}

/**
 * An upload: checked (name, size, PDF header, readable by pdf.js), stored
 * under <dataDir>/library/<folder>/<filename> without ever overwriting (a
 * clash gets a free name), durable before its row is journaled; then the
 * pages are read in the background. The same bytes again add nothing.
 */
export async function uploadDocument(docs: DocumentService, config: BridgeConfig, input: UploadInput) {
  const filename = checkFilename(input.filename);
  const folder = checkFolder(input.folder);
  if (input.bytes.length > config.limits.uploadBytes) {
    throw new BridgeError('PAYLOAD_TOO_LARGE', 413, `The upload exceeds the limit of ${config.limits.uploadBytes} bytes.`, { limitBytes: config.limits.uploadBytes });
  }
  if (!/\.pdf$/i.test(filename)) throw invalidInput(`filename "${filename}" must end in .pdf: the library holds PDF documents.`, { field: 'filename' }, 'NOT_A_PDF');
  if (input.bytes.length < 8 || input.bytes.subarray(0, 1024).indexOf('%PDF-') < 0) {
    throw invalidInput('The uploaded bytes are not a PDF (no %PDF- header). Nothing was stored.', undefined, 'NOT_A_PDF');
  }
  if (input.topicid) assertStudySet(docs.store, input.topicid);
  const bookmd5 = createHash('md5').update(input.bytes).digest('hex');
  const warnings: string[] = [];
  const existing = docs.find(bookmd5);
  if (existing) {
    warnings.push(`The same bytes are already in the library as ${existing.folder ? `${existing.folder}/` : ''}${existing.filename}; nothing new was stored.`);
    const added = input.topicid ? await addToStudySet(docs.store, input.topicid, bookmd5) : false;
    return { bookmd5, created: false, alreadyPresent: true, filename: existing.filename, folder: existing.folder, addedToStudySet: added, movedToFolder: false, pageCount: existing.page_count, extraction: docs.progress(existing), warnings };
  }
  let info;
  try {
    const source = { key: bookmd5, bytes: new Uint8Array(input.bytes) };
    info = await docs.pool.info(source);
    // The other worker (started if need be) opens the PDF while the upload is
    // stored, so extraction starts on both; not before, it would slow the answer.
    void docs.pool.open(source).catch(() => undefined);
  } catch (e) {
    throw invalidInput(`The file is not a readable PDF: ${(e as Error).message}. Nothing was stored.`, undefined, 'CORRUPT_PDF');
  }
  if (info.pageCount < 1) throw invalidInput('The PDF has no pages. Nothing was stored.', undefined, 'CORRUPT_PDF');

  // Never overwrite: a clash in the asked folder puts the file at the root under a free name.
  let targetFolder = folder;
  let movedToFolder = folder !== '';
  if (folder && nameTaken(docs.store, config, folder, filename)) {
    targetFolder = '';
    movedToFolder = false;
    warnings.push(`"${folder}/${filename}" already exists; the file was kept at the library root instead (never overwritten).`);
  }
  const finalName = freeName(docs.store, config, targetFolder, filename);
  if (finalName !== filename) warnings.push(`"${filename}" already exists there; stored as "${finalName}".`);
  const abs = insideLibrary(config.libraryDir, targetFolder, finalName);
  mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = `${abs}.${process.pid}.part`;
  // On disk before the record that points at it is acknowledged (the record is fsynced by the journal).
  writeDurably(tmp, input.bytes);
  renameSync(tmp, abs);
  fsyncDir(path.dirname(abs));
  const now = nowIso();
  try {
    // Stale pages of an earlier copy (deleted while its cache was being written) must not count.
    await docs.cache.discard(bookmd5);
    await docs.cache.writeOutline(bookmd5, info.outline);
    await docs.store.write((tx) => {
      tx.run(
        `INSERT INTO documents(bookmd5, filename, folder, size, page_count, extraction_state, extracted_pages, outline_original, toc_display, added_at, modified_at)
         VALUES (?, ?, ?, ?, ?, 'extracting', 0, NULL, 'original', ?, ?)`,
        [bookmd5, finalName, targetFolder, input.bytes.length, info.pageCount, now, now],
      );
      if (input.topicid) addDocumentToSetTx(tx, input.topicid, bookmd5, now);
    });
  } catch (e) {
    rmSync(abs, { force: true });
    throw e;
  }
  docs.startExtraction(bookmd5, abs, info);
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

function nameTaken(store: Store, config: BridgeConfig, folder: string, filename: string): boolean {
  return existsSync(insideLibrary(config.libraryDir, folder, filename)) || !!store.get('SELECT 1 FROM documents WHERE folder = ? AND filename = ?', [folder, filename]);
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
