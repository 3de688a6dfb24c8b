// Connected Agents in the real VS Code (issue 18): every agent's own token is
// listed by name, scope and last use; Revoke ends one at once (its next
// request is 401); Connect an Agent… makes a code for a named, scoped token.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { BridgeNode } from '../../../src/views/bridgeTreeProvider';
import { askRunner } from './signals';
import { eventually } from './eventually';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};

describe('Connected Agents: list, connect and revoke agent tokens (real VS Code)', () => {
  let api: StudyBridgeApi;
  let owner: BridgeClient;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    owner = BridgeClient.fromDataDir(api.dataDir);
  });

  const label = (n: BridgeNode) => {
    const l = n.treeItem().label;
    return typeof l === 'string' ? l : (l?.label ?? '');
  };
  const rows = async () =>
    (await api.views.agents.getChildren()).map((n) => ({
      node: n,
      label: label(n),
      description: String(n.treeItem().description ?? ''),
    }));

  it('lists each agent token with its scope and last use, and shows them in the sidebar', async () => {
    const writer = await owner.tokens.create('Claude Code', 'write');
    await owner.tokens.create('Read-only helper', 'read');
    // The writer works once: its row says when.
    await new BridgeClient({ baseUrl: owner.baseUrl, token: writer.token }).listStudySets();
    api.views.agents.refresh();
    const listed = await eventually(async () => {
      const r = await rows();
      return r.some((x) => x.label === 'Claude Code') && r.some((x) => x.label === 'Read-only helper') ? r : undefined;
    }, 'both tokens in the Connected Agents view');
    const byName = new Map(listed.map((r) => [r.label, r.description]));
    assert.match(byName.get('Claude Code')!, /^write · used just now$/);
    assert.equal(byName.get('Read-only helper'), 'read · never used');
    await vscode.commands.executeCommand('studyBridge.agents.focus');
    const shot = await askRunner<{ rows: string[] }>('ui-agents', {
      action: 'screenshot',
      file: 'connected-agents.png',
      sidebarWidth: 520,
      expect: ['Claude Code', 'write · used just now', 'Read-only helper', 'read · never used'],
    });
    metrics.connectedAgentsRows = shot.rows;
  });

  it('Revoke (after the confirm) ends the token at once: its next request is 401 and the row goes', async () => {
    const doomed = await owner.tokens.create('Short-lived agent', 'write');
    const agent = new BridgeClient({ baseUrl: owner.baseUrl, token: doomed.token });
    assert.equal((await agent.raw('GET', '/library/study-sets')).status, 200);
    api.views.agents.refresh();
    const row = await eventually(
      async () => (await rows()).find((r) => r.label === 'Short-lived agent'),
      'the row to revoke',
    );
    // Declining the confirm changes nothing.
    await vscode.commands.executeCommand('studyBridge.revokeAgent', row.node, { consent: async () => undefined });
    assert.equal((await agent.raw('GET', '/library/study-sets')).status, 200);
    let asked = '';
    await vscode.commands.executeCommand('studyBridge.revokeAgent', row.node, {
      consent: async (message: string) => {
        asked = message;
        return 'Revoke';
      },
    });
    assert.match(asked, /Revoke “Short-lived agent”\?/);
    assert.equal((await agent.raw('GET', '/library/study-sets')).status, 401);
    await eventually(
      async () => ((await rows()).some((r) => r.label === 'Short-lived agent') ? undefined : true),
      'the row to go',
    );
    assert.ok(!(await owner.tokens.list()).some((t) => t.tokenId === doomed.tokenId));
  });

  it('Connect an Agent… makes a one-time install code for a named, scoped token', async () => {
    const install = await vscode.commands.executeCommand<{
      code: string;
      name: string;
      scope: string;
      command: string;
    }>('studyBridge.connectAgent', { name: 'Suite reader', scope: 'read' });
    assert.ok(install, 'the command answered');
    assert.deepEqual([install.name, install.scope], ['Suite reader', 'read']);
    const script = await (await fetch(`${owner.baseUrl}/install?code=${install.code}`)).text();
    const token = /TOKEN='(sbt0\.[\w-]+)'/.exec(script)![1];
    const refused = await new BridgeClient({ baseUrl: owner.baseUrl, token }).raw('POST', '/library/study-sets', {
      body: { title: 'x', confirm: true },
    });
    assert.equal(refused.status, 403);
    // The change feed (the token's write) brings the row in.
    await eventually(
      async () => (await rows()).find((r) => r.label === 'Suite reader' && r.description.startsWith('read')),
      'the new agent in the view',
    );
  });
});
