import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BridgeError, busy } from '../../errors';
import { replaceDurablyAsync } from '../../ground/store/durableFiles';
import type { HeldRequest } from './approvalTypes';

/**
 * Pending calls one agent token may have at once: enough for a batch of
 * deletes the person reviews together, few enough that a looping agent
 * cannot bury them (or the disk) in requests.
 */
export const MAX_PENDING_PER_AGENT = 50;

/**
 * Bytes of one held call as stored (params, query and body as JSON). The
 * largest body a held route takes in practice is a bundle's replacement
 * tree (a few hundred KB for 60 pages); 4 MiB leaves room for that while 50
 * pending calls of one agent stay within 200 MiB of disk and none in memory.
 */
export const MAX_HELD_BYTES = 4 * 1024 * 1024;

/** What request_json holds for a call whose request is in a file of its own (older rows hold the request itself). */
export const ON_DISK = '{"onDisk":true}';

export const tooManyPending = (count: number, retryAfterSeconds: number) =>
  busy(
    'TOO_MANY_PENDING',
    `This agent already has ${count} calls waiting for the person's approval (at most ${MAX_PENDING_PER_AGENT} per agent token). Nothing was stored or changed: wait until the person decides some (GET /approvals lists yours) or they expire, then send the call again.`,
    retryAfterSeconds,
    { pending: count, maxPending: MAX_PENDING_PER_AGENT },
  );

export const heldTooLarge = (bytes: number) =>
  new BridgeError(
    'APPROVAL_BODY_TOO_LARGE',
    413,
    `This call must wait for the person's approval, and a held call carries at most ${MAX_HELD_BYTES} bytes (${MAX_HELD_BYTES / 1024 / 1024} MiB) of request; this one has ${bytes}. Nothing was stored or changed: send it in smaller parts.`,
    { bytes, limitBytes: MAX_HELD_BYTES },
  );

/**
 * The held calls' requests, one file each (<dataDir>/approvals/<id>.json):
 * the store, which the bridge holds in memory whole, keeps only the marker,
 * so pending calls cost disk, not memory. A file is written durably before
 * its row, and removed once the call is decided or expired.
 */
export class HeldRequests {
  constructor(private readonly dir: string) {}

  private file(approvalId: string): string {
    return join(this.dir, `${approvalId}.json`);
  }

  /** The request's JSON, refused over MAX_HELD_BYTES before anything is written. */
  static serialize(request: HeldRequest): Buffer {
    const bytes = Buffer.from(JSON.stringify(request), 'utf8');
    if (bytes.length > MAX_HELD_BYTES) throw heldTooLarge(bytes.length);
    return bytes;
  }

  async save(approvalId: string, bytes: Buffer): Promise<void> {
    await replaceDurablyAsync(this.file(approvalId), bytes);
  }

  /** The request of a row: its file, or the row's own JSON (rows stored before requests moved to files). */
  async load(approvalId: string, requestJson: string): Promise<HeldRequest> {
    if (requestJson !== ON_DISK) return JSON.parse(requestJson) as HeldRequest;
    return JSON.parse(await readFile(this.file(approvalId), 'utf8')) as HeldRequest;
  }

  async remove(approvalId: string): Promise<void> {
    await rm(this.file(approvalId), { force: true });
  }

  /** At start: files of calls that are no longer pending (a stop between the decision and the removal) go. */
  async sweep(pending: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return; // no held call was ever stored
    }
    for (const name of names) {
      const id = /^(apr_[0-9a-f]{16})\.json$/.exec(name)?.[1];
      if (!pending.has(id ?? '')) await rm(join(this.dir, name), { force: true });
    }
  }
}
