import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryUiHost, type AnkiGuiAnswer, type AnkiGuiRequest } from '../../src/server/domain/ui/uiHost';
import type { HostedBridge } from '../../src/server/worker/hostedBridge';
import { startWorkerBridge } from '../../src/server/worker/workerBridge';
import { tempDir } from '../helpers/bridgeFixture';

/** AnkiConnect as VS Code hosts it (#19 §2): the bridge in a worker thread, requestPermission asking the window. */

/** The window: the person allows one origin and declines every other. */
class AskingUi extends MemoryUiHost {
  readonly asked: string[] = [];
  async askAnkiConnectPermission(origin: string): Promise<boolean> {
    this.asked.push(origin);
    return origin === 'chrome-extension://allowed-by-the-person';
  }
  readonly gui: string[] = [];
  async ankiGui(req: AnkiGuiRequest): Promise<AnkiGuiAnswer> {
    this.gui.push(req.kind);
    return req.kind === 'currentCard' ? { shown: null } : {};
  }
}

async function invoke(port: number, body: unknown, origin?: string) {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: origin ? { Origin: origin } : {},
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { result: any; error: string | null } };
}

describe('AnkiConnect in the worker-thread bridge (VS Code): requestPermission asks the window', function () {
  this.timeout(60_000);
  let dataDir: string;
  let bridge: HostedBridge;
  const ui = new AskingUi();

  before(async () => {
    dataDir = tempDir('sb-anki-worker-');
    bridge = await startWorkerBridge({
      dataDir,
      port: 0,
      ui,
      ankiConnect: { port: 0, allowedOrigins: ['chrome-extension://listed'] },
    });
  });
  after(async () => {
    await bridge?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an unlisted origin: the window is asked; granted → that origin is served for this run, declined → still 403', async () => {
    const port = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')).ankiConnectPort as number;
    assert.equal(typeof port, 'number');
    const listed = await invoke(port, { action: 'requestPermission', version: 6 }, 'chrome-extension://listed');
    assert.deepEqual(listed.json.result, { permission: 'granted', requireApikey: true, version: 6 });
    assert.deepEqual(ui.asked, [], 'a listed origin is not asked about');

    const other = 'chrome-extension://allowed-by-the-person';
    assert.equal(
      (await invoke(port, { action: 'version', version: 6, key: bridge.token }, other)).status,
      403,
      'not yet',
    );
    const granted = await invoke(port, { action: 'requestPermission', version: 6 }, other);
    assert.deepEqual(granted.json.result, { permission: 'granted', requireApikey: true, version: 6 });
    const served = await invoke(port, { action: 'version', version: 6, key: bridge.token }, other);
    assert.deepEqual([served.status, served.json], [200, { result: 6, error: null }]);

    const page = 'https://some.page.example';
    const denied = await invoke(port, { action: 'requestPermission', version: 6 }, page);
    assert.deepEqual(denied.json, { result: { permission: 'denied' }, error: null });
    assert.equal((await invoke(port, { action: 'version', version: 6, key: bridge.token }, page)).status, 403);
    assert.deepEqual(ui.asked, [other, page]);
  });

  it('guiCurrentCard and guiAddCards reach the window across the thread (not the headless "not available")', async () => {
    const port = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')).ankiConnectPort as number;
    const current = await invoke(port, { action: 'guiCurrentCard', version: 6, key: bridge.token });
    assert.deepEqual(current.json, { result: null, error: null });
    const add = await invoke(port, { action: 'guiAddCards', version: 6, key: bridge.token });
    assert.deepEqual(add.json, { result: 0, error: null });
    assert.deepEqual(ui.gui, ['currentCard', 'addCards']);
  });
});
