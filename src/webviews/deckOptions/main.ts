/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The Deck Options page: it shows the presets the host sends, edits the chosen
// one's options in a form, and asks the host to save (the bridge validates:
// its refusals come back by field and are shown under each). The deck's
// preset and the presets themselves live in the host. Bundled by esbuild
// (esbuild.mjs) into dist/webview/deckOptions.js.
import { PageChannel } from '../channel/pageChannel';
import { clear, el, plural, showMessage } from '../pageDom';
import {
  OPTION_KEYS,
  type DeckOptionsProtocol,
  type DeckOptionsViewState,
  type OptionKey,
  type OptionsDraft,
  type PresetModel,
  type SaveAnswer,
} from './protocol';

type Ready = Extract<DeckOptionsViewState, { status: 'ready' }>;

const host = new PageChannel<DeckOptionsProtocol>();
const $ = <T extends HTMLElement = HTMLInputElement>(id: string) => document.getElementById(id) as T;
const deckEl = $<HTMLElement>('deck');
const useEl = $<HTMLElement>('presetUse');
const presetEl = $<HTMLSelectElement>('preset');
const nameEl = $('name');
const messageEl = $<HTMLElement>('message');
const saveBtn = $<HTMLButtonElement>('save');
const addBtn = $<HTMLButtonElement>('addPreset');
const cloneBtn = $<HTMLButtonElement>('clonePreset');
const STEP_KEYS: readonly OptionKey[] = ['learningSteps', 'relearningSteps'];
const BOOL_KEYS: readonly OptionKey[] = ['buryNewSiblings', 'buryReviewSiblings', 'buryInterdayLearningSiblings'];

let state: Ready | undefined;
/** The preset shown in the form: the deck's own until the person picks another. */
let selected: string | undefined;
let busy = false;

const current = (): PresetModel | undefined => state?.presets.find((p) => p.presetId === selected);

function render(s: DeckOptionsViewState): void {
  deckEl.textContent = `Deck Options: ${s.deck.title}`;
  if (s.status !== 'ready') {
    state = undefined;
    showMessage(messageEl, s.status === 'loading' ? 'Loading…' : s.message, s.status === 'error' ? 'error' : 'info');
    setBusy(s.status === 'loading');
    return;
  }
  state = s;
  if (!s.presets.some((p) => p.presetId === selected)) selected = s.presetId;
  clear(presetEl);
  for (const p of s.presets) {
    const label = `${p.name} (${plural(p.deckCount, 'deck')})`;
    const option = el('option', undefined, label);
    option.value = p.presetId;
    presetEl.appendChild(option);
  }
  presetEl.value = selected!;
  fillForm();
  setBusy(false);
}

/** The chosen preset's saved options into the form, errors cleared. */
function fillForm(): void {
  const preset = current();
  if (!preset || !state) return;
  nameEl.value = preset.name;
  const o = preset.options as unknown as Record<string, unknown>;
  for (const key of OPTION_KEYS) {
    const input = $<HTMLInputElement | HTMLSelectElement>(key);
    if (BOOL_KEYS.includes(key)) (input as HTMLInputElement).checked = o[key] === true;
    else if (STEP_KEYS.includes(key)) input.value = (o[key] as string[]).join(' ');
    else input.value = String(o[key]);
  }
  const others = preset.deckCount - (selected === state.presetId ? 1 : 0);
  useEl.textContent =
    selected === state.presetId
      ? `uses "${preset.name}"${others > 0 ? `, shared with ${plural(others, 'other deck')}` : ''}`
      : `will use "${preset.name}" once saved`;
  showErrors({});
}

/** The form as typed: an empty number field is sent as null, for the bridge to refuse by name. */
function readForm(): OptionsDraft {
  const draft: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) {
    const input = $<HTMLInputElement | HTMLSelectElement>(key);
    if (BOOL_KEYS.includes(key)) draft[key] = (input as HTMLInputElement).checked;
    else if (STEP_KEYS.includes(key)) draft[key] = input.value.split(/[\s,]+/).filter(Boolean);
    else if (key === 'leechAction') draft[key] = input.value;
    else draft[key] = input.value.trim() === '' ? null : Number(input.value);
  }
  return draft;
}

function showErrors(fields: Partial<Record<string, string>>): void {
  for (const key of [...OPTION_KEYS, 'name']) {
    const line = $<HTMLElement>(`err-${key}`);
    const text = fields[key];
    line.hidden = !text;
    line.textContent = text ?? '';
    $(key).setAttribute('aria-invalid', text ? 'true' : 'false');
  }
}

function setBusy(on: boolean): void {
  busy = on;
  for (const b of [saveBtn, addBtn, cloneBtn]) b.disabled = on || !state;
  saveBtn.classList.toggle('busy', on);
}

function answered(answer: SaveAnswer): void {
  if (answer.ok) {
    selected = answer.presetId;
    render(state!);
    showMessage(messageEl, answer.message, 'info');
    messageEl.classList.add('saved');
    return;
  }
  showErrors(answer.fields);
  showMessage(messageEl, answer.message, 'error');
}

async function save(): Promise<void> {
  if (busy || !state || !selected) return;
  setBusy(true);
  showMessage(messageEl, 'Saving…');
  try {
    answered(await host.request('save', { presetId: selected, name: nameEl.value, options: readForm() }));
  } catch (e) {
    showMessage(messageEl, `Not saved: ${e instanceof Error ? e.message : String(e)}`, 'error');
  } finally {
    setBusy(false);
  }
}

async function addPreset(cloneFrom?: string): Promise<void> {
  if (busy || !state) return;
  setBusy(true);
  try {
    // The host asks the name in an input box: the person may take their time.
    const answer = await host.request('addPreset', { cloneFrom }, { timeoutMs: 30 * 60_000 });
    if ('cancelled' in answer) return;
    answered(answer);
  } catch (e) {
    showMessage(messageEl, `No preset added: ${e instanceof Error ? e.message : String(e)}`, 'error');
  } finally {
    setBusy(false);
  }
}

presetEl.addEventListener('change', () => {
  selected = presetEl.value;
  fillForm();
  showMessage(messageEl, undefined);
});
saveBtn.addEventListener('click', () => void save());
addBtn.addEventListener('click', () => void addPreset());
cloneBtn.addEventListener('click', () => void addPreset(selected));
window.addEventListener('keydown', (ev) => {
  if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 's') {
    ev.preventDefault();
    void save();
  }
});
host.on('state', render);
host.ready();
