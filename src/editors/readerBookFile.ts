import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type * as vscode from 'vscode';
import { READER_CHUNK_BYTES, type BookBytes } from '../webviews/pdfReader/protocol';

/**
 * The book a reader shows, read by byte range: the webview's pdf.js asks for
 * the spans it needs (the first page first), so a 500 MB book is never copied
 * whole into the webview nor into the extension host. VS Code's own webview
 * resource loader cannot serve those ranges in VS Code 1.100 (it loads the
 * whole file for every request and answers a range with all of it), so the
 * bytes go over the reader's channel instead of by URL. A file outside the
 * local disk (another file system provider) is read once and sliced.
 */
export class ReaderBookFile implements vscode.Disposable {
  /** Bytes handed to the webview so far (the suite checks a book's first page needs far less than the book). */
  bytesRead = 0;

  private constructor(
    readonly length: number,
    private readonly handle: FileHandle | undefined,
    private readonly whole: Uint8Array | undefined,
    private readonly path: string | undefined,
  ) {}

  /** `readOther`: the whole file, for a URI that is not on the local disk (vscode.workspace.fs.readFile). */
  static async open(
    uri: Pick<vscode.Uri, 'scheme' | 'fsPath'>,
    readOther: () => Thenable<Uint8Array>,
  ): Promise<ReaderBookFile> {
    if (uri.scheme === 'file') {
      const handle = await open(uri.fsPath, 'r');
      try {
        return new ReaderBookFile((await handle.stat()).size, handle, undefined, uri.fsPath);
      } catch (err) {
        await handle.close();
        throw err;
      }
    }
    const whole = await readOther();
    return new ReaderBookFile(whole.byteLength, undefined, whole, undefined);
  }

  /** Bytes [begin, end) (clamped to the file) as a plain ArrayBuffer, which the webview receives as binary. */
  async read(begin: number, end: number): Promise<ArrayBuffer> {
    const from = Math.max(0, Math.min(begin, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    this.bytesRead += to - from;
    if (this.whole) return this.whole.slice(from, to).buffer;
    const out = new Uint8Array(to - from);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await this.handle!.read(out, done, out.length - done, from + done);
      if (!bytesRead) throw new Error(`the book ended at byte ${from + done} of ${this.length} (changed on disk?)`);
      done += bytesRead;
    }
    return out.buffer;
  }

  /** The first chunk and the last chunk or two (pdf.js reads the trailer first): sent with `open`, saving a round trip. */
  async ends(): Promise<{ head: ArrayBuffer; tail: BookBytes | null }> {
    const head = await this.read(0, READER_CHUNK_BYTES);
    const tailBegin = Math.max(
      READER_CHUNK_BYTES,
      Math.floor(Math.max(0, this.length - READER_CHUNK_BYTES) / READER_CHUNK_BYTES) * READER_CHUNK_BYTES,
    );
    return {
      head,
      tail: tailBegin < this.length ? { begin: tailBegin, data: await this.read(tailBegin, this.length) } : null,
    };
  }

  /** The library names a document by the MD5 of its bytes: hashed as a stream, never held whole. */
  async md5(): Promise<string> {
    const hash = createHash('md5');
    if (this.whole) return hash.update(this.whole).digest('hex');
    for await (const chunk of createReadStream(this.path!, { highWaterMark: 1024 * 1024 }))
      hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  dispose(): void {
    void this.handle?.close().catch(() => undefined);
  }
}
