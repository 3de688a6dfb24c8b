/// <reference lib="dom" />
// The result.md preview's page: it renders what the host sends and asks the
// host to act; it owns no state (the text document is the model). Bundled by
// esbuild (esbuild.mjs) into dist/webview/resultEditor.js.
import type { PreviewExcerpt, ReceiptModel } from './previewTypes';
import { PageChannel } from '../channel/pageChannel';
import { clear, el, plural, showMessage } from '../pageDom';
import type { PreviewState, ResultEditorProtocol, SubmitState } from './protocol';

const host = new PageChannel<ResultEditorProtocol>();
const $ = (id: string) => document.getElementById(id) as HTMLElement;
const statusEl = $('status');
const submitBtn = $('submit') as HTMLButtonElement;
const messageEl = $('message');
const receiptEl = $('receipt');
const summaryEl = $('summary');
const problemsEl = $('problems');
const treeEl = $('tree');
/** The last submit as the host reports it (a reloaded page learns it on ready), or this page's click still on its way. */
let submitState: SubmitState = { status: 'idle' };
let lastState: PreviewState | undefined;
const submitting = () => submitState.status === 'running';

/** A link to a line of result.md: clicking reveals it in the text editor. */
function lineLink(line: number, label: string): HTMLAnchorElement {
  const a = el('a', 'line-link', label);
  a.href = '#';
  a.dataset.line = String(line);
  a.title = `Show line ${line} in the text editor`;
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    host.notify('revealLine', { line });
  });
  return a;
}

function renderExcerpt(x: PreviewExcerpt): HTMLElement {
  const row = el('div', `excerpt ${x.anchored ? 'anchored' : 'unanchored'}`);
  row.dataset.anchored = String(x.anchored);
  row.dataset.line = String(x.line);
  row.appendChild(el('span', 'mark', x.anchored ? '✓' : '✗'));
  const body = el('span', 'excerpt-body');
  body.appendChild(el('span', 'excerpt-text', `“${x.text}”`));
  if (!x.anchored) body.appendChild(el('span', 'reason', `Not anchored: ${x.reasonText}`));
  row.appendChild(body);
  const meta = el('span', 'meta');
  if (x.anchored) meta.appendChild(el('span', 'page', `p. ${x.page}`));
  meta.appendChild(lineLink(x.line, `line ${x.line}`));
  row.appendChild(meta);
  return row;
}

function renderPreview(state: PreviewState): void {
  lastState = state;
  submitBtn.disabled = state.status !== 'checked' || submitting();
  if (state.status !== 'checked') {
    statusEl.textContent = state.status === 'checking' ? 'Checking…' : '';
    if (state.status !== 'checking') {
      showMessage(messageEl, state.message, state.status === 'noBundle' ? 'info' : 'warning');
      summaryEl.hidden = problemsEl.hidden = true;
      clear(treeEl);
    }
    return;
  }
  showMessage(messageEl, undefined);
  const m = state.model;
  const c = m.counts;
  statusEl.textContent = m.ok ? 'ready to submit' : 'has problems';
  statusEl.className = `status ${m.ok ? 'ok' : 'bad'}`;
  document.body.dataset.bundleState = m.bundleState;
  submitBtn.textContent = m.bundleState === 'imported' ? 'Submit again' : 'Submit';
  submitBtn.title =
    m.bundleState === 'imported'
      ? 'Save result.md and replace the imported cards (a snapshot is taken first)'
      : 'Save result.md and import these cards into the study set';

  clear(summaryEl);
  summaryEl.hidden = false;
  summaryEl.appendChild(el('span', 'count', plural(c.importedCards, 'card')));
  summaryEl.appendChild(
    el(
      'span',
      `count ${c.excerptsAnchored < c.excerptsTotal ? 'bad' : ''}`,
      `${c.excerptsAnchored}/${c.excerptsTotal} excerpts anchored`,
    ),
  );
  if (c.lostCards) summaryEl.appendChild(el('span', 'count bad', `${plural(c.lostCards, 'heading')} will be lost`));

  clear(problemsEl);
  problemsEl.hidden = m.problems.length === 0;
  for (const p of m.problems) {
    const row = el('div', `problem ${p.severity}`);
    row.dataset.code = p.code;
    row.appendChild(lineLink(p.line, `line ${p.line}`));
    row.appendChild(el('span', 'problem-text', p.message));
    problemsEl.appendChild(row);
  }

  clear(treeEl);
  for (const n of m.nodes) {
    const node = el('div', `node depth-${Math.min(n.depth, 8)}`);
    node.style.setProperty('--depth', String(n.depth));
    node.dataset.key = n.key;
    if (n.excerptCard) {
      node.classList.add('excerpt-card');
      node.appendChild(renderExcerpt(n.excerpts[0]));
    } else {
      const head = el('div', 'card');
      if (n.colorIndex !== null && n.colorIndex !== undefined) head.classList.add(`color-${n.colorIndex}`);
      head.appendChild(el('span', 'bullet', n.depth === 0 ? '◆' : '●'));
      head.appendChild(el('span', 'title', n.title || '(untitled)'));
      if (n.depth > 0) head.appendChild(lineLink(n.line, `line ${n.line}`));
      node.appendChild(head);
      for (const x of n.excerpts) node.appendChild(renderExcerpt(x));
    }
    treeEl.appendChild(node);
  }
}

