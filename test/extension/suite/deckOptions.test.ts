// Deck Options in the real VS Code: an agent builds a deck from a study set and
// gives it a preset of its own; the person opens "Deck Options…" from the deck's
// context menu in the Review Decks view, types a retention the bridge refuses
// (its message shows under the field, nothing changes), then new cards per day,
// a desired retention and a new name, and saves. The bridge's HTTP API then
// answers the new options for the deck, and the Default preset is as it was.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import { askRunner } from './signals';
import { suiteAgent } from './suiteAgent';

const EXTENSION_ID = 'study-bridge.study-bridge';
const DECK_TITLE = 'Deck options demo';
/** FSRS-6 weights as Optimize would leave them: the page never shows them, a save keeps them and a clone copies them. */
const FITTED = [
  0.2172, 1.1771, 3.2602, 16.1507, 7.0114, 0.57, 2.0966, 0.0069, 1.5261, 0.112, 1.0178, 1.849, 0.1133, 0.3127, 2.2934,
  0.2191, 3.0004, 0.7536, 0.3332, 0.1437, 0.2,
];

interface WebviewSeen {
  body: string;
  read: Record<string, string[]>;
}

describe('Deck Options: a deck’s preset edited in its panel (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  it('Deck Options… opens the deck’s preset; a refused retention is shown under its field; Save writes new cards/day, desired retention and the name through the routes', async function () {
    this.timeout(180_000);
    // The agent: a set of three cards, a deck reading them, and a preset of the deck's own
    // (the person's edits then leave the Default preset, which other suites' decks use, alone).
    const set = await agent.createStudySet('Deck options set');
    const sources: string[] = [];
    for (const [title, text] of [
      ['Mitosis', 'Cell division into two identical cells'],
      ['Meiosis', 'Division into four haploid cells'],
      ['Osmosis', 'Water across a semipermeable membrane'],
    ])
      sources.push((await agent.cards.create(set.topicid, { title, text })).noteid);
    const deck = await agent.createDeck(DECK_TITLE);
    await agent.request('POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: sources.map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
    });
    const preset = await agent.deckOptions.savePreset({ name: 'Biology exam', options: { fsrsParameters: FITTED } });
    await agent.deckOptions.assign(deck.deckId, preset.presetId);
    const before = await agent.deckOptions.ofDeck(deck.deckId);
    assert.equal(before.presetId, preset.presetId);
    assert.equal(before.options.newPerDay, 20, "Anki's default");
    assert.equal(before.options.desiredRetention, 0.9);
    assert.deepEqual(before.options.fsrsParameters, FITTED);
    const defaultBefore = (await agent.deckOptions.presets()).presets.find((p) => p.presetId === 'default')!;

    // The person: Review Decks view → right-click the deck → Deck Options….
    await vscode.commands.executeCommand('studyBridge.decks.focus');
    await askRunner('deck-options-open', { action: 'context-menu', row: DECK_TITLE, item: 'Deck Options…' });
    // The preset's options shown once the host has sent them (the chooser lists the presets).
    const shown = await askRunner<WebviewSeen>('deck-options-shown', {
      action: 'webview',
      marker: '#preset option',
      expect: [`Deck Options: ${DECK_TITLE}`, 'uses "Biology exam"'],
      read: ['#preset option:checked'],
    });
    assert.deepEqual(shown.read['#preset option:checked'], ['Biology exam (1 deck)']);

    // A retention below 0.70: the bridge's 422 is shown under the field, and nothing is written.
    const refused = await askRunner<WebviewSeen>('deck-options-refused', {
      action: 'webview',
      marker: '#preset option',
      fill: { '#newPerDay': '35', '#desiredRetention': '0.5' },
      click: '#save',
      clickShows: ['.message.error', '#save:disabled'],
      waitFor: '#err-desiredRetention:not([hidden])',
      expect: ['Not saved'],
      read: ['#err-desiredRetention', '#err-newPerDay'],
      screenshot: 'deck-options-refused.png',
    });
    assert.deepEqual(refused.read['#err-desiredRetention'], ['desiredRetention must be 0.70..0.99']);
    assert.deepEqual(refused.read['#err-newPerDay'], [''], 'the valid field has no error');
    const unchanged = await agent.deckOptions.ofDeck(deck.deckId);
    assert.deepEqual(unchanged.options, before.options, 'a refused save changes nothing');

    // Valid values: saved through POST /deck-presets with confirm.
    await askRunner<WebviewSeen>('deck-options-saved', {
      action: 'webview',
      marker: '#preset option',
      fill: { '#desiredRetention': '0.85', '#name': 'Biology exam (VS Code)' },
      click: '#save',
      clickShows: ['.message.saved', '#save:disabled'],
      waitFor: '.message.saved',
      expect: ['Saved "Biology exam (VS Code)"'],
      screenshot: 'deck-options.png',
    });
    const after = await agent.deckOptions.ofDeck(deck.deckId);
    assert.equal(after.presetId, preset.presetId, 'the deck keeps its preset');
    assert.equal(after.name, 'Biology exam (VS Code)');
    assert.equal(after.options.newPerDay, 35);
    assert.equal(after.options.desiredRetention, 0.85);
    assert.deepEqual(
      { ...after.options, newPerDay: 20, desiredRetention: 0.9 },
      before.options,
      'the other options are as they were',
    );
    const defaultAfter = (await agent.deckOptions.presets()).presets.find((p) => p.presetId === 'default')!;
    assert.deepEqual(defaultAfter.options, defaultBefore.options, 'the Default preset is untouched');

    // Clone preset: named in VS Code's input box, chosen in the form; Save makes the deck use it.
    const cloned = await askRunner<WebviewSeen>('deck-options-clone', {
      action: 'webview',
      marker: '#preset option',
      click: '#clonePreset',
      clickShows: ['#save:disabled'],
      input: 'Biology cram',
      waitFor: '.message.saved',
      expect: ['Added "Biology cram"', 'will use "Biology cram" once saved'],
      read: ['#preset option:checked'],
    });
    assert.deepEqual(cloned.read['#preset option:checked'], ['Biology cram (0 decks)']);
    await askRunner<WebviewSeen>('deck-options-clone-saved', {
      action: 'webview',
      marker: '#preset option',
      fill: { '#newPerDay': '50' },
      click: '#save',
      clickShows: ['.message.saved:has-text("now uses")', '#save:disabled'],
      waitFor: '.message.saved:has-text("now uses")',
      expect: [`Saved: "${DECK_TITLE}" now uses "Biology cram".`],
      screenshot: 'deck-options-clone.png',
    });
    const moved = await agent.deckOptions.ofDeck(deck.deckId);
    assert.notEqual(moved.presetId, preset.presetId, 'the deck uses the clone');
    assert.equal(moved.name, 'Biology cram');
    assert.deepEqual(moved.options, { ...after.options, newPerDay: 50 }, 'the clone copies the saved options');
    const all = (await agent.deckOptions.presets()).presets;
    const original = all.find((p) => p.presetId === preset.presetId)!;
    assert.deepEqual(original.deckIds, [], 'the first preset is used by no deck now');
    assert.equal(original.options.newPerDay, 35, 'and keeps its options');

    // A name another preset has: the bridge's 409 is shown under the name, nothing renamed.
    const taken = await askRunner<WebviewSeen>('deck-options-name-taken', {
      action: 'webview',
      marker: '#preset option',
      fill: { '#name': 'biology exam (vs code)' },
      click: '#save',
      clickShows: ['.message.error', '#save:disabled'],
      waitFor: '#err-name:not([hidden])',
      read: ['#err-name'],
    });
    assert.match(taken.read['#err-name'][0], /A preset named "biology exam \(vs code\)" exists; choose another name/);
    assert.equal((await agent.deckOptions.ofDeck(deck.deckId)).name, 'Biology cram', 'not renamed');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Its set goes: the later suites find their rows in a Study Sets view as long as it was before this suite.
    await agent.request('POST', `/study-sets/${set.topicid}/delete`, {
      body: { expectedTitle: 'Deck options set', confirm: true },
    });
  });
});
