import type { Store } from '../../ground/store/store';
import type { UiKeyOutcome } from './uiHost';

/** Keys of the UI bookmark the bridge knows (docs/CONTRACT-CHOICES.md, "UI bookmark"); theme and panelratio are global preferences. */
export const UI_STATE_KEYS = [
  'immersive',
  'aichat',
  'review',
  'booklocation',
  'splitinfo',
  'theme',
  'panelratio',
  'research',
  'researchurl',
  'topicid',
  'doclayerid',
] as const;
const KNOWN = new Set<string>(UI_STATE_KEYS);

/** A value the application wrapped in {_jsonvalueType: …}: kept and returned unchanged, never interpreted. */
export const isWrapped = (v: unknown): boolean =>
  !!v && typeof v === 'object' && !Array.isArray(v) && '_jsonvalueType' in v;

export interface JudgeContext {
  store: Pick<Store, 'get'>;
  /** The patch being judged (a key may depend on another one in it). */
  patch: Record<string, unknown>;
  /** The bookmark as stored before the patch. */
  stored: Record<string, unknown>;
}

const accepted: UiKeyOutcome = { status: 'accepted' };
const rejected = (reason: string): UiKeyOutcome => ({ status: 'rejected', reason });

/**
 * The bridge's own judgement of one key (the UI host may downgrade an
 * accepted key afterwards). topicid is judged by the caller: it may be filled in.
 */
export function judgeKey(key: string, value: unknown, ctx: JudgeContext): UiKeyOutcome {
  if (key === 'play') return rejected('play starts playback; agents may not apply it.');
  if (!KNOWN.has(key)) return rejected(`Unknown UI-state key "${key}"; known keys: ${UI_STATE_KEYS.join(', ')}.`);
  if (isWrapped(value)) return accepted;
  switch (key) {
    case 'doclayerid':
      return value === 'new'
        ? rejected('doclayerid "new" would create a document layer; apply an existing layer id.')
        : accepted;
    case 'research':
    case 'immersive':
    case 'aichat':
      return typeof value === 'boolean' ? accepted : rejected(`${key} must be true or false.`);
    case 'researchurl': {
      if (typeof value !== 'string' || !/^https?:\/\/\S+$/i.test(value))
        return rejected('researchurl must be an http(s) URL.');
      const research = 'research' in ctx.patch ? ctx.patch.research : ctx.stored.research;
      return research === true
        ? accepted
        : { status: 'conditional', reason: 'researchurl needs research:true (in this patch or already set); skipped.' };
    }
    case 'panelratio':
      return typeof value === 'number' && value > 0 && value < 1
        ? accepted
        : rejected('panelratio must be a number between 0 and 1 (exclusive).');
    case 'booklocation': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return accepted;
      const loc = value as { bookmd5?: unknown; page?: unknown };
      if (loc.bookmd5 === undefined) return accepted;
      if (typeof loc.bookmd5 !== 'string' || !ctx.store.get('SELECT 1 FROM documents WHERE bookmd5 = ?', [loc.bookmd5]))
        return rejected(`booklocation.bookmd5 names no library document.`);
      if (loc.page !== undefined && !(Number.isInteger(loc.page) && (loc.page as number) >= 1))
        return rejected('booklocation.page must be an integer ≥ 1 (PDF order).');
      return accepted;
    }
    default:
      return accepted;
  }
}

/** A document location a booklocation value names, if it names one. */
export function bookLocation(value: unknown): { bookmd5: string; page?: number } | undefined {
  if (!value || typeof value !== 'object' || isWrapped(value)) return undefined;
  const loc = value as { bookmd5?: unknown; page?: unknown };
  return typeof loc.bookmd5 === 'string'
    ? { bookmd5: loc.bookmd5, page: typeof loc.page === 'number' ? loc.page : undefined }
    : undefined;
}
