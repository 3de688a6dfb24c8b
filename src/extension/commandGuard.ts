// How every command of the window fails: logged, shown to the person, answered with undefined.
import * as vscode from 'vscode';
import { errorText } from './bridgeHost';

/** What commandGuard returns: `guarded(name, fn)`. */
export type CommandGuard = ReturnType<typeof commandGuard>;

/** Wraps a command: a failure is logged and shown, and the command answers undefined. */
export function commandGuard(log: vscode.LogOutputChannel) {
  return <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = errorText(err);
        log.error(`${name}: ${message}`);
        void vscode.window.showErrorMessage(`Study Bridge: ${message}`);
        return undefined;
      }
    };
}

/** A command's failure the person can act on: shown as it is, without a stack. */
export class UserFacingError extends Error {}
