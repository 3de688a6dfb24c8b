import { fieldIsEmpty } from './ankiFieldEmpty';
import type { AnkiModel } from './ankiNotetypes';

/**
 * Which cards Anki makes of a note, by Anki's own rule (rslib template.rs
 * and notetype/cardgen.rs), not by rendering: a template makes a card when
 * its front, parsed, refers to a non-empty field outside `{{#F}}` sections
 * whose F is empty and `{{^F}}` sections whose F is not (`type:` and every
 * other filter count; `{{FrontSide}}`, text and `<!-- -->` comments do not).
 * A front that does not parse (a section left open or closed wrongly) makes
 * no card. A field is empty when it holds only ASCII whitespace and empty
 * `<br>`/`<div>` tags. A cloze type makes one card per cloze number of its
 * fields (`{{c1,2::…}}` counts both; c0 none; c500 and up share the last).
 */

export type Node =
  { kind: 'text' } | { kind: 'field'; key: string } | { kind: 'if' | 'unless'; key: string; children: Node[] };

type Token = { kind: 'text' } | { kind: 'field' | 'open-if' | 'open-unless' | 'close'; name: string };

const ALT_SYNTAX = '{{=<% %>=}}';
const SPECIAL_FIELDS = ['Card', 'CardFlag', 'Deck', 'Subdeck', 'Tags', 'Type', 'CardID'];

/** Anki's classify_handle: leading `{` and whitespace off, then `#`, `/`, `^` or a replacement. */
function classify(inner: string): Token {
  const s = inner.replace(/^\{+/, '').trim();
  if (s.length < 2) return { kind: 'field', name: s };
  const rest = s.slice(1).trimStart();
  if (s[0] === '#') return { kind: 'open-if', name: rest };
  if (s[0] === '/') return { kind: 'close', name: rest };
  if (s[0] === '^') return { kind: 'open-unless', name: rest };
  return { kind: 'field', name: s };
}

/** The template's tokens: handlebars, comments (as text) and text, as Anki's lexer splits them. */
function tokenize(template: string): Token[] {
  let text = template;
  let [open, close] = ['{{', '}}'];
  if (text.trimStart().startsWith(ALT_SYNTAX)) {
    text = text.trimStart().slice(ALT_SYNTAX.length);
    [open, close] = ['<%', '%>'];
  }
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith(open, i)) {
      const end = text.indexOf(close, i + open.length);
      if (end >= 0) {
        out.push(classify(text.slice(i + open.length, end)));
        i = end + close.length;
        continue;
      }
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end >= 0) {
        out.push({ kind: 'text' });
        i = end + 3;
        continue;
      }
    }
    i++;
  }
  return out;
}

/** Parsed fronts by their text: an import asks for the same few once per card (40,000 parses for 40,000 cards). */
const parsedByText = new Map<string, readonly Node[] | undefined>();
const PARSED_KEPT = 64;

/** The parsed template, or undefined where Anki's parser refuses it (then the template makes no card). Shared: not to be changed. */
export function parseTemplate(template: string): readonly Node[] | undefined {
  if (parsedByText.has(template)) return parsedByText.get(template);
  if (parsedByText.size >= PARSED_KEPT) parsedByText.clear();
  const parsed = parseTokens(tokenize(template));
  parsedByText.set(template, parsed);
  return parsed;
}

function parseTokens(tokens: readonly Token[]): Node[] | undefined {
  let at = 0;
  const parse = (openTag: string | undefined): Node[] | undefined => {
    const nodes: Node[] = [];
    while (at < tokens.length) {
      const t = tokens[at++];
      if (t.kind === 'text') nodes.push({ kind: 'text' });
      else if (t.kind === 'field') nodes.push({ kind: 'field', key: t.name.split(':').pop()! });
      else if (t.kind === 'close') return openTag === t.name ? nodes : undefined;
      else {
        const children = parse(t.name);
        if (!children) return undefined;
        nodes.push({ kind: t.kind === 'open-if' ? 'if' : 'unless', key: t.name, children });
      }
    }
    return openTag === undefined ? nodes : undefined;
  };
  return parse(undefined);
}

