import { startBridge } from './bridgeFixture';

/** One AnkiConnect call on the real port: the HTTP status and AnkiConnect's `{ result, error }` body. */
export async function post(port: number, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { result: any; error: string | null } };
}

/** A bridge with AnkiConnect on port 0 and an agent's write key; `call` answers AnkiConnect's `{ result, error }`. */
export async function ankiConnectBridge() {
  const t = await startBridge({ ankiConnect: { port: 0 } });
  const port = t.bridge.ankiConnectPort!;
  const key = (await t.bridge.services.tokens.issue('anki-mcp', 'write')).token;
  const call = async (action: string, params: Record<string, unknown> = {}) =>
    (await post(port, { action, version: 6, key, params })).json;
  return { t, port, call };
}
