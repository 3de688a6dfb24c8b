import type { AnkiGuiAnswer, AnkiGuiRequest, OpenRequest, UiContext, UiHost, UiKeyOutcome } from '../domain/ui/uiHost';
import { fromWire, type FromWorker, type OptionalUiMethod, type UiMethod, type WireError } from './protocol';

/** A UI call the window has not answered after this long is given up (GET /context then says app_not_responding). */
export const UI_CALL_TIMEOUT_MS = 10_000;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The window's UiHost as the bridge worker sees it: each call is a message
 * to the main thread, answered by id. Only the optional methods the window
 * implements exist here, so the bridge behaves as it does in-process.
 */
export class RemoteUiHost implements UiHost {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  judgeUiKey?: (key: string, value: unknown) => Promise<UiKeyOutcome | undefined>;
  applyUiState?: (patch: Record<string, unknown>) => Promise<void>;
  liveUiState?: () => Promise<Record<string, unknown>>;
  askAnkiConnectPermission?: (origin: string) => Promise<boolean>;
  ankiGui?: (req: AnkiGuiRequest) => Promise<AnkiGuiAnswer>;

  constructor(
    private readonly post: (msg: FromWorker) => void,
    methods: readonly OptionalUiMethod[],
  ) {
    if (methods.includes('judgeUiKey'))
      this.judgeUiKey = (key, value) => this.call('judgeUiKey', [key, value]) as Promise<UiKeyOutcome | undefined>;
    if (methods.includes('applyUiState'))
      this.applyUiState = (patch) => this.call('applyUiState', [patch]) as Promise<void>;
    // The person may take a while to answer: the call's timeout then denies, as AnkiConnect's own prompt would not.
    if (methods.includes('askAnkiConnectPermission'))
      this.askAnkiConnectPermission = (origin) => this.call('askAnkiConnectPermission', [origin]) as Promise<boolean>;
    if (methods.includes('ankiGui')) this.ankiGui = (req) => this.call('ankiGui', [req]) as Promise<AnkiGuiAnswer>;
    if (methods.includes('liveUiState'))
      this.liveUiState = () => this.call('liveUiState', []) as Promise<Record<string, unknown>>;
  }

  async context(): Promise<UiContext> {
    try {
      return (await this.call('context', [])) as UiContext;
    } catch {
      return { available: false, reason: 'app_not_responding', capturedAt: new Date().toISOString() };
    }
  }

  async open(req: OpenRequest): Promise<void> {
    await this.call('open', [req]);
  }

  /** The main thread's answer to call `id`. */
  settle(id: number, result: { ok: true; value: unknown } | { ok: false; error: WireError }): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (result.ok) p.resolve(result.value);
    else p.reject(fromWire(result.error));
  }

  /** Fails every call still waiting (the bridge is closing). */
  abandon(reason: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
      this.pending.delete(id);
    }
  }

  private call(method: UiMethod, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the window did not answer ${method} within ${UI_CALL_TIMEOUT_MS} ms`));
      }, UI_CALL_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.post({ type: 'ui', id, method, args });
    });
  }
}
