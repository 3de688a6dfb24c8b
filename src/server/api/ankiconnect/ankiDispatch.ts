import { BridgeError } from '../../errors';
import type { Entitlements } from '../../entitlements';
import { covers } from '../../domain/security/scopes';
import type { Caller, TokenRegistry } from '../../domain/security/tokens';
import { AnkiError } from './ankiError';
import { ACTIONS, type ActionContext } from './ankiActions';
import { checkListLengths, MAX_LIST_ITEMS } from './ankiLimits';

/**
 * One AnkiConnect request: `{action, version, params, key}` → `{result, error}`.
 * The key must be a bridge token; an action beyond its scope is refused. An
 * action's own refusal is AnkiConnect's shape with HTTP 200; security
 * refusals (no key, scope, premium) carry a 4xx status as well.
 */

export interface DispatchDeps extends Omit<ActionContext, 'caller'> {
  tokens: Pick<TokenRegistry, 'identify'>;
  entitlements: Entitlements;
  /** requestPermission's answer for the request's Origin. */
  permission(origin: string | undefined): Promise<boolean>;
  /** The write queue (writeQueue()). */
  serially<T>(fn: () => Promise<T>): Promise<T>;
  /** Unexpected errors, for the log. */
  onError(e: unknown): void;
}

export interface AnkiReply {
  status: number;
  body: unknown;
}

const KEY_MESSAGE =
  'valid api key must be provided: send a Study Bridge token as "key" (Connected Agents in VS Code, or study-bridge install-code)';

/** Refusals that are not the action's but the caller's: answered with their 4xx status. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Runs writes one at a time: two addNote calls into a new deck make one deck, not two. */
export function writeQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = last.then(fn, fn);
    last = run.catch(() => undefined);
    return run;
  };
}

async function runAction(deps: DispatchDeps, caller: Caller, name: unknown, params: unknown): Promise<unknown> {
  const decl = typeof name === 'string' && Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (!decl) throw new AnkiError('unsupported action');
  if (!covers(caller.scope, decl.scope))
    throw new Refusal(403, `${String(name)} needs a write token; this key's token (${caller.name}) may only read`);
  if (decl.scope === 'write' && !deps.entitlements.premium())
    throw new Refusal(403, `${String(name)} needs the premium entitlement, which is off`);
  const ctx: ActionContext = { ...deps, caller };
  const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  checkListLengths(name as string, p);
  return decl.scope === 'write' ? deps.serially(async () => decl.run(p, ctx)) : decl.run(p, ctx);
}

/** An error as AnkiConnect states it: our refusals by their message, anything unexpected as an internal error (logged). */
function errorText(deps: DispatchDeps, e: unknown): string {
  if (e instanceof AnkiError) return e.message;
  if (e instanceof BridgeError) return `${e.code}: ${e.message}`;
  deps.onError(e);
  return 'internal error in the bridge: the action may not have taken effect; check with findNotes or notesInfo';
}

const shaped = (version: number, result: unknown): unknown => (version >= 5 ? { result, error: null } : result);

async function multi(deps: DispatchDeps, caller: Caller, params: unknown, version: number): Promise<unknown[]> {
  const actions = (params as { actions?: unknown })?.actions;
  if (!Array.isArray(actions)) throw new AnkiError('multi needs params.actions, a list');
  if (actions.length > MAX_LIST_ITEMS)
    throw new AnkiError(`multi: actions has ${actions.length} items; one call takes at most ${MAX_LIST_ITEMS}`);
  const out: unknown[] = [];
  for (const a of actions as Array<{ action?: unknown; params?: unknown; version?: unknown }>) {
    const v = typeof a?.version === 'number' ? a.version : version;
    try {
      if (a?.action === 'multi' || a?.action === 'requestPermission')
        throw new AnkiError(`${String(a.action)} cannot run inside multi`);
      out.push(shaped(v, await runAction(deps, caller, a?.action, a?.params)));
    } catch (e) {
      out.push({ result: null, error: e instanceof Refusal ? e.message : errorText(deps, e) });
    }
  }
  return out;
}

/** Answers one parsed request body from a caller whose Origin (if any) passed the server's checks. */
export async function dispatch(deps: DispatchDeps, body: unknown, origin: string | undefined): Promise<AnkiReply> {
  const req = (body && typeof body === 'object' ? body : {}) as {
    action?: unknown;
    version?: unknown;
    params?: unknown;
    key?: unknown;
  };
  const version = typeof req.version === 'number' ? req.version : 4;
  try {
    if (req.action === 'requestPermission') {
      const granted = await deps.permission(origin);
      return {
        status: 200,
        body: shaped(
          version,
          granted ? { permission: 'granted', requireApikey: true, version: 6 } : { permission: 'denied' },
        ),
      };
    }
    const caller = deps.tokens.identify(typeof req.key === 'string' ? req.key : undefined);
    if (!caller) return { status: 401, body: { result: null, error: KEY_MESSAGE } };
    if (req.action === 'multi')
      return { status: 200, body: shaped(version, await multi(deps, caller, req.params, version)) };
    return { status: 200, body: shaped(version, await runAction(deps, caller, req.action, req.params)) };
  } catch (e) {
    if (e instanceof Refusal) return { status: e.status, body: { result: null, error: e.message } };
    return { status: 200, body: { result: null, error: errorText(deps, e) } };
  }
}
