import { Module } from 'node:module';
import type * as Binding from '@open-spaced-repetition/binding' with { 'resolution-mode': 'import' };

/** fsrs-rs for Node (napi-rs): the optimizer. Loaded only on the optimizer's thread. Its typings are ESM-only; it ships CommonJS too. */
export type FsrsBinding = typeof Binding;

export const FSRS_BINDING_MODULE = '@open-spaced-repetition/binding';

/**
 * `STUDY_BRIDGE_NO_FSRS_OPTIMIZER=1` makes the binding unloadable (as where
 * no build of it exists for the platform), to test that the optimizer then
 * answers 503 FSRS_OPTIMIZER_UNAVAILABLE; the require itself fails, through
 * the same catch as a real failure. Worker threads inherit it.
 */
export const NO_FSRS_OPTIMIZER_ENV = 'STUDY_BRIDGE_NO_FSRS_OPTIMIZER';

function honourNoOptimizer(): void {
  if (process.env[NO_FSRS_OPTIMIZER_ENV] !== '1') return;
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    if (request === FSRS_BINDING_MODULE || request.startsWith('@open-spaced-repetition/binding-')) {
      const e = new Error(`Cannot find module '${request}' (${NO_FSRS_OPTIMIZER_ENV}=1)`);
      throw Object.assign(e, { code: 'MODULE_NOT_FOUND' });
    }
    return resolve.call(this, request, ...rest);
  };
}

/** The binding, or the first line of why it did not load (no build for this platform, a missing library). */
export function loadBinding(): { binding: FsrsBinding } | { loadError: string } {
  honourNoOptimizer();
  try {
    // require, not import(): the worker bundle is CommonJS and the module an esbuild external.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { binding: require(FSRS_BINDING_MODULE) as FsrsBinding };
  } catch (e) {
    return { loadError: String((e as Error)?.message ?? e).split('\n')[0] };
  }
}
