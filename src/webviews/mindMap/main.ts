/// <reference lib="dom" />
// The mind map's webview: markmap-view draws the set's card tree the host sends.
// Bundled by esbuild (esbuild.mjs) into dist/webview/mindMap.js. It keeps only
// view state (folds, zoom/pan) in the webview state, so a redraw after an
// agent's edit, or the panel coming back from the background, looks the same.
import { select } from 'd3';
import { Markmap } from 'markmap-view';
import type { INode, IPureNode } from 'markmap-common';
import { PageChannel, vscodeApi } from '../channel/pageChannel';
import type { MindMapData, MindMapNode, MindMapProtocol } from './protocol';

/** Since the page's navigation began (the `rendered` timing). */
const scriptStart = performance.now();

interface ViewState {
  /** The person's folds by noteid (1 folded, 0 open); cards not listed start as the host says. */
  folds: Record<string, number>;
  transform?: { k: number; x: number; y: number };
  /** Which set this map shows: after a window reload VS Code hands this state to the host's serializer. */
  studySet?: { topicid: string; title: string };
}

/**
 * Transition length of markmap's moves (ms): a fold, and a redraw that adds, removes or moves cards.
 * None for the first draw (nothing to move from), a redraw that only changes text or colours, and
 * when the person asks for reduced motion.
 */
const DURATION = window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 300;
const vscode = vscodeApi();
const host = new PageChannel<MindMapProtocol>(vscode);

// Counted and reported with every render: the extension tests assert none.
const cspViolations: string[] = [];
document.addEventListener('securitypolicyviolation', (e) => {
  cspViolations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'}${e.sample ? `: ${e.sample.slice(0, 60)}` : ''}`,
  );
});

const saved = (vscode.getState() as ViewState | undefined) ?? { folds: {} };
const view: ViewState = { folds: { ...saved.folds }, transform: saved.transform, studySet: saved.studySet };
const persist = () => vscode.setState(view);

const svg = document.getElementById('map') as unknown as SVGSVGElement;
const titleEl = document.getElementById('title')!;
const statusEl = document.getElementById('status')!;
const problemEl = document.getElementById('problem')!;

let palette: string[] = [];
const neutral = () =>
  getComputedStyle(document.body).getPropertyValue('--vscode-descriptionForeground').trim() || '#888888';

// markmap appends a <style> element with its CSS, which a strict CSP refuses:
// it gets a detached one, and media/mindMap.css carries those rules.
const svgSelection = select(svg);
const append = svgSelection.append.bind(svgSelection);
svgSelection.append = (name: string) =>
  name === 'style' ? select(document.createElementNS('http://www.w3.org/2000/svg', 'style')) : append(name);
const mm = new Markmap(svgSelection, {
  autoFit: false,
  embedGlobalCSS: false,
  duration: DURATION,
  maxWidth: 300,
  paddingX: 8,
  spacingHorizontal: 56,
  spacingVertical: 6,
  initialExpandLevel: -1,
  color: (node: INode) => lineColour(node),
});
svgSelection.append = append;

// d3 joins nodes by `state.key`, which markmap derives from a node's position in the tree: one card
// added re-keys (and re-creates and re-measures) every node after it. Keyed by card and content, a
// redraw touches only the cards that changed.
const initializeData = mm._initializeData.bind(mm);
mm._initializeData = (node: IPureNode) => {
  const root = initializeData(node);
  walk(root, (n) => (n.state.key = `${noteidOf(n)}\u0000${n.content}`));
  return root;
};

// Folds the person makes (the circles) are remembered by card, across redraws.
const toggleNode = mm.toggleNode.bind(mm);
mm.toggleNode = async (node: INode, recursive?: boolean) => {
  busy(+1);
  const done = toggleNode(node, recursive);
  const remember = (n: INode) => {
    view.folds[noteidOf(n)] = n.payload?.fold ? 1 : 0;
  };
  if (recursive) walk(node, remember);
  else remember(node);
  persist();
  await done;
  void reportRendered(DURATION);
};

// d3-zoom keeps the current transform on the element (what d3.zoomTransform reads).
mm.zoom.on('zoom.persist', () => {
  const t = (svg as unknown as { __zoom?: { k: number; x: number; y: number } }).__zoom;
  if (t) {
    view.transform = { k: t.k, x: t.x, y: t.y };
    persist();
  }
});

let current: MindMapData | undefined;
/** The drawn tree's shape (cards, parents, folds): a redraw that keeps it moves nothing. */
let shape = '';
let seq = 0;
/** Draws and toggles whose transitions have not ended; `body[data-busy]` says so to the tests' driver. */
let pending = 0;
const busy = (delta: number) => {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? '1' : '0';
};

host.on('map', (data) => void draw(data));
host.on('problem', (m) => showProblem(m.message));

const openCard = (noteid: string) => {
  const node = findNode(mm.state.data, noteid);
  if (node) void mm.setHighlight(node);
  host.request('openCard', { noteid }).catch((err: Error) => showProblem(err.message));
};
const cardAt = (target: EventTarget | null) =>
  (target as Element | null)?.closest?.('[data-noteid]')?.getAttribute('data-noteid') ?? undefined;

