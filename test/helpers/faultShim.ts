import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type FaultOp = 'write' | 'fsync' | 'ftruncate' | 'rename';
/** SLOW_EIO: EIO after 300 ms, which holds the write in flight meanwhile. */
export type FaultKind = 'ENOSPC' | 'EIO' | 'DROP' | 'SLOW_EIO';

export interface FaultCall {
  op: FaultOp;
  path: string;
  injected: string;
}

/**
 * The LD_PRELOAD fault shim (faultShim.c), built with `cc` into `dir`. A child
 * bridge started with `env` has its file I/O under `scope` logged, and the
 * faults armed here injected, while it runs.
 */
export class FaultShim {
  private generation = 0;
  readonly ctl: string;
  readonly log: string;

  private constructor(
    readonly lib: string,
    readonly dir: string,
  ) {
    this.ctl = join(dir, 'fault.ctl');
    this.log = join(dir, 'fault.log');
    writeFileSync(this.ctl, '');
    writeFileSync(this.log, '');
  }

  /** Compiles the shim; undefined where there is no C compiler (the caller skips). */
  static build(dir: string): FaultShim | undefined {
    const lib = join(dir, 'faultShim.so');
    try {
      execFileSync('cc', ['-shared', '-fPIC', '-O1', '-o', lib, join(__dirname, 'faultShim.c'), '-ldl', '-lpthread'], {
        stdio: 'pipe',
      });
    } catch {
      return undefined;
    }
    return existsSync(lib) ? new FaultShim(lib, dir) : undefined;
  }

  /**
   * Environment for the child. io_uring is turned off so libuv's file I/O goes
   * through the libc calls the shim wraps.
   */
  env(scope: string): NodeJS.ProcessEnv {
    return { LD_PRELOAD: this.lib, FAULT_SCOPE: scope, FAULT_CTL: this.ctl, FAULT_LOG: this.log, UV_USE_IO_URING: '0' };
  }

  /** Fails (or, for fsync, drops) the `nth` call of `op` on paths containing `pattern`, `count` times (0: until cleared). */
  arm(op: FaultOp, nth: number, kind: FaultKind, pattern: string, count = 1): void {
    writeFileSync(this.ctl, `${++this.generation} ${op} ${nth} ${kind} ${count} ${pattern}\n`);
  }

  clear(): void {
    writeFileSync(this.ctl, '');
  }

  /** Calls logged since the last `resetLog`. */
  calls(): FaultCall[] {
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const parts = l.split(' ');
        return { op: parts[0] as FaultOp, path: parts.slice(1, -1).join(' '), injected: parts[parts.length - 1] };
      });
  }

  resetLog(): void {
    writeFileSync(this.log, '');
  }
}
