import type { ParsedExcerpt, Problem } from './parsedResult';

/**
 * The inline markers of result.md: `[excerpt: verbatim text]`,
 * `[block: b_<page>_<seq>]` and `[style: colorIndex=N fillIndex=M]`, pulled
 * out of a heading's or a paragraph's text, with the problems they have.
 */

const BLOCK_ID = /^b_(\d+)_(\d+)$/;
const MARKER_START = /\[(excerpt|block|style)\s*:/gi;

export interface Scan {
  rest: string;
  excerpts: ParsedExcerpt[];
  style?: { colorIndex?: number; fillIndex?: number };
}

/** Lines in `text` before offset `i`. */
const linesBefore = (text: string, i: number) => {
  let n = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < i; k = text.indexOf('\n', k + 1)) n++;
  return n;
};

/**
 * Where the marker whose text starts at `from` ends (the index of its `]`),
 * looking no further than `to` (the next marker or the end of the run); -1
 * when it is not closed. Quotes may hold unbalanced brackets (`[0, 360)`,
 * a stray `]`): the `]` that balances the opening `[` ends the marker only
 * when what follows it up to `to` has no unmatched `]`; otherwise the marker
 * ends at the first `]` that ends a line, else at the last `]` before `to`.
 */
export function markerEnd(text: string, from: number, to: number): number {
  let depth = 1;
  let balanced = -1;
  for (let k = from; k < to; k++) {
    if (text[k] === '[') depth++;
    else if (text[k] === ']' && --depth === 0) {
      balanced = k;
      break;
    }
  }
  if (balanced >= 0) {
    let d = 0;
    let stray = false;
    for (let k = balanced + 1; k < to && !stray; k++) {
      if (text[k] === '[') d++;
      else if (text[k] === ']') stray = --d < 0;
    }
    if (!stray) return balanced;
  }
  let last = -1;
  for (let k = from; k < to; k++) {
    if (text[k] !== ']') continue;
    if (/^[ \t]*(\n|$)/.test(text.slice(k + 1, to))) return k;
    last = k;
  }
  return last;
}

/** Pulls the markers out of one inline run; `line` is the run's first line (1-based). */
export function scanMarkers(text: string, line: number, problems: Problem[]): Scan {
  const out: Scan = { rest: '', excerpts: [] };
  const starts = [...text.matchAll(MARKER_START)];
  let last = 0;
  for (let i = 0; i < starts.length; i++) {
    const m = starts[i];
    if (m.index < last) continue; // inside the previous marker's text
    const kind = m[1].toLowerCase();
    const at = line + linesBefore(text, m.index);
    const from = m.index + m[0].length;
    const next = starts.find((s, j) => j > i && s.index >= from);
    const end = markerEnd(text, from, next ? next.index : text.length);
    const unclosed = end < 0;
    if (unclosed) {
      problems.push({
        line: at,
        severity: 'error',
        code: 'UNCLOSED_MARKER',
        message: `[${kind}: …] is not closed with "]"; the text up to the next marker (or the end of the paragraph) was taken as its text.`,
      });
    }
    const stop = unclosed ? (next ? next.index : text.length) : end;
    const inner = text.slice(from, stop).trim();
    out.rest += text.slice(last, m.index);
    last = unclosed ? stop : end + 1;
    if (kind === 'excerpt') {
      const e: ParsedExcerpt = { kind: 'excerpt', text: inner.replace(/\s+/g, ' '), line: at };
      if (unclosed) e.invalid = 'unclosed';
      else if (!inner) e.invalid = 'empty';
      out.excerpts.push(e);
    } else if (kind === 'block') {
      for (const id of inner.split(/[\s,]+/).filter(Boolean)) {
        const e: ParsedExcerpt = { kind: 'block', text: id, line: at };
        if (!BLOCK_ID.test(id)) {
          e.invalid = 'bad_block_id';
          problems.push({
            line: at,
            severity: 'error',
            code: 'BAD_BLOCK_ID',
            message: `"${id}" is not a block id; ids look like b_<page>_<seq> as in source.json.`,
          });
        }
        out.excerpts.push(e);
      }
      if (!inner) {
        out.excerpts.push({ kind: 'block', text: '', line: at, invalid: 'empty' });
      }
    } else {
      out.style = { ...out.style, ...parseStyle(inner, at, problems) };
    }
  }
  out.rest += text.slice(last);
  return out;
}

function parseStyle(inner: string, line: number, problems: Problem[]): { colorIndex?: number; fillIndex?: number } {
  const style: { colorIndex?: number; fillIndex?: number } = {};
  for (const part of inner.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^(colorIndex|fillIndex)=(-?\d+)$/i.exec(part);
    const value = m ? Number(m[2]) : NaN;
    if (m && m[1].toLowerCase() === 'colorindex' && value >= 0 && value <= 15) style.colorIndex = value;
    else if (m && m[1].toLowerCase() === 'fillindex' && value >= -1 && value <= 2) style.fillIndex = value;
    else {
      problems.push({
        line,
        severity: 'error',
        code: 'BAD_STYLE',
        message: `"${part}" in [style: …] is not colorIndex=0..15 or fillIndex=-1..2 (2 = no fill; 0 is not "no fill"); ignored.`,
      });
    }
  }
  return style;
}