function renderReceipt(r: ReceiptModel): void {
  clear(receiptEl);
  receiptEl.hidden = false;
  receiptEl.className = 'receipt';
  const c = r.counts;
  const lost = c.headings - c.importedCards;
  const failed = c.excerptsTotal - c.excerptsAnchored;
  receiptEl.classList.add(lost || failed ? 'partial' : 'complete');
  receiptEl.appendChild(
    el('h2', '', `Imported version ${r.version}${r.replaced ? ' (replaced the previous import)' : ''}`),
  );
  const list = el('ul', 'receipt-counts');
  list.appendChild(el('li', '', `${plural(c.importedCards, 'card')} of ${plural(c.headings, 'heading')}`));
  list.appendChild(el('li', failed ? 'bad' : '', `${c.excerptsAnchored}/${c.excerptsTotal} excerpts anchored`));
  if (lost) list.appendChild(el('li', 'bad lost-cards', `${plural(lost, 'lost card')} (headings not imported)`));
  receiptEl.appendChild(list);
  for (const line of r.lostCardLines) {
    const row = el('div', 'lost');
    row.appendChild(el('span', 'mark', '✗'));
    row.appendChild(el('span', '', 'heading not imported'));
    row.appendChild(lineLink(line, `line ${line}`));
    receiptEl.appendChild(row);
  }
  for (const x of r.failedExcerpts) receiptEl.appendChild(renderExcerpt(x));
  if (r.truncated) receiptEl.appendChild(el('p', 'note', 'More excerpts failed than are listed here.'));
  receiptEl.appendChild(el('p', 'note', `A snapshot was taken before the import (${r.preImportSnapshotId}).`));
}

/** Draws the submit's state: busy while it runs, then its receipt or why it failed. */
function renderSubmit(state: SubmitState): void {
  submitState = state;
  submitBtn.classList.toggle('busy', state.status === 'running');
  if (state.status === 'running') showMessage(messageEl, state.message);
  else if (state.status === 'failed') showMessage(messageEl, `Submit failed: ${state.message}`, 'error');
  else if (state.status === 'done') {
    showMessage(messageEl, undefined);
    renderReceipt(state.receipt);
  }
  if (lastState) renderPreview(lastState);
  else submitBtn.disabled = submitting();
}

async function submit(): Promise<void> {
  if (submitting()) return;
  renderSubmit({ status: 'running', message: 'Submitting…' });
  try {
    // Saving and importing a large set can take a while: the host reports each step meanwhile (`submit`).
    renderSubmit({ status: 'done', receipt: await host.request('submit', undefined, { timeoutMs: 10 * 60_000 }) });
  } catch (err) {
    renderSubmit({ status: 'failed', code: 'ERROR', message: err instanceof Error ? err.message : String(err) });
  }
}

submitBtn.addEventListener('click', () => void submit());
$('openAsText').addEventListener('click', () => host.notify('openAsText'));
host.on('preview', renderPreview);
host.on('submit', renderSubmit);
host.ready();
