/** Negatives of the anchoring set: invented sentences in the books' vocabulary, and paraphrases of real ones. */
import { rng } from './rng';

const SUBJECTS = [
  'The matrix',
  'Every lattice basis',
  'A closed path',
  'The default pen',
  'This command',
  'The output file',
  'Each picture',
  'The integer program',
  'A Markov basis',
  'The label',
  'Our compiler',
  'The graph of the function',
];
const VERBS = [
  'quietly rotates',
  'never computes',
  'is drawn beside',
  'replaces',
  'may ignore',
  'is stored inside',
  'always doubles',
  'carefully rewrites',
  'slowly converges to',
  'is printed after',
];
const OBJECTS = [
  'the orange hyperplane',
  'every second vertex of the figure',
  'a temporary directory of fonts',
  'the hidden margin notes',
  'the last column of the table',
  'seven dotted arrows',
  'the inverse of the projection',
  'a random polytope in three dimensions',
  'the previous chapter of this guide',
  'an empty bounding box',
];
const TAILS = [
  'before the document is closed.',
  'unless the user asks otherwise.',
  'when the page is rotated twice.',
  'in every interactive session.',
  'without any warning at all.',
  'as described in the appendix.',
];

const HAND = [
  'Quantum bananas orbit the purple spreadsheet at dawn.',
  'The committee postponed the picnic because the river was singing too loudly.',
  'Seven librarians painted the staircase with invisible ink last winter.',
  'A polite volcano asked the harbour master for a second cup of tea.',
  'Every morning the lighthouse counts the seagulls twice and writes the sum on a sail.',
  'The orchestra tuned its violins to the frequency of the refrigerator.',
  'Our neighbour keeps a collection of broken compasses that all point to the bakery.',
  'In the spring the museum lends its dinosaurs to the local football team.',
  'The algorithm prefers green triangles on Tuesdays and ignores them otherwise.',
  'Nobody remembers why the bridge was painted with recipes for lemon cake.',
];

/** 100+ sentences: ten written by hand, the rest from a seeded grammar over the books' kind of words. */
export const INVENTED: string[] = (() => {
  const random = rng(99);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const out = [...HAND];
  const seen = new Set(out);
  while (out.length < 110) {
    const s = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(TAILS)}`;
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
})();

const SYNONYMS: Record<string, string> = {
  the: 'a',
  a: 'the',
  is: 'was',
  are: 'were',
  of: 'for',
  in: 'within',
  to: 'into',
  and: 'plus',
  for: 'regarding',
  with: 'using',
  can: 'may',
  be: 'get',
  this: 'that',
  that: 'which',
  by: 'via',
  on: 'upon',
  as: 'like',
  it: 'this',
  from: 'out of',
  which: 'that',
  use: 'employ',
  used: 'employed',
  file: 'document',
  files: 'documents',
  number: 'count',
  first: 'initial',
  line: 'row',
  lines: 'rows',
  function: 'routine',
  path: 'route',
  picture: 'image',
  draw: 'render',
  drawn: 'rendered',
  page: 'sheet',
  default: 'standard',
  set: 'collection',
  given: 'supplied',
  all: 'every',
  each: 'every',
  not: 'never',
  also: 'too',
  command: 'instruction',
  output: 'result',
  input: 'data',
  example: 'instance',
  following: 'next',
  called: 'named',
  point: 'location',
  points: 'locations',
  size: 'extent',
  new: 'fresh',
};

/**
 * A paraphrase of a real sentence: words swapped for synonyms (or dropped
 * when there is none) until at least 40 % of them changed, a filler word
 * added, and the two halves turned around.
 */
export function paraphrase(text: string, random: () => number): string {
  const words = text.split(' ');
  const out: string[] = [];
  let changed = 0;
  for (const w of words) {
    const syn = SYNONYMS[w.toLowerCase()];
    if (syn) {
      out.push(syn);
      changed++;
    } else out.push(w);
  }
  for (let i = 0; changed < Math.ceil(words.length * 0.4) && i < out.length; i += 2) {
    if (out[i] === words[i] && random() < 0.7) {
      out[i] = '';
      changed++;
    }
  }
  const kept = out.filter(Boolean);
  const mid = Math.floor(kept.length / 2);
  return [...kept.slice(mid), 'essentially', ...kept.slice(0, mid)].join(' ');
}
