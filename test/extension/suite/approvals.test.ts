// Approvals in the real VS Code (issue 18 §2): an agent's delete is held by
// the bridge and the person is asked in a notification (modal for study-set
// and document deletes) with the agent's name and the dry-run; Allow runs it,
// Deny leaves it; the status bar counts the pending ones.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { PendingApproval } from '../../../src/client/approvalsApi';
import type { StudyBridgeApi } from '../../../src/extension';
import { askRunner } from './signals';
import { eventually } from './eventually';

const EXTENSION_ID = 'study-bridge.study-bridge';

describe('Approvals: an agent delete waits for Allow (real VS Code)', () => {
  let api: StudyBridgeApi;
  let owner: BridgeClient;
  let agent: BridgeClient;
  const setPolicy = async (policy: string) => {
    await vscode.workspace
      .getConfiguration('studyBridge')
      .update('approveAgentChanges', policy, vscode.ConfigurationTarget.Global);
    // The setting restarts the bridge (its port may move): wait for the new one to say so.
    return eventually(
      async () => {
        await api.whenSettled();
        // The setting is global: with a second window open, either window may host the restarted bridge.
        if (api.mode !== 'hosting' && api.mode !== 'attached') return undefined;
        try {
          const c = BridgeClient.fromDataDir(api.dataDir); // bridge.json is briefly absent while it restarts
          const caps = (await c.capabilities()) as { approvals?: { policy: string } };
          return caps.approvals?.policy === policy ? c : undefined;
        } catch {
          return undefined;
        }
      },
      `the bridge with approvals ${policy}`,
      110_000,
    );
  };
  const cardsIn = async (topicid: string) => (await owner.cards.tree(topicid)).nodes.map((n) => n.noteid);
  const newCards = async (title: string, n: number) => {
    const set = await owner.createStudySet(title);
    const ids: string[] = [];
    for (let i = 1; i <= n; i++)
      ids.push(
        (
          await owner.request<{ noteid: string }>('POST', `/study-sets/${set.topicid}/notes`, {
            body: { title: `${title} ${i}`, confirm: true },
          })
        ).noteid,
      );
    return { topicid: set.topicid, ids };
  };
  const held = async (path: string, body: Record<string, unknown>) => {
    const res = await agent.raw('POST', path, { body: { ...body, confirm: true } });
    assert.equal(res.status, 202, res.text());
    return res.json<{ approvalId: string; summary: { text: string } }>();
  };

  before(async function () {
    this.timeout(180_000);
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    owner = await setPolicy('destructive');
    const issued = await owner.tokens.create('Claude Code', 'write');
    agent = new BridgeClient({ baseUrl: owner.baseUrl, token: issued.token });
  });
  after(async function () {
    this.timeout(180_000);
    // The prompts of approvals decided through the test's own prompt stay on screen: they would cover later suites' buttons.
    await vscode.commands.executeCommand('notifications.clearAll');
    await setPolicy('never');
  });

  it("an agent's delete shows a notification with its name and the dry-run; the status bar counts it; Allow runs it", async function () {
    this.timeout(90_000);
    const { topicid, ids } = await newCards('Approval demo', 2);
    const pending = await held('/notes/delete', { noteIds: ids });
    assert.equal(pending.summary.text, 'Claude Code: delete 2 cards');
    const now = await cardsIn(topicid);
    assert.ok(now.includes(ids[0]) && now.includes(ids[1]), 'held: nothing deleted yet');
    const shot = await askRunner<{ text: string; status: string[] }>('ui-approval-allow', {
      action: 'notification',
      expect: ['Claude Code: delete 2 cards', 'Allow', 'Deny', 'Show'],
      file: 'approval-notification.png',
      statusFile: 'approval-statusbar.png',
      statusExpect: '1 approval',
      click: 'Allow',
    });
    assert.ok(
      shot.status.some((s) => s.includes('1 approval')),
      `status bar: ${shot.status}`,
    );
    const decided = await eventually(async () => {
      const a = await owner.approvals.get(pending.approvalId);
      return a.state === 'allowed' && a.result ? a : undefined;
    }, 'the approval allowed and run');
    assert.equal(decided.result!.status, 200);
    const left = await cardsIn(topicid);
    assert.ok(!left.includes(ids[0]) && !left.includes(ids[1]), 'both cards deleted');
    assert.deepEqual(await owner.approvals.pending(), [], 'nothing left to count');
  });

  it('Deny leaves the cards as they were', async function () {
    this.timeout(90_000);
    const { topicid, ids } = await newCards('Approval denied', 1);
    const before = await cardsIn(topicid);
    const pending = await held('/notes/delete', { noteIds: ids });
    await askRunner('ui-approval-deny', {
      action: 'notification',
      expect: ['Claude Code: delete 1 card', 'Deny'],
      file: 'approval-deny.png',
      click: 'Deny',
    });
    await eventually(
      async () => ((await owner.approvals.get(pending.approvalId)).state === 'denied' ? true : undefined),
      'the approval denied',
    );
    assert.deepEqual(await cardsIn(topicid), before);
  });

  it('a study-set delete asks in a modal with what it loses; Deny keeps the set', async function () {
    this.timeout(90_000);
    const { topicid } = await newCards('Modal set', 3);
    const pending = await held(`/study-sets/${topicid}/delete`, { expectedTitle: 'Modal set' });
    assert.equal(pending.summary.text, 'Claude Code: delete study set "Modal set" with 4 cards');
    const asked: Array<{ text: string; modal: boolean }> = [];
    await vscode.commands.executeCommand('studyBridge.showApprovals', {
      prompt: async (a: PendingApproval, modal: boolean) => {
        asked.push({ text: a.summary.text, modal });
        return 'Deny';
      },
    });
    assert.deepEqual(asked, [{ text: pending.summary.text, modal: true }]);
    assert.equal((await owner.approvals.get(pending.approvalId)).state, 'denied');
    assert.ok(
      (await owner.listStudySets()).some((s) => s.topicid === topicid),
      'the set stays',
    );
  });
  it('Show opens the dry-run as JSON beside the question, then asks again', async function () {
    this.timeout(90_000);
    const { topicid, ids } = await newCards('Approval shown', 2);
    const pending = await held('/notes/delete', { noteIds: ids });
    const choices: Array<'Show' | 'Deny'> = ['Show', 'Deny'];
    let shown: string | undefined;
    await vscode.commands.executeCommand('studyBridge.showApprovals', {
      prompt: async (a: PendingApproval) => {
        if (a.approvalId !== pending.approvalId) return undefined;
        if (choices.length === 1) {
          const doc = vscode.window.activeTextEditor?.document;
          shown = doc?.getText();
          assert.equal(doc?.isDirty, false, 'a read-only view: closing it asks nothing');
          assert.equal(doc?.languageId, 'json');
        }
        return choices.shift();
      },
    });
    assert.ok(shown, 'an editor was open when the question came again');
    const doc = JSON.parse(shown) as { agent: { name: string }; call: string; summary: { text: string } };
    assert.equal(doc.agent.name, 'Claude Code');
    assert.equal(doc.call, 'POST /notes/delete');
    assert.equal(doc.summary.text, 'Claude Code: delete 2 cards');
    assert.equal((await owner.approvals.get(pending.approvalId)).state, 'denied');
    assert.deepEqual(
      (await cardsIn(topicid)).filter((id) => ids.includes(id)).sort(),
      [...ids].sort(),
      'both cards stay',
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a prompt answered after the call was decided elsewhere says so and does nothing', async function () {
    this.timeout(90_000);
    const { topicid, ids } = await newCards('Approval stale', 1);
    const pending = await held('/notes/delete', { noteIds: ids });
    const outcomes = await vscode.commands.executeCommand<string[]>('studyBridge.showApprovals', {
      prompt: async (a: PendingApproval) => {
        if (a.approvalId !== pending.approvalId) return undefined;
        // Another window (or the MCP client) denies it while this prompt is still up.
        await owner.approvals.decide(a.approvalId, 'deny');
        return 'Allow';
      },
    });
    assert.ok(outcomes.includes('gone'), JSON.stringify(outcomes));
    await askRunner('ui-approval-stale', {
      action: 'notification',
      expect: ['already decided elsewhere or expired', 'your Allow did nothing'],
      file: 'approval-stale.png',
    });
    assert.equal((await owner.approvals.get(pending.approvalId)).state, 'denied');
    assert.ok((await cardsIn(topicid)).includes(ids[0]), 'the card stays');
  });
});
