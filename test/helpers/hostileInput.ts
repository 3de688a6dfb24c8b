import { randomFillSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import { PDFDocument, PDFName } from 'pdf-lib';

/** Resident memory of a process in bytes, from /proc (Linux). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; `peak` is the highest seen. */
export function sampleRss(pid: number, everyMs = 50): { peak(): number; stop(): number } {
  let peak = 0;
  const take = () => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      /* exited */
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/**
 * A ~1 MB PDF whose one page has a FlateDecode content stream of `inflated`
 * bytes of spaces: deflated from one reused buffer of spaces, so the test
 * never holds the inflated size.
 */
export async function flateBombPdf(inflated = 1024 * 1024 * 1024): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => deflate.on('end', r));
  const spaces = Buffer.alloc(16 * 1024 * 1024, 0x20);
  for (let left = inflated; left > 0; left -= spaces.length) {
    const chunk = left >= spaces.length ? spaces : spaces.subarray(0, left);
    if (!deflate.write(chunk)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const raw = doc.context.stream(Buffer.concat(out), { Filter: 'FlateDecode' });
  page.node.set(PDFName.of('Contents'), doc.context.register(raw));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface StreamedAnswer {
  status: number;
  json: any;
}

/**
 * POSTs a body produced chunk by chunk (Transfer-Encoding: chunked, no
 * Content-Length), waiting for the socket to drain: the test never holds it.
 */
export function streamUpload(
  baseUrl: string,
  token: string,
  query: Record<string, string>,
  chunks: () => Generator<Buffer>,
  headers: Record<string, string> = {},
): Promise<StreamedAnswer> {
  const url = new URL(`${baseUrl}/library/documents/upload`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/pdf', ...headers },
      },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (c) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
        });
      },
    );
    // The server may answer (413) and stop reading before the body is all sent.
    req.on('error', (e) => !answered && reject(e));
    const it = chunks();
    const pump = () => {
      for (;;) {
        if (answered) return void req.end();
        const next = it.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

/** `%PDF-1.7` then `total` bytes of random junk, in fresh 1 MB chunks. */
export function* junkPdfBody(total: number): Generator<Buffer> {
  yield Buffer.from('%PDF-1.7\n');
  for (let sent = 0; sent < total; sent += 1024 * 1024)
    yield randomFillSync(Buffer.alloc(Math.min(1024 * 1024, total - sent)));
}

/** Files under `dir` (recursively, dot entries included) whose name matches. */
export function filesMatching(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesMatching(p, pattern));
    else if (pattern.test(e.name)) out.push(p);
  }
  return out;
}

/** A body in 256 KiB pieces, as a streamed upload sends it. */
export function* chunksOf(buf: Uint8Array, size = 256 * 1024): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield Buffer.from(buf.subarray(i, i + size));
}
