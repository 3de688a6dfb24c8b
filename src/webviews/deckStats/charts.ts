/// <reference lib="dom" />
// The Statistics panel's charts, drawn as inline SVG elements made here (no
// chart library): no inline script or style (the CSP allows neither), colours
// from VS Code's theme through classes in media/deckStats.css.

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** An accessible chart: role img, named by its section's title and summary (ids given). */
function frame(width: number, height: number, labelledBy: string): SVGSVGElement {
  return svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-labelledby': labelledBy,
    class: 'chart-svg',
    preserveAspectRatio: 'xMinYMin meet',
  });
}

export interface Column {
  label: string;
  value: number;
  /** The bar's tooltip. */
  title: string;
}

/**
 * Vertical bars (the forecast, the retrievability histogram): one per value, a label under
 * every `labelEvery`-th, the largest value on the left axis.
 */
export function columns(values: Column[], opts: { labelledBy: string; labelEvery: number; cls: string }) {
  const W = 640;
  const H = 180;
  const left = 36;
  const bottom = 22;
  const top = 8;
  const max = Math.max(1, ...values.map((v) => v.value));
  const step = (W - left) / Math.max(1, values.length);
  const chart = frame(W, H, opts.labelledBy);
  const plotH = H - bottom - top;
  chart.appendChild(svg('line', { x1: left, y1: H - bottom, x2: W, y2: H - bottom, class: 'axis' }));
  chart.appendChild(svg('text', { x: left - 4, y: top + 8, class: 'tick end' }, String(max)));
  chart.appendChild(svg('text', { x: left - 4, y: H - bottom, class: 'tick end' }, '0'));
  values.forEach((v, i) => {
    const h = (v.value / max) * plotH;
    const x = left + i * step;
    const bar = svg('rect', {
      x: x + step * 0.1,
      y: H - bottom - h,
      width: Math.max(1, step * 0.8),
      height: h,
      class: `bar ${opts.cls}`,
      'data-label': v.label,
      'data-value': v.value,
    });
    bar.appendChild(svg('title', {}, v.title));
    chart.appendChild(bar);
    if (i % opts.labelEvery === 0)
      chart.appendChild(svg('text', { x: x + step / 2, y: H - 6, class: 'tick middle' }, v.label));
  });
  return chart;
}

export interface Row {
  label: string;
  /** 0..1 of the bar's full width. */
  share: number;
  text: string;
  cls: string;
}

/** Horizontal bars with a label before and the value after (counts by state, retention by interval). */
export function rows(items: Row[], labelledBy: string) {
  const W = 640;
  const rowH = 24;
  const labelW = 110;
  const textW = 130;
  const chart = frame(W, items.length * rowH + 4, labelledBy);
  items.forEach((r, i) => {
    const y = i * rowH + 2;
    chart.appendChild(svg('text', { x: 0, y: y + 16, class: 'label' }, r.label));
    chart.appendChild(
      svg('rect', { x: labelW, y: y + 3, width: W - labelW - textW, height: rowH - 8, class: 'track' }),
    );
    const bar = svg('rect', {
      x: labelW,
      y: y + 3,
      width: Math.max(0, (W - labelW - textW) * Math.min(1, r.share)),
      height: rowH - 8,
      class: `bar ${r.cls}`,
    });
    bar.appendChild(svg('title', {}, `${r.label}: ${r.text}`));
    chart.appendChild(bar);
    chart.appendChild(svg('text', { x: W - textW + 8, y: y + 16, class: 'value' }, r.text));
  });
  return chart;
}

const dayKey = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A local date (noon, away from DST edges) from "YYYY-MM-DD". */
export function parseDay(key: string): Date {
  const [y, m, d] = key.split('-').map(Number);
  return new Date(y, m - 1, d, 12);
}

/**
 * The calendar heatmap: a column per week, a row per weekday, the year up to `today`; a cell's
 * shade is its reviews against the busiest day (five levels, as Anki and GitHub draw it).
 */
export function heatmap(perDay: Map<string, number>, today: string, labelledBy: string) {
  const cell = 11;
  const gap = 2;
  const top = 14;
  const end = parseDay(today);
  const start = new Date(end.getFullYear(), end.getMonth(), end.getDate() - 364, 12);
  start.setDate(start.getDate() - start.getDay()); // back to Sunday: whole week columns
  const weeks = Math.ceil((end.getTime() - start.getTime()) / (7 * 86_400_000) + 1 / 7);
  const chart = frame(weeks * (cell + gap), top + 7 * (cell + gap), labelledBy);
  const max = Math.max(1, ...perDay.values());
  let month = -1;
  for (let d = new Date(start), i = 0; d <= end; d.setDate(d.getDate() + 1), i++) {
    const week = Math.floor(i / 7);
    if (d.getMonth() !== month && d.getDate() <= 7) {
      month = d.getMonth();
      chart.appendChild(svg('text', { x: week * (cell + gap), y: 10, class: 'tick' }, MONTHS[month]));
    }
    const key = dayKey(d);
    const n = perDay.get(key) ?? 0;
    const level = n === 0 ? 0 : Math.min(4, Math.ceil((4 * n) / max));
    const rect = svg('rect', {
      x: week * (cell + gap),
      y: top + d.getDay() * (cell + gap),
      width: cell,
      height: cell,
      rx: 2,
      class: `day l${level}`,
      'data-date': key,
      'data-value': n,
    });
    rect.appendChild(svg('title', {}, `${key}: ${n} ${n === 1 ? 'review' : 'reviews'}`));
    chart.appendChild(rect);
  }
  return chart;
}
