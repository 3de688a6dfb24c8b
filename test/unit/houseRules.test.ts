import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../helpers/sourceFiles';

/**
 * The house rules that a reader of the code meets first (CONTRIBUTING.md):
 * functions under 80 lines, files under 300, every folder of src/ on the map.
 * Lines are counted as written (comments and blank lines included), from a function's
 * first line to its closing brace.
 */

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 300;

/**
 * Files over MAX_FILE_LINES when the rule came in, each with its length then as a ceiling:
 * they may shrink (lower the number, or drop the row once under the limit), never grow.
 */
const LONG_FILES: Record<string, number> = {};

/** Functions over MAX_FUNCTION_LINES when the rule came in, with the same kind of ceiling. */
const LONG_FUNCTIONS: Record<string, number> = {};

function folders(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) {
      const p = path.join(dir, e.name);
      out.push(p);
      folders(p, out);
    }
  return out;
}

const rel = (p: string): string => path.relative(ROOT, p).split(path.sep).join('/');

function lineCount(text: string): number {
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** A function's name as a reader finds it: its own, its variable's or property's, else its enclosing function's + '/<anonymous>'. */
function functionName(node: ts.Node, sf: ts.SourceFile): string {
  const own = (n: ts.Node): string | undefined => {
    const named = (n as { name?: ts.Node }).name;
    if (named) return named.getText(sf);
    const p = n.parent;
    if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)))
      return p.name.getText(sf);
    return undefined;
  };
  const name = own(node);
  if (name) return name;
  for (let p = node.parent; p; p = p.parent) if (ts.isFunctionLike(p)) return `${functionName(p, sf)}/<anonymous>`;
  return '<anonymous>';
}

/** Every function, method, arrow and accessor with a body, keyed `file:name`, with its length in lines. */
function functionLengths(files: string[]): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const key = `${rel(file)}:${functionName(node, sf)}`;
        lengths.set(key, Math.max(lengths.get(key) ?? 0, last - first + 1));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return lengths;
}

function overLimit(lengths: Map<string, number>, limit: number, ceilings: Record<string, number>): string[] {
  const problems: string[] = [];
  for (const [key, lines] of lengths) {
    const ceiling = ceilings[key];
    if (ceiling !== undefined && lines > ceiling)
      problems.push(`${key}: ${lines} lines, over its ceiling of ${ceiling}`);
    else if (ceiling !== undefined && lines <= limit)
      problems.push(`${key}: ${lines} lines, within the limit: drop it from the list`);
    else if (ceiling === undefined && lines > limit) problems.push(`${key}: ${lines} lines (limit ${limit})`);
  }
  return problems;
}

describe('house rules: sizes of src/ and the map of its folders', () => {
  const files = sourceFiles(SRC);

  it(`no function in src/ is over ${MAX_FUNCTION_LINES} lines (listed exceptions only shrink)`, () => {
    const lengths = functionLengths(files);
    assert.ok(lengths.size > 500, `${lengths.size} functions found`);
    assert.deepEqual(overLimit(lengths, MAX_FUNCTION_LINES, LONG_FUNCTIONS), []);
    for (const key of Object.keys(LONG_FUNCTIONS)) assert.ok(lengths.has(key), `${key} is listed but gone: drop it`);
  });

  it(`no file in src/ is over ${MAX_FILE_LINES} lines (listed exceptions only shrink)`, () => {
    const lengths = new Map(files.map((f) => [rel(f), lineCount(fs.readFileSync(f, 'utf8'))]));
    assert.deepEqual(overLimit(lengths, MAX_FILE_LINES, LONG_FILES), []);
    for (const key of Object.keys(LONG_FILES)) assert.ok(lengths.has(key), `${key} is listed but gone: drop it`);
  });

  it('no comment in src/ cites an issue number (the tracker is not in the repository: cite a doc or a test)', () => {
    const cites = files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bissues? #?\d+/i.test(line) ? [`${rel(f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(cites, []);
  });

  it('every folder under src/ is named in docs/ARCHITECTURE.md', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const all = folders(SRC).map(rel);
    assert.ok(all.length > 30, `${all.length} folders`);
    const missing = all.filter((f) => !doc.includes(`${f.replace(/^src\//, '')}/`));
    assert.deepEqual(missing, [], 'folders the architecture doc does not name (as `path/` below src/)');
  });

  it('the limits catch what they are for', () => {
    const lengths = new Map([
      ['a.ts:long', 81],
      ['a.ts:shrunk', 90],
      ['a.ts:grown', 101],
      ['a.ts:fixed', 80],
    ]);
    assert.deepEqual(overLimit(lengths, 80, { 'a.ts:shrunk': 95, 'a.ts:grown': 100, 'a.ts:fixed': 120 }), [
      'a.ts:long: 81 lines (limit 80)',
      'a.ts:grown: 101 lines, over its ceiling of 100',
      'a.ts:fixed: 80 lines, within the limit: drop it from the list',
    ]);
  });
});
