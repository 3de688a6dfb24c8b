import type { Store } from '../../ground/store/store';
import type { UiHost } from './uiHost';
import type { UiKeyOutcome } from './uiHost';
import { bookLocation, judgeKey } from './uiStateKeys';

/** Delay between the answer (queued:true) and the patch taking effect; the contract says "about 1.5 s", reads back after 2 s. */
export const UI_APPLY_DELAY_MS = 300;

interface Services {
  store: Store;
  ui: UiHost;
  /** Aborted when the bridge closes: pending writes are dropped. */
  closing: AbortSignal;
}

/**
 * The UI bookmark (GET /ui-state, POST /ui-state/apply). The store's ui_state
 * table holds it (one row per key, JSON values); a UI host may map keys onto
 * real UI state and report live values.
 */
export class UiStateService {
  private chain: Promise<void> = Promise.resolve();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly services: Services) {
    services.closing.addEventListener('abort', () => {
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
    });
  }

  stored(): Record<string, unknown> {
    const state: Record<string, unknown> = {};
    for (const r of this.services.store.all<{ key: string; value: string }>(
      'SELECT key, value FROM ui_state ORDER BY key',
    ))
      state[r.key] = JSON.parse(r.value);
    return state;
  }

  /** The whole bookmark: stored keys, the open set, and the UI's live values. */
  async read() {
    const state = this.stored();
    const open = (await this.services.ui.context()).studySet;
    if (open) state.topicid = open.topicid;
    Object.assign(state, (await this.services.ui.liveUiState?.()) ?? {});
    return { state };
  }

  /**
   * Judges every key now and applies the kept ones a moment later (queued).
   * topicid missing from the patch is filled with the open set; with none
   * open it is rejected.
   */
  async apply(patch: Record<string, unknown>) {
    const { store, ui } = this.services;
    const stored = this.stored();
    const keys: Record<string, Omit<UiKeyOutcome, 'keep'>> = {};
    const keep: Record<string, unknown> = {};
    const open = (await ui.context()).studySet ?? null;
    let topic: { topicid: string; title: string; isDeck: boolean } | undefined;

    if ('topicid' in patch) {
      const t =
        typeof patch.topicid === 'string'
          ? store.get<{ topicid: string; title: string; kind: string }>(
              'SELECT topicid, title, kind FROM topics WHERE topicid = ? AND hidden = 0',
              [patch.topicid.toUpperCase()],
            )
          : undefined;
      if (t) {
        topic = { topicid: t.topicid, title: t.title, isDeck: t.kind === 'deck' };
        keys.topicid = { status: 'accepted' };
        keep.topicid = t.topicid;
      } else
        keys.topicid = {
          status: 'rejected',
          reason:
            typeof patch.topicid === 'string'
              ? `No study set or deck ${patch.topicid}.`
              : 'topicid must be a study-set id.',
        };
    } else if (open) {
      topic = open;
      keys.topicid = { status: 'accepted', reason: 'filled with the open study set' };
      keep.topicid = open.topicid;
    } else
      keys.topicid = { status: 'rejected', reason: 'No study set is open and the patch names none; send topicid.' };

    for (const [key, value] of Object.entries(patch)) {
      if (key === 'topicid') continue;
      let outcome = judgeKey(key, value, { store, patch, stored });
      if (outcome.status === 'accepted') outcome = (await ui.judgeUiKey?.(key, value)) ?? outcome;
      if (outcome.status === 'accepted' || (outcome.status === 'conditional' && outcome.keep)) keep[key] = value;
      keys[key] = outcome.reason ? { status: outcome.status, reason: outcome.reason } : { status: outcome.status };
    }
    if (keys.topicid.status === 'accepted') {
      const hostJudgement = await ui.judgeUiKey?.('topicid', keep.topicid);
      if (hostJudgement && hostJudgement.status !== 'accepted')
        keys.topicid = {
          status: hostJudgement.status,
          ...(hostJudgement.reason ? { reason: hostJudgement.reason } : {}),
        };
    }
    this.enqueue(keep, topic);
    return {
      queued: true,
      keys,
      topicid: topic?.topicid ?? null,
      appliesAfterMs: UI_APPLY_DELAY_MS,
      reconcileAfterSeconds: 2,
    };
  }

  /** Resolves when every queued patch has been applied (tests). */
  async settled(): Promise<void> {
    while (this.timers.size) await new Promise((r) => setTimeout(r, 50));
    await this.chain;
  }

  private enqueue(
    keep: Record<string, unknown>,
    topic: { topicid: string; title: string; isDeck: boolean } | undefined,
  ): void {
    if (!Object.keys(keep).length) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.chain = this.chain.then(() => this.applyNow(keep, topic)).catch(() => undefined);
    }, UI_APPLY_DELAY_MS);
    this.timers.add(timer);
  }

  private async applyNow(
    keep: Record<string, unknown>,
    topic: { topicid: string; title: string; isDeck: boolean } | undefined,
  ): Promise<void> {
    if (this.services.closing.aborted) return;
    await this.services.store.write((tx) => {
      for (const [key, value] of Object.entries(keep)) {
        const json = JSON.stringify(value);
        // An unchanged value is not rewritten: re-applying a bookmark writes nothing.
        if (tx.get<{ value: string }>('SELECT value FROM ui_state WHERE key = ?', [key])?.value === json) continue;
        tx.run('INSERT OR REPLACE INTO ui_state(key, value) VALUES (?, ?)', [key, json]);
      }
    });
    const loc = 'booklocation' in keep ? bookLocation(keep.booklocation) : undefined;
    const open = (await this.services.ui.context()).studySet;
    // The set (and document) are opened only when they differ from what is open: applying a bookmark twice changes nothing.
    if (topic && (open?.topicid !== topic.topicid || loc))
      await this.services.ui.open({ ...topic, ...(loc ? { bookmd5: loc.bookmd5, page: loc.page ?? 1 } : {}) });
    else if (loc) await this.services.ui.open({ bookmd5: loc.bookmd5, page: loc.page ?? 1 });
    await this.services.ui.applyUiState?.(keep);
  }
}
