import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type ElicitAction = 'accept' | 'decline' | 'cancel';

type Send = (message: JSONRPCMessage, options: { relatedRequestId: string | number }) => Promise<void>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Asking the person through the MCP client (`elicitation/create`) when an
 * agent's study_call was held for approval. The bridge's MCP server is
 * stateless (one exchange per POST /mcp), so what a session would remember
 * lives here, per bridge and per token: whether that token's client declared
 * the elicitation capability at initialize, and the questions waiting for an
 * answer. The question goes out on the tool call's own response stream; the
 * client's answer arrives as a POST of its own, which `answer` takes before
 * the SDK sees it. Question ids are random, and only the token that was asked
 * can answer.
 */
export class ElicitationBroker {
  private readonly declared = new Map<string, boolean>();
  private readonly waiting = new Map<string, { key: string; resolve: (action: ElicitAction | undefined) => void }>();

  /** An initialize message: remembers whether this token's client can be asked. */
  noteInitialize(key: string, message: unknown): void {
    if (!isObject(message) || message.method !== 'initialize' || !isObject(message.params)) return;
    const caps = message.params.capabilities;
    this.declared.set(key, isObject(caps) && isObject(caps.elicitation));
  }

  declaredBy(key: string): boolean {
    return this.declared.get(key) === true;
  }

  /** A JSON-RPC response to one of our questions: resolves it (true: consumed, answer the POST with 202). */
  answer(key: string, message: unknown): boolean {
    if (!isObject(message) || typeof message.id !== 'string' || 'method' in message) return false;
    const q = this.waiting.get(message.id);
    if (!q || q.key !== key) return false;
    this.waiting.delete(message.id);
    const result = message.result;
    const action =
      isObject(result) && (result.action === 'accept' || result.action === 'decline' || result.action === 'cancel')
        ? result.action
        : undefined;
    q.resolve(action);
    return true;
  }

  /** Asks, and waits for the answer: undefined when none came (timeout, the call went away) or it was not one. */
  ask(
    key: string,
    send: Send,
    relatedRequestId: string | number,
    message: string,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ElicitAction | undefined> {
    const id = `sb-approval-${randomBytes(8).toString('hex')}`;
    return new Promise<ElicitAction | undefined>((resolve) => {
      const done = (action: ElicitAction | undefined) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', gone);
        this.waiting.delete(id);
        resolve(action);
      };
      const gone = () => done(undefined);
      const timer = setTimeout(gone, timeoutMs);
      timer.unref();
      signal.addEventListener('abort', gone, { once: true });
      this.waiting.set(id, { key, resolve: done });
      const request = {
        jsonrpc: '2.0' as const,
        id,
        method: 'elicitation/create',
        params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
      };
      send(request as JSONRPCMessage, { relatedRequestId }).catch(gone);
    });
  }
}

const brokers = new WeakMap<object, ElicitationBroker>();

/** The broker of one bridge (keyed by its services object). */
export function brokerFor(services: object): ElicitationBroker {
  let b = brokers.get(services);
  if (!b) brokers.set(services, (b = new ElicitationBroker()));
  return b;
}
