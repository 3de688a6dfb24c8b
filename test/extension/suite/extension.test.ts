// Runs inside the real VS Code extension host (code-server), against the
// installed VSIX and the real bridge it hosts. No mocks.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { BridgeNode } from '../../../src/views/bridgeTreeProvider';
import { askRunner } from './signals';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};

function readBridgeJson(dataDir: string): { baseUrl: string; port: number; pid: number; instanceNonce: string } {
  return JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8'));
}

async function labels(nodes: BridgeNode[]): Promise<string[]> {
  return nodes.map((n) => {
    const label = n.treeItem().label;
    return typeof label === 'string' ? label : (label?.label ?? '');
  });
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Ports of the default range where a bridge answers /status, with its instance nonce. */
async function answeringBridges(): Promise<string[]> {
  const found: string[] = [];
  for (let port = 42380; port <= 42399; port++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/bridge/v1/status`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) found.push(`${port}:${((await res.json()) as { instanceNonce?: string }).instanceNonce}`);
    } catch {
      /* nothing listening */
    }
  }
  return found;
}

describe('Study Bridge extension (installed VSIX, real VS Code)', () => {
  let api: StudyBridgeApi;

  it('activates and hosts the bridge', async () => {
    const ext = vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.ok(!ext.extensionPath.includes('test/extension'), 'the extension under test is the installed VSIX');
    api = await ext.activate();
    await api.whenSettled();
    assert.equal(api.mode, 'hosting', `mode is ${api.mode} (${api.state.error ?? ''})`);
    metrics.activationMs = Math.round(api.activationMs);
    metrics.extensionPath = ext.extensionPath;
    metrics.vscodeVersion = vscode.version;
    metrics.mcpRegistered = api.mcpRegistered;
    const info = readBridgeJson(api.dataDir);
    assert.equal(info.pid, process.pid, 'bridge.json names this extension host');
    assert.equal(info.instanceNonce, api.state.instanceNonce);
    metrics.dataDir = api.dataDir;
  });

  it('answers GET /status on the port the status bar shows', async () => {
    const match = /:(\d+)/.exec(api.statusBarText);
    assert.ok(match, `status bar text "${api.statusBarText}" shows a port`);
    const port = Number(match[1]);
    assert.equal(port, api.port);
    const res = await fetch(`http://127.0.0.1:${port}/bridge/v1/status`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { instanceNonce: string };
    assert.equal(body.instanceNonce, api.state.instanceNonce);
    // And as rendered in the workbench DOM (read by the runner).
    const rendered = await askRunner<{ texts: string[] }>('statusbar');
    assert.ok(
      rendered.texts.some((t) => t.includes('Study Bridge') && t.includes(`:${port}`)),
      `rendered status bar shows :${port}: ${JSON.stringify(rendered.texts)}`,
    );
    metrics.port = port;
  });

  it('shows a study set created through the API in the Study Sets view after refresh', async () => {
    // As an agent would: from the files in the data dir, over HTTP.
    const agent = BridgeClient.fromDataDir(api.dataDir);
    const created = await agent.createStudySet('Cell Biology (created by an agent)');
    assert.ok(created.topicid);
    await vscode.commands.executeCommand('studyBridge.refresh');
    const roots = await api.views.studySets.getChildren();
    assert.ok((await labels(roots)).includes('Cell Biology (created by an agent)'), `roots: ${await labels(roots)}`);
    // Lazy children: the set's sections, then its (empty) documents.
    const node = roots.find((n) => n.id === `studySet/${created.topicid}`);
    assert.ok(node);
    const sections = await api.views.studySets.getChildren(node);
    assert.deepEqual(await labels(sections), ['Documents']);
    const docs = await api.views.studySets.getChildren(sections[0]);
    assert.ok(docs.length <= 1);
  });

  it('shows a review deck created through the API in the Review Decks view (and not among the study sets)', async () => {
    const agent = BridgeClient.fromDataDir(api.dataDir);
    const deck = await agent.createDeck('Exam week');
    assert.equal(deck.isDeck, true);
    await vscode.commands.executeCommand('studyBridge.refresh');
    const decks = await labels(await api.views.decks.getChildren());
    assert.deepEqual(decks, ['Exam week']);
    assert.ok(!(await labels(await api.views.studySets.getChildren())).includes('Exam week'));
  });

  it('New study set… creates one', async () => {
    const result = (await vscode.commands.executeCommand('studyBridge.newStudySet', 'Thermodynamics')) as
      | { topicid: string }
      | undefined;
    assert.ok(result?.topicid, 'the command returns the created set');
    const sets = await api.client!.listStudySets();
    assert.ok(sets.some((s) => s.topicid === result.topicid && s.title === 'Thermodynamics'));
    const roots = await api.views.studySets.getChildren();
    assert.ok((await labels(roots)).includes('Thermodynamics'));
  });

  it('saves a screenshot of the sidebar', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.studyBridge');
    await vscode.commands.executeCommand('studyBridge.studySets.focus');
    await new Promise((r) => setTimeout(r, 1500));
    const shot = await askRunner<{ path: string; rows: string[] }>('screenshot', { name: 'sidebar' });
    assert.ok(shot.path.endsWith('.png'));
    assert.ok(
      shot.rows.some((r) => r.includes('Thermodynamics')),
      `the rendered Study Sets view lists the new set: ${JSON.stringify(shot.rows)}`,
    );
  });

  it('Restart bridge brings it back on the same data dir', async () => {
    const before = api.state.instanceNonce;
    const t = performance.now();
    await vscode.commands.executeCommand('studyBridge.restart');
    const state = await api.whenSettled();
    metrics.restartMs = Math.round(performance.now() - t);
    assert.equal(state.mode, 'hosting');
    assert.notEqual(state.instanceNonce, before, 'a new server instance');
    assert.equal(readBridgeJson(api.dataDir).instanceNonce, state.instanceNonce);
    const sets = await api.client!.listStudySets();
    assert.ok(sets.some((s) => s.title === 'Thermodynamics'), 'data survived the restart');
  });

  it('Add PDF to library… uploads a book (into a study set from its context menu)', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let i = 1; i <= 3; i++) pdf.addPage([595, 842]).drawText(`Chapter ${i}: Enzymes and kinetics`, { x: 72, y: 760, size: 18, font });
    const file = join(tmpdir(), `enzymes-${Date.now()}.pdf`);
    writeFileSync(file, await pdf.save());
    const set = (await api.client!.listStudySets()).find((s) => s.title === 'Thermodynamics')!;
    const result = (await vscode.commands.executeCommand('studyBridge.addPdf', { studySet: { topicid: set.topicid } }, vscode.Uri.file(file))) as
      | Record<string, unknown>
      | undefined;
    assert.ok(result, 'the upload answered');
    // The command follows the background reading to the end.
    assert.deepEqual([result.pageCount, (result.extraction as { state: string }).state, result.addedToStudySet], [3, 'ready', true]);
    const roots = await api.views.studySets.getChildren();
    const node = roots.find((n) => n.id === `studySet/${set.topicid}`)!;
    const [docsSection] = await api.views.studySets.getChildren(node);
    const docs = await labels(await api.views.studySets.getChildren(docsSection));
    assert.ok(docs.some((d) => d.includes('enzymes')), `documents: ${docs}`);
  });

  it('the study set selected in the sidebar is what GET /context reports as open', async () => {
    const agent = BridgeClient.fromDataDir(api.dataDir);
    const set = (await agent.listStudySets()).find((s) => s.title === 'Thermodynamics')!;
    assert.notEqual((await agent.context()).studySet?.topicid, set.topicid);
    const node = (await api.views.studySets.getChildren()).find((n) => n.id === `studySet/${set.topicid}`)!;
    await api.trees.studySets.reveal(node, { select: true, focus: true });
    const ctx = await eventually(async () => {
      const c = await agent.context();
      return c.studySet?.topicid === set.topicid ? c : undefined;
    }, 'GET /context to report the selected set', 10_000);
    assert.deepEqual(ctx.studySet, { topicid: set.topicid, title: 'Thermodynamics', isDeck: false });
  });

  it('logs requests (method, path, status, ms) without tokens or codes', async () => {
    const agent = BridgeClient.fromDataDir(api.dataDir);
    const install = await agent.createInstallCode();
    await agent.raw('GET', '/install', { query: { code: 'not-a-real-code' }, anonymous: true });
    const text = await eventually(async () => {
      const t = existsSync(api.logFile) ? readFileSync(api.logFile, 'utf8') : '';
      return /GET \/bridge\/v1\/install 403/.test(t) ? t : undefined;
    }, 'the request log to show GET /install', 15_000);
    assert.match(text, /POST \/bridge\/v1\/library\/study-sets 20\d \d+ms/);
    assert.match(text, /GET \/bridge\/v1\/status 200 \d+ms/);
    assert.ok(!text.includes(agent.token!), 'no bearer token in the log');
    assert.ok(!text.includes(install.code) && !text.includes('not-a-real-code'), 'no install code in the log');
  });

  it('a second workbench window attaches instead of starting a second server', async () => {
    const before = readBridgeJson(api.dataDir);
    const bridgesBefore = await answeringBridges();
    const second = await askRunner<{ texts: string[] }>('open-second-window', {}, 90_000);
    assert.ok(
      second.texts.some((t) => /attached/.test(t) && t.includes(`:${api.port}`)),
      `second window's status bar says attached: ${JSON.stringify(second.texts)}`,
    );
    const after = readBridgeJson(api.dataDir);
    assert.equal(after.pid, before.pid, 'still hosted by this window');
    assert.equal(after.instanceNonce, before.instanceNonce);
    assert.equal(api.mode, 'hosting');
    // No new server anywhere in the default range (other bridges on this machine may already run).
    assert.deepEqual(await answeringBridges(), bridgesBefore, 'no second bridge started');
  });

  after(() => {
    if (api) metrics.bridgeJsonPresentAtEnd = existsSync(join(api.dataDir, 'bridge.json'));
  });
});
