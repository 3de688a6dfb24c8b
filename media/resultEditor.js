// @ts-check
// The result.md preview webview. It renders what the host sends and asks the
// host to act; it owns no state (the text document is the model). Protocol:
// src/editors/resultEditorProtocol.ts — `ready` first; requests carry an id and
// get one `reply` with it.
(function () {
  /** @type {{ postMessage(m: unknown): void }} */
  // @ts-ignore acquireVsCodeApi is provided by VS Code
  const vscode = acquireVsCodeApi();
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const statusEl = $('status');
  const submitBtn = /** @type {HTMLButtonElement} */ ($('submit'));
  const messageEl = $('message');
  const receiptEl = $('receipt');
  const summaryEl = $('summary');
  const problemsEl = $('problems');
  const treeEl = $('tree');
  let nextRequestId = 1;
  /** @type {number | undefined} */
  let pendingSubmit;
  /** @type {any} */
  let lastState;

  /** @param {string} tag @param {string} [cls] @param {string} [text] */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** A link to a line of result.md: clicking reveals it in the text editor. */
  function lineLink(/** @type {number} */ line, /** @type {string} */ label) {
    const a = /** @type {HTMLAnchorElement} */ (el('a', 'line-link', label));
    a.href = '#';
    a.dataset.line = String(line);
    a.title = `Show line ${line} in the text editor`;
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      vscode.postMessage({ type: 'revealLine', line });
    });
    return a;
  }

  function plural(/** @type {number} */ n, /** @type {string} */ word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  function clear(/** @type {HTMLElement} */ e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }

  function showMessage(/** @type {string | undefined} */ text, kind = 'info') {
    messageEl.hidden = !text;
    messageEl.className = `message ${kind}`;
    messageEl.textContent = text || '';
  }

  function renderExcerpt(/** @type {any} */ x) {
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

  function renderPreview(/** @type {any} */ state) {
    lastState = state;
    submitBtn.disabled = state.status !== 'checked' || pendingSubmit !== undefined;
    if (state.status !== 'checked') {
      statusEl.textContent = state.status === 'checking' ? 'Checking…' : '';
      if (state.status !== 'checking') {
        showMessage(state.message, state.status === 'noBundle' ? 'info' : 'warning');
        summaryEl.hidden = problemsEl.hidden = true;
        clear(treeEl);
      }
      return;
    }
    showMessage(undefined);
    const m = state.model;
    const c = m.counts;
    statusEl.textContent = m.ok ? 'ready to submit' : 'has problems';
    statusEl.className = `status ${m.ok ? 'ok' : 'bad'}`;
    document.body.dataset.bundleState = m.bundleState;
    submitBtn.textContent = m.bundleState === 'imported' ? 'Submit again' : 'Submit';
    submitBtn.title = m.bundleState === 'imported' ? 'Save result.md and replace the imported cards (a snapshot is taken first)' : 'Save result.md and import these cards into the study set';

    clear(summaryEl);
    summaryEl.hidden = false;
    summaryEl.appendChild(el('span', 'count', plural(c.importedCards, 'card')));
    summaryEl.appendChild(el('span', `count ${c.excerptsAnchored < c.excerptsTotal ? 'bad' : ''}`, `${c.excerptsAnchored}/${c.excerptsTotal} excerpts anchored`));
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

  function renderReceipt(/** @type {any} */ r) {
    clear(receiptEl);
    receiptEl.hidden = false;
    receiptEl.className = 'receipt';
    const c = r.counts;
    const lost = c.headings - c.importedCards;
    const failed = c.excerptsTotal - c.excerptsAnchored;
    receiptEl.classList.add(lost || failed ? 'partial' : 'complete');
    receiptEl.appendChild(el('h2', '', `Imported version ${r.version}${r.replaced ? ' (replaced the previous import)' : ''}`));
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

  submitBtn.addEventListener('click', () => {
    if (pendingSubmit !== undefined) return;
    pendingSubmit = nextRequestId++;
    submitBtn.disabled = true;
    submitBtn.classList.add('busy');
    showMessage('Submitting…');
    vscode.postMessage({ type: 'submit', requestId: pendingSubmit });
  });
  $('openAsText').addEventListener('click', () => vscode.postMessage({ type: 'openAsText' }));

  window.addEventListener('message', (event) => {
    const m = event.data;
    if (!m || typeof m.type !== 'string') return;
    if (m.type === 'preview') renderPreview(m.state);
    else if (m.type === 'progress' && m.requestId === pendingSubmit) showMessage(m.message);
    else if (m.type === 'reply' && m.requestId === pendingSubmit) {
      pendingSubmit = undefined;
      submitBtn.classList.remove('busy');
      if (m.ok) {
        showMessage(undefined);
        renderReceipt(m.receipt);
      } else showMessage(`Submit failed: ${m.error.message}`, 'error');
      if (lastState) renderPreview(lastState);
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
