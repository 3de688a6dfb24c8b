import { existsSync } from 'node:fs';

/**
 * What opening the store found and did about it. Torn tails and replays are
 * routine after a crash; damage (lost records, a kept file, a stale redo) is
 * not, and is reported at start (stderr, /status, a VS Code warning).
 */
export interface RecoveryReport {
  replayedRecords: number;
  discardedTornBytes: number;
  /** Acknowledged writes lost: inside damaged parts of the journal, or whose statements no longer applied. */
  lostRecords: number;
  /** Of lostRecords, those that were intact but failed against the database (they depended on a lost one). */
  failedRecords: number;
  /** Bytes of the journal that did not check out, torn tail excluded. */
  damagedBytes: number;
  /** Where the damaged journal was kept, as it was found. */
  keptAs?: string;
  /** Where a redo file that did not match library.db was set aside (never applied). */
  staleRedoKeptAs?: string;
  /** Why the journal could not be rewritten (it is read the same way next time, so nothing more is lost). */
  rewriteError?: string;
}

/** True when the report holds something the user should hear about. */
export const recoveryFoundDamage = (r: RecoveryReport): boolean =>
  r.lostRecords > 0 || r.keptAs !== undefined || r.staleRedoKeptAs !== undefined || r.rewriteError !== undefined;

/** One line for stderr, or undefined when there is nothing to say. */
export function recoveryLine(r: RecoveryReport): string | undefined {
  if (!recoveryFoundDamage(r)) return undefined;
  const parts: string[] = [];
  if (r.lostRecords > 0 || r.keptAs !== undefined) {
    const kept =
      r.keptAs === undefined ? 'the damaged file could not be kept' : `the damaged file is kept as ${r.keptAs}`;
    parts.push(
      `the journal was damaged: ${r.lostRecords} acknowledged write(s) lost (${r.damagedBytes} bytes unreadable, ${r.failedRecords} no longer applicable); ${kept}`,
    );
  }
  if (r.staleRedoKeptAs !== undefined)
    parts.push(`a redo file that does not match library.db was set aside, not applied: ${r.staleRedoKeptAs}`);
  if (r.rewriteError) parts.push(`the journal could not be rewritten (${r.rewriteError})`);
  return `study-bridge: recovery: ${parts.join('; ')}`;
}

/** A name next to `path` that does not exist yet: `<path>.<what>-<UTC time>`. */
export function asideName(path: string, what: string): string {
  const base = `${path}.${what}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  let name = base;
  for (let i = 2; existsSync(name); i++) name = `${base}-${i}`;
  return name;
}
