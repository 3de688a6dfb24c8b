/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type { OutlineEntry } from './protocol';

interface ChromeActions {
  /** +1 zoom in, -1 zoom out, 0 fit the page width. */
  zoom(direction: number): void;
  goToPage(page: number): void;
  makeCard(): void;
}

interface FindBus {
  dispatch(name: string, data: Record<string, unknown>): void;
  on(name: string, fn: (e: { matchesCount?: { current: number; total: number }; state?: number }) => void): void;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * The reader's toolbar and side panel: title, page box, zoom (buttons and
 * Ctrl/Cmd +/-/0), find in the book (PDFFindController through the event bus),
 * the outline, and a notice line.
 */
export class ReaderChrome {
  private findBus: FindBus | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly actions: ChromeActions) {
    $('zoomIn').addEventListener('click', () => actions.zoom(1));
    $('zoomOut').addEventListener('click', () => actions.zoom(-1));
    $('fitWidth').addEventListener('click', () => actions.zoom(0));
    $('makeCard').addEventListener('click', () => actions.makeCard());
    $('outlineToggle').addEventListener('click', () => this.toggleOutline());
    const pageInput = $<HTMLInputElement>('pageInput');
    pageInput.addEventListener('change', () => actions.goToPage(Number(pageInput.value)));
    const find = $<HTMLInputElement>('findInput');
    find.addEventListener('input', () => this.find(''));
    find.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.find('again', e.shiftKey);
      if (e.key === 'Escape') {
        find.value = '';
        this.find('');
      }
    });
    $('findNext').addEventListener('click', () => this.find('again'));
    $('findPrev').addEventListener('click', () => this.find('again', true));
    window.addEventListener('keydown', (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (e.key === '+' || e.key === '=') actions.zoom(1);
      else if (e.key === '-') actions.zoom(-1);
      else if (e.key === '0') actions.zoom(0);
      else if (e.key === 'f') {
        find.focus();
        find.select();
      } else return;
      e.preventDefault();
    });
  }

  bindFind(bus: FindBus): void {
    this.findBus = bus;
    const show = (e: { matchesCount?: { current: number; total: number } }) => {
      const m = e.matchesCount;
      $('findCount').textContent = !$<HTMLInputElement>('findInput').value
        ? ''
        : m && m.total
          ? `${m.current} of ${m.total}`
          : 'no match';
    };
    bus.on('updatefindmatchescount', show);
    bus.on('updatefindcontrolstate', show);
  }

  private find(type: '' | 'again', previous = false): void {
    const query = $<HTMLInputElement>('findInput').value;
    this.findBus?.dispatch('find', {
      source: this,
      type,
      query,
      caseSensitive: false,
      entireWord: false,
      highlightAll: true,
      findPrevious: previous,
      matchDiacritics: false,
    });
    if (!query) $('findCount').textContent = '';
  }

  showTitle(title: string, setTitle: string | null): void {
    $('title').textContent = title;
    $('title').title = setTitle
      ? `${title} — cards go to “${setTitle}”`
      : `${title} — not in a study set: Make card is off`;
    $('setTitle').textContent = setTitle ? `→ ${setTitle}` : '';
    $<HTMLButtonElement>('makeCard').disabled = !setTitle;
  }

  showPage(page: number, count: number): void {
    const input = $<HTMLInputElement>('pageInput');
    if (document.activeElement !== input) input.value = String(page);
    $('pageCount').textContent = `/ ${count}`;
  }

  showScale(scale: number): void {
    $('zoomLabel').textContent = `${Math.round(scale * 100)}%`;
  }

  showOutline(entries: Array<OutlineEntry & { go?: () => void }>): void {
    const list = $('outlineList');
    list.replaceChildren();
    if (!entries.length) {
      const empty = document.createElement('p');
      empty.className = 'empty';
      empty.textContent = 'This book has no outline.';
      list.append(empty);
      return;
    }
    for (const e of entries) {
      const a = document.createElement('a');
      a.href = '#';
      a.className = `level-${Math.min(e.level, 4)}`;
      a.textContent = e.title;
      if (e.page) a.title = `page ${e.page}`;
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        if (e.go) e.go();
        else if (e.page) this.actions.goToPage(e.page);
      });
      list.append(a);
    }
  }

  private toggleOutline(): void {
    const open = document.body.classList.toggle('outline-open');
    $('outlineToggle').setAttribute('aria-pressed', String(open));
  }

  notice(message: string, kind: 'info' | 'error'): void {
    const el = $('notice');
    el.textContent = message;
    el.className = `notice ${kind}`;
    el.hidden = false;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => (el.hidden = true), kind === 'error' ? 8000 : 4000);
  }
}