/** Anki's template_is_empty, negated sections checked (as card generation checks them). */
export function rendersWithFields(nodes: readonly Node[], nonempty: ReadonlySet<string>, checkNegated = true): boolean {
  for (const n of nodes) {
    if (n.kind === 'field' && nonempty.has(n.key)) return true;
    if (n.kind === 'if' && nonempty.has(n.key) && rendersWithFields(n.children, nonempty, checkNegated)) return true;
    if (n.kind === 'unless' && !(checkNegated && nonempty.has(n.key)))
      if (rendersWithFields(n.children, nonempty, checkNegated)) return true;
  }
  return false;
}

/** The names that count as filled for a note: its non-empty fields, and the special fields a front may show. */
export function nonemptyFields(model: AnkiModel, fields: readonly string[], tags: readonly string[]): Set<string> {
  const out = new Set(model.fields.filter((_f, i) => !fieldIsEmpty(fields[i] ?? '')));
  for (const special of SPECIAL_FIELDS)
    if (!model.fields.includes(special) && (special !== 'Tags' || tags.length)) out.add(special);
  return out;
}

const CLOZE_OPEN = /\{\{c([\d,]*)::/y;

/** Anki's cloze numbers of a field: of each closed deletion and those nested in it (at most 10 open at once). */
export function clozeNumbersOf(field: string, into = new Set<number>()): Set<number> {
  const open: number[][] = [];
  for (let i = 0; i < field.length;) {
    CLOZE_OPEN.lastIndex = i;
    const m = CLOZE_OPEN.exec(field);
    const ords = m ? m[1].split(',').filter((s) => /^\d+$/.test(s) && Number(s) <= 65535) : [];
    if (m && ords.length) {
      if (open.length < 10) open.push(ords.map(Number).filter((n) => n !== 0));
      i += m[0].length;
    } else if (field.startsWith('}}', i)) {
      // A deletion counts once closed, with those closed inside it; one left open counts for nothing.
      const done = open.pop();
      if (done && open.length) open[open.length - 1].push(...done);
      else if (done) for (const n of done) into.add(n);
      i += 2;
    } else i++;
  }
  return into;
}

/** The ordinals of the cards a note's fields make (templates, or cloze numbers - 1), by Anki's rule; maybe none. */
export function cardOrds(model: AnkiModel, fields: readonly string[], tags: readonly string[]): number[] {
  if (model.cloze) {
    const numbers = new Set<number>();
    for (const f of fields) clozeNumbersOf(f, numbers);
    return [...new Set([...numbers].map((n) => Math.min(n - 1, 499)))].sort((a, b) => a - b);
  }
  const nonempty = nonemptyFields(model, fields, tags);
  return model.templates
    .filter((t) => {
      const parsed = parseTemplate(t.qfmt);
      return parsed !== undefined && rendersWithFields(parsed, nonempty);
    })
    .map((t) => t.ord)
    .sort((a, b) => a - b);
}

/**
 * A template's legacy field requirements (schema 11's `req`: [ord, 'any' | 'all' | 'none', field ords]) as Anki
 * computes them, negated sections taken as shown, so an older Anki reading the package makes the same cards.
 */
export function fieldRequirements(fieldNames: readonly string[], qfmt: string): ['any' | 'all' | 'none', number[]] {
  const parsed = parseTemplate(qfmt);
  if (!parsed) return ['none', []];
  const renders = (names: Iterable<string>) => rendersWithFields(parsed, new Set(names), false);
  const any = fieldNames.map((_n, i) => i).filter((i) => renders([fieldNames[i]]));
  if (any.length) return ['any', any];
  const all = fieldNames.map((_n, i) => i).filter((i) => !renders(fieldNames.filter((_f, j) => j !== i)));
  return all.length && renders(fieldNames) ? ['all', all] : ['none', []];
}
