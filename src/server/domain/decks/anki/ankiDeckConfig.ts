import { DEFAULT_OPTIONS, FSRS_PARAMETER_COUNTS, STEP_PATTERN, type DeckOptions, type Step } from '../deckOptions';

/**
 * A deck's options as an Anki package carries them: its options group in the
 * col row's `dconf` JSON (schema 11; the deck's `conf` names it), and the
 * collection's "next day starts at" (`rollover` in the col row's `conf`).
 * Read into the bridge's options (a value out of range, or of the wrong
 * kind, is left out: the preset keeps its own), and written back on export.
 */

export interface AnkiDeckConfig {
  /** The options group's name in Anki. */
  name: string;
  options: Partial<DeckOptions>;
}

/** Anki's legacy dconf entry: the keys the bridge reads and writes (schema11.rs's names). */
interface Dconf {
  name?: unknown;
  new?: { perDay?: unknown; delays?: unknown; bury?: unknown };
  rev?: { perDay?: unknown; maxIvl?: unknown; bury?: unknown };
  lapse?: { delays?: unknown; leechFails?: unknown; leechAction?: unknown };
  buryInterdayLearning?: unknown;
  desiredRetention?: unknown;
  fsrsParams6?: unknown;
  fsrsParams5?: unknown;
  fsrsWeights?: unknown;
}

/** Anki's leech actions: 0 suspends the card, 1 only tags it. */
const LEECH_SUSPEND = 0;
const LEECH_TAG = 1;

const intIn = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);

/** Anki's steps are minutes; the bridge's, ts-fsrs's notation ("1m", "1h", "2d"). */
function stepsOf(v: unknown): Step[] | undefined {
  if (!Array.isArray(v) || v.length > 20) return undefined;
  const steps: Step[] = [];
  for (const m of v) {
    if (typeof m !== 'number' || !(m > 0) || m > 525_600) return undefined;
    const s = m % 1440 === 0 ? `${m / 1440}d` : m % 60 === 0 ? `${m / 60}h` : `${Math.round(m * 1000) / 1000}m`;
    if (!STEP_PATTERN.test(s)) return undefined;
    steps.push(s as Step);
  }
  return steps;
}

const STEP_MINUTES = { m: 1, h: 60, d: 1440 } as const;
const minutesOf = (steps: readonly string[]) =>
  steps.map((s) => {
    const [, n, , unit] = STEP_PATTERN.exec(s) ?? [];
    return Number(n) * STEP_MINUTES[unit as keyof typeof STEP_MINUTES];
  });

function weightsOf(c: Dconf): number[] | undefined {
  for (const w of [c.fsrsParams6, c.fsrsParams5, c.fsrsWeights])
    if (
      Array.isArray(w) &&
      FSRS_PARAMETER_COUNTS.includes(w.length) &&
      w.every((x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= 100)
    )
      return w as number[];
  return undefined;
}

/** The options an Anki options group sets; `rollover` is the collection's day start hour. */
export function optionsFromDconf(c: Dconf, rollover?: unknown): Partial<DeckOptions> {
  const retention = c.desiredRetention;
  const leech = c.lapse?.leechAction;
  const read: Partial<Record<keyof DeckOptions, unknown>> = {
    newPerDay: intIn(c.new?.perDay, 0, 9999),
    reviewsPerDay: intIn(c.rev?.perDay, 0, 99999),
    learningSteps: stepsOf(c.new?.delays),
    relearningSteps: stepsOf(c.lapse?.delays),
    maximumInterval: intIn(c.rev?.maxIvl, 1, 36500),
    buryNewSiblings: bool(c.new?.bury),
    buryReviewSiblings: bool(c.rev?.bury),
    buryInterdayLearningSiblings: bool(c.buryInterdayLearning),
    leechThreshold: intIn(c.lapse?.leechFails, 1, 99),
    leechAction: leech === LEECH_SUSPEND ? 'suspend' : leech === LEECH_TAG ? 'tag' : undefined,
    // Anki keeps 0.9 when FSRS was never turned on; the bridge's range is 0.70..0.99.
    desiredRetention:
      typeof retention === 'number' && retention >= 0.7 && retention <= 0.99
        ? Math.round(retention * 1000) / 1000
        : undefined,
    fsrsParameters: weightsOf(c),
    dayStartHour: intIn(rollover, 0, 23),
  };
  return Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
}

/** The options group of the deck `deckId` in the col row's JSON, or undefined when the package has none for it. */
export function deckConfigOf(
  deckId: string,
  decks: Record<string, { conf?: unknown }>,
  dconf: Record<string, Dconf>,
  rollover: unknown,
): AnkiDeckConfig | undefined {
  const confId = decks[deckId]?.conf;
  const c = typeof confId === 'number' || typeof confId === 'string' ? dconf[String(confId)] : undefined;
  if (!c || typeof c !== 'object') return undefined;
  const name = typeof c.name === 'string' && c.name.trim() ? c.name.trim().slice(0, 180) : 'Default';
  return { name, options: optionsFromDconf(c, rollover) };
}

/** Anki's options group (dconf entry `id`) holding a deck's options, for an export. */
export function dconfEntry(id: number, name: string, o: DeckOptions = DEFAULT_OPTIONS, mod = 0) {
  return {
    id,
    name,
    mod,
    usn: -1,
    maxTaken: 60,
    autoplay: true,
    timer: 0,
    replayq: true,
    dyn: false,
    new: {
      bury: o.buryNewSiblings,
      delays: minutesOf(o.learningSteps),
      initialFactor: 2500,
      ints: [1, 4, 0],
      order: 1,
      perDay: o.newPerDay,
    },
    rev: {
      bury: o.buryReviewSiblings,
      ease4: 1.3,
      ivlFct: 1,
      maxIvl: o.maximumInterval,
      perDay: o.reviewsPerDay,
      hardFactor: 1.2,
    },
    lapse: {
      delays: minutesOf(o.relearningSteps),
      leechAction: o.leechAction === 'suspend' ? LEECH_SUSPEND : LEECH_TAG,
      leechFails: o.leechThreshold,
      minInt: 1,
      mult: 0,
    },
    buryInterdayLearning: o.buryInterdayLearningSiblings,
    desiredRetention: o.desiredRetention,
    // Anki reads the weights by their count's key: 21 FSRS-6, 19 FSRS-5, 17 FSRS-4.5 (fsrsWeights).
    fsrsParams6: o.fsrsParameters?.length === 21 ? o.fsrsParameters : [],
    fsrsParams5: o.fsrsParameters?.length === 19 ? o.fsrsParameters : [],
    fsrsWeights: o.fsrsParameters?.length === 17 ? o.fsrsParameters : [],
  };
}