svg.addEventListener('click', (e) => {
  const noteid = cardAt(e.target);
  if (noteid) openCard(noteid);
});
// The keyboard does what the pointer does: Enter or Space opens the focused card, → unfolds it, ← folds it.
svg.addEventListener('keydown', (e) => {
  const noteid = cardAt(e.target);
  if (!noteid || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    openCard(noteid);
    return;
  }
  const node = findNode(mm.state.data, noteid);
  const fold = e.key === 'ArrowLeft' ? 1 : e.key === 'ArrowRight' ? 0 : undefined;
  if (!node || fold === undefined || !node.children?.length || (node.payload?.fold ? 1 : 0) === fold) return;
  e.preventDefault();
  void mm.toggleNode(node).then(() => svg.querySelector<HTMLElement>(`[data-noteid="${CSS.escape(noteid)}"]`)?.focus());
});

document.getElementById('fit')!.addEventListener('click', () => void mm.fit());
document.getElementById('refresh')!.addEventListener('click', () => host.notify('refresh'));

async function draw(data: MindMapData): Promise<void> {
  const arrived = performance.now();
  busy(+1);
  const first = current === undefined;
  current = data;
  seq = data.seq;
  view.studySet = { topicid: data.topicid, title: data.title };
  persist();
  showProblem(undefined);
  setPalette(data.palette);
  titleEl.textContent = data.title;
  statusEl.textContent = `${data.cardCount} ${data.cardCount === 1 ? 'card' : 'cards'}`;
  applyFolds(data.root);
  const newShape = shapeOf(data.root);
  const duration = first || newShape === shape ? 0 : DURATION;
  shape = newShape;
  let laidOut: number;
  const highlighted = mm.state.highlight ? noteidOf(mm.state.highlight) : undefined;
  mm.options.duration = duration;
  try {
    await mm.setData(data.root);
    laidOut = performance.now();
    if (highlighted) {
      const node = findNode(mm.state.data, highlighted);
      if (node) await mm.setHighlight(node);
    }
    if (first) {
      const t = view.transform;
      if (t) restoreTransform(t);
      else await mm.fit();
    }
  } finally {
    mm.options.duration = DURATION;
  }
  await reportRendered(duration, { scriptStart, mapArrived: arrived, ...(first ? {} : { laidOut }) });
}

/** After markmap's transitions (leaving nodes are removed at their end) and a painted frame, the count the SVG shows. */
async function reportRendered(
  transitionMs: number,
  timing?: { scriptStart: number; mapArrived: number; laidOut?: number },
): Promise<void> {
  if (transitionMs) await new Promise((r) => setTimeout(r, transitionMs + 80));
  // d3 ends even a zero-length transition on its next animation frame; the second frame is painted.
  for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r));
  busy(-1);
  host.notify('rendered', {
    seq,
    nodeCount: svg.querySelectorAll('g.markmap-node').length,
    cspViolations: cspViolations.slice(0, 20),
    ...(timing ? { timing: { ...timing, drawn: performance.now() } } : {}),
  });
}

/** Cards, their parents and folds, in tree order. */
function shapeOf(node: MindMapNode): string {
  return `${node.payload.noteid}${node.payload.fold ? '+' : ''}(${node.children.map(shapeOf).join(',')})`;
}

function applyFolds(node: MindMapNode): void {
  const own = view.folds[node.payload.noteid];
  node.payload.fold = node.children.length ? (own ?? (node.payload.startsFolded ? 1 : 0)) : 0;
  for (const c of node.children) applyFolds(c);
}

function restoreTransform(t: { k: number; x: number; y: number }): void {
  mm.zoom.scaleTo(mm.svg, t.k);
  mm.zoom.translateTo(mm.svg, -t.x / t.k, -t.y / t.k, [0, 0]);
}

/** Palette colours as CSS variables (set through CSSOM, which the CSP allows) plus a readable text colour on each. */
function setPalette(hexes: string[]): void {
  palette = hexes;
  const root = document.documentElement.style;
  hexes.forEach((hex, i) => {
    root.setProperty(`--palette-${i}`, hex);
    root.setProperty(`--palette-${i}-fg`, luminance(hex) > 0.45 ? '#1f1f1f' : '#ffffff');
  });
}

/** Links and circles in the card's colour; very light colours are darkened on light themes so they show. */
function lineColour(node: INode): string {
  const i = (node.payload as { colorIndex?: number | null } | undefined)?.colorIndex;
  const hex = typeof i === 'number' ? palette[i] : undefined;
  if (!hex) return neutral();
  return document.body.classList.contains('vscode-light') && luminance(hex) > 0.75 ? shade(hex, 0.55) : hex;
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function shade(hex: string, factor: number): string {
  return `#${rgb(hex)
    .map((c) =>
      Math.round(c * factor)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

function rgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.replace('#', '').slice(0, 6), 16) || 0;
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function showProblem(message: string | undefined): void {
  problemEl.hidden = !message;
  problemEl.textContent = message ?? '';
}

function noteidOf(n: INode): string {
  return String((n.payload as { noteid?: string } | undefined)?.noteid ?? '');
}

function walk(node: INode, fn: (n: INode) => void): void {
  fn(node);
  for (const c of node.children ?? []) walk(c, fn);
}

function findNode(root: INode | undefined, noteid: string): INode | undefined {
  if (!root) return undefined;
  if (noteidOf(root) === noteid) return root;
  for (const c of root.children ?? []) {
    const found = findNode(c, noteid);
    if (found) return found;
  }
  return undefined;
}

host.ready();
