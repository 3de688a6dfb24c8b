// @ts-check
// The review panel webview. It renders the state the host sends and asks the
// host to act; the session lives in the host. Protocol:
// src/views/reviewPanelProtocol.ts — `ready` first; a grade carries a request
// id and gets one `reply` with it. Keys: Space/Enter show the answer, 1–4 grade.
(function () {
  /** @type {{ postMessage(m: unknown): void }} */
  // @ts-ignore acquireVsCodeApi is provided by VS Code
  const vscode = acquireVsCodeApi();
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const deckEl = $('deck');
  const progressEl = $('progress');
  const countsEl = $('counts');
  const messageEl = $('message');
  const cardEl = $('card');
  const questionEl = $('question');
  const dividerEl = $('divider');
  const answerEl = $('answer');
  const summaryEl = $('summary');
  const showBtn = /** @type {HTMLButtonElement} */ ($('show'));
  const gradesEl = $('grades');
  const RATINGS = ['again', 'hard', 'good', 'easy'];
  const MASK = '[…]';
  let nextRequestId = 1;
  /** @type {number | undefined} */
  let pendingGrade;
  /** @type {any} */
  let state;

  /** @param {string} tag @param {string} [cls] @param {string} [text] */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clear(/** @type {HTMLElement} */ e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }

  function plural(/** @type {number} */ n, /** @type {string} */ word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
  }

  /** Text with the cloze mask drawn as a blank. */
  function questionText(/** @type {HTMLElement} */ into, /** @type {string} */ text) {
    const parts = text.split(MASK);
    parts.forEach((p, i) => {
      if (p) into.appendChild(document.createTextNode(p));
      if (i < parts.length - 1) into.appendChild(el('span', 'cloze', MASK));
    });
  }

  function renderQuestion(/** @type {any} */ card) {
    clear(questionEl);
    const q = card.question;
    const kind = { title: 'Question', cloze: 'Fill in the blank', text: 'Question', content_part: 'Content part' }[q.kind] || 'Question';
    questionEl.appendChild(el('div', 'kind', kind + (card.state === 'new' ? ' · new' : ` · ${card.state}`)));
    const text = el('div', `text ${q.kind}`);
    if (q.kind === 'content_part') text.textContent = `${q.contentKind || 'part'} ${q.contentId}`;
    else questionText(text, q.text || '(no question)');
    questionEl.appendChild(text);
  }

  function renderAnswer(/** @type {any} */ card) {
    clear(answerEl);
    const a = card.answer;
    if (!card.sourceAlive) {
      answerEl.appendChild(el('p', 'gone', 'The source card was deleted: this review card has no answer side.'));
      return;
    }
    if (card.question.kind !== 'title' && a.title) answerEl.appendChild(el('div', 'title', a.title));
    const body = el('div', `body${a.excerpt ? ' excerpt' : ''}`, a.body || '(no body)');
    answerEl.appendChild(body);
    if (a.excerpt && a.page) answerEl.appendChild(el('div', 'page', `p. ${a.page}`));
    if (a.comments && a.comments.length) {
      const ul = el('ul', 'comments');
      for (const c of a.comments) ul.appendChild(el('li', 'comment', c));
      answerEl.appendChild(ul);
    }
  }

  function showMessage(/** @type {string | undefined} */ text, kind = 'info') {
    messageEl.hidden = !text;
    messageEl.className = `message ${kind}`;
    messageEl.textContent = text || '';
  }

  function when(/** @type {string | null} */ iso) {
    if (!iso) return 'no cards';
    const d = new Date(iso);
    const ms = d.getTime() - Date.now();
    if (ms <= 0) return 'now';
    const rel = ms < 60_000 ? 'in less than a minute' : ms < 3_600_000 ? `in ${Math.round(ms / 60_000)} min` : ms < 86_400_000 ? `in ${Math.round(ms / 3_600_000)} h` : `in ${Math.round(ms / 86_400_000)} days`;
    return `${rel} (${d.toLocaleString()})`;
  }

  function renderSummary(/** @type {any} */ s) {
    clear(summaryEl);
    summaryEl.appendChild(el('h2', '', s.reviewed ? 'Session complete' : 'Nothing due now'));
    summaryEl.appendChild(el('p', 'reviewed', s.reviewed ? `${plural(s.reviewed, 'card')} reviewed` : 'No card of this deck is due.'));
    if (s.reviewed) {
      const table = el('div', 'per-grade');
      for (const r of RATINGS) {
        const cell = el('div', `tally ${r}`);
        cell.appendChild(el('span', 'n', String(s.counts[r])));
        cell.appendChild(el('span', 'label', r[0].toUpperCase() + r.slice(1)));
        table.appendChild(cell);
      }
      summaryEl.appendChild(table);
    }
    summaryEl.appendChild(el('p', 'next', `Next due: ${when(s.nextDueAt)}`));
    if (s.dueToday) summaryEl.appendChild(el('p', 'today', `${plural(s.dueToday, 'card')} due today in this deck`));
    const buttons = el('div', 'summary-actions');
    if (s.dueNow > 0) {
      const again = /** @type {HTMLButtonElement} */ (el('button', 'restart', `Review ${plural(s.dueNow, 'due card')}`));
      again.type = 'button';
      again.addEventListener('click', () => vscode.postMessage({ type: 'restart' }));
      buttons.appendChild(again);
    }
    const close = /** @type {HTMLButtonElement} */ (el('button', 'close secondary', 'Close'));
    close.type = 'button';
    close.addEventListener('click', () => vscode.postMessage({ type: 'close' }));
    buttons.appendChild(close);
    summaryEl.appendChild(buttons);
  }

  function render() {
    const s = state;
    if (!s) return;
    document.body.dataset.status = s.status;
    deckEl.textContent = s.deck.title;
    progressEl.textContent = s.status === 'card' ? `${s.position} / ${s.total}` : '';
    countsEl.textContent = '';
    if (s.status === 'card') {
      for (const [k, n] of [['new', s.remaining.new], ['learning', s.remaining.learning], ['review', s.remaining.review]]) {
        countsEl.appendChild(el('span', `count ${k}`, String(n)));
      }
    }
    cardEl.hidden = s.status !== 'card';
    summaryEl.hidden = s.status !== 'summary';
    showBtn.hidden = !(s.status === 'card' && !s.revealed);
    gradesEl.hidden = !(s.status === 'card' && s.revealed);
    showMessage(s.status === 'loading' ? 'Loading the due cards…' : s.status === 'error' ? s.message : s.status === 'card' ? s.error : undefined, s.status === 'error' || (s.status === 'card' && s.error) ? 'error' : 'info');
    if (s.status === 'card') {
      document.body.dataset.side = s.revealed ? 'answer' : 'question';
      renderQuestion(s.card);
      dividerEl.hidden = answerEl.hidden = !s.revealed;
      if (s.revealed) renderAnswer(s.card);
      for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (gradesEl.querySelectorAll('button.grade'))) {
        const r = /** @type {string} */ (b.dataset.rating);
        /** @type {HTMLElement} */ (b.querySelector('.interval')).textContent = s.card.nextIntervals[r];
        b.disabled = s.busy || pendingGrade !== undefined;
      }
    } else {
      delete document.body.dataset.side;
    }
    if (s.status === 'summary') renderSummary(s);
  }

  function reveal() {
    if (state && state.status === 'card' && !state.revealed) vscode.postMessage({ type: 'reveal' });
  }

  function grade(/** @type {string} */ rating) {
    if (!state || state.status !== 'card' || !state.revealed || state.busy || pendingGrade !== undefined) return;
    pendingGrade = nextRequestId++;
    document.body.dataset.pending = rating;
    vscode.postMessage({ type: 'grade', rating, requestId: pendingGrade });
    render();
  }

  showBtn.addEventListener('click', reveal);
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (gradesEl.querySelectorAll('button.grade'))) {
    b.addEventListener('click', () => grade(/** @type {string} */ (b.dataset.rating)));
  }
  window.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    if (ev.key === ' ' || ev.key === 'Enter') {
      if (state && state.status === 'card' && !state.revealed) {
        ev.preventDefault();
        reveal();
      }
      return;
    }
    const i = ['1', '2', '3', '4'].indexOf(ev.key);
    if (i >= 0) {
      ev.preventDefault();
      grade(RATINGS[i]);
    }
  });

  window.addEventListener('message', (event) => {
    const m = event.data;
    if (!m || typeof m !== 'object') return;
    if (m.type === 'state') {
      state = m.state;
      render();
      $('review').focus();
    } else if (m.type === 'reply' && m.requestId === pendingGrade) {
      pendingGrade = undefined;
      delete document.body.dataset.pending;
      if (!m.ok) showMessage(`Not graded: ${m.error.message}`, 'error');
      render();
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
