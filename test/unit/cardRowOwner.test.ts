import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../helpers/sourceFiles';

/**
 * One owner for card rows (docs/ARCHITECTURE.md, "Who writes card rows"):
 * only src/server/domain/cards/rows/ writes the card tables. The scan reads
 * the SQL in src/'s string and template literals (comments are not SQL) and
 * reports, outside the owner:
 *  - a write statement (INSERT, REPLACE, UPDATE, DELETE) naming a card table;
 *  - a write statement on an interpolated table (`DELETE FROM ${table}`) in a
 *    file that names a card table in a string of its own;
 *  - a call of a bulk writer (`insertRows(tx, 'notes', …)`, `updateRows`…)
 *    given a card table's name.
 */

const ROOT = path.resolve(__dirname, '../..');
const OWNER = 'src/server/domain/cards/rows/';
const CARD_TABLES = [
  'notes',
  'note_texts',
  'note_parts',
  'note_links',
  'note_hashtags',
  'notes_fts',
  'notes_fts_content',
];

/**
 * Statements on another database that has a `notes` table of its own: the
 * Anki collection (collection.anki2, a separate sql.js database inside the
 * .apkg) that the export builds. Each is the exact statement, read and
 * checked to run on that database (`db`), never on the store.
 */
const ANKI_COLLECTION_STATEMENTS: Record<string, string[]> = {
  'src/server/domain/decks/anki/ankiExport.ts': ['INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, ?)'],
};

const TABLE = `(?:${CARD_TABLES.join('|')})`;
const WRITE_HEAD = String.raw`(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+`;
const WRITE_CARD_TABLE = new RegExp(`\\b${WRITE_HEAD}["\`']?${TABLE}["\`']?(?![\\w$])`, 'gi');
const WRITE_DYNAMIC_TABLE = new RegExp(`\\b${WRITE_HEAD}\\$\\{`, 'gi');
const BULK_WRITER = /^(?:insert|update|delete|replace|upsert|write)\w*$/i;

export interface Finding {
  file: string;
  line: number;
  what: string;
}

/** The card-row writes in one source file's literals (see the rules above). */
export function cardRowWrites(file: string, text: string): Finding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const literals: { sql: string; pos: number }[] = [];
  const calls: { name: string; pos: number }[] = [];
  let namesCardTable = false;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      literals.push({ sql: node.text, pos: node.getStart(sf) });
      if (CARD_TABLES.includes(node.text)) namesCardTable = true;
    } else if (ts.isTemplateExpression(node)) {
      const sql = node.head.text + node.templateSpans.map((s) => '${…}' + s.literal.text).join('');
      literals.push({ sql, pos: node.getStart(sf) });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : '';
      const tableArg = node.arguments.some((a) => ts.isStringLiteralLike(a) && CARD_TABLES.includes(a.text));
      if (tableArg && BULK_WRITER.test(name)) calls.push({ name, pos: node.getStart(sf) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const allowed = ANKI_COLLECTION_STATEMENTS[file] ?? [];
  const out: Finding[] = [];
  for (const { sql, pos } of literals) {
    if (allowed.includes(sql)) continue;
    for (const m of sql.matchAll(WRITE_CARD_TABLE))
      out.push({ file, line: lineOf(pos), what: m[0].replace(/\s+/g, ' ') });
    if (namesCardTable)
      for (const m of sql.matchAll(WRITE_DYNAMIC_TABLE))
        out.push({ file, line: lineOf(pos), what: `${m[0].replace(/\s+/g, ' ')}…} (a card table named in this file)` });
  }
  for (const c of calls) out.push({ file, line: lineOf(c.pos), what: `${c.name}(…, card table)` });
  return out;
}

/** Findings outside the owner, counted per file. */
function outsideOwner(findings: readonly Finding[]): Map<string, Finding[]> {
  const byFile = new Map<string, Finding[]>();
  for (const f of findings) {
    if (f.file.startsWith(OWNER)) continue;
    byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  }
  return byFile;
}

const scanSrc = (): Finding[] =>
  sourceFiles(path.join(ROOT, 'src')).flatMap((p) =>
    cardRowWrites(path.relative(ROOT, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8')),
  );

describe('card rows have one owner (src/server/domain/cards/rows/)', () => {
  it('the scanner reports a stray card-row write outside the owner, and not inside it or in a comment', () => {
    const stray = 'export const f = (tx) => tx.run(`INSERT INTO notes (noteid, topicid) VALUES (?, ?)`, []);';
    const found = outsideOwner(cardRowWrites('src/server/domain/library/stray.ts', stray));
    assert.deepEqual([...found.keys()], ['src/server/domain/library/stray.ts']);
    assert.equal(outsideOwner(cardRowWrites(`${OWNER}stray.ts`, stray)).size, 0);
    assert.equal(cardRowWrites('src/x.ts', '// INSERT INTO notes (noteid) VALUES (?)\n').length, 0);
    // Reads and other tables are not writes of card rows.
    assert.equal(
      cardRowWrites('src/x.ts', "db.all('SELECT * FROM notes WHERE noteid = ?'); db.run('UPDATE notesx SET a = 1');")
        .length,
      0,
    );
    // The other forms: a multi-line template, an interpolated table, a bulk writer.
    const forms = [
      "tx.run(`\n  update  note_parts SET data = ? WHERE content_id = ${'x'}`, []);",
      "for (const t of ['note_texts']) tx.run(`DELETE FROM ${t} WHERE noteid = ?`, []);",
      "updateRows(tx, 'notes', 'noteid', ['title'], rows);",
      "tx.run('INSERT OR REPLACE INTO note_hashtags(noteid, path) VALUES (?, ?)', []);",
    ];
    for (const form of forms) assert.equal(cardRowWrites('src/x.ts', form).length, 1, form);
  });

  it('the Anki collection statements allowed are only the exact ones listed', () => {
    const [file, [statement]] = Object.entries(ANKI_COLLECTION_STATEMENTS)[0];
    assert.equal(cardRowWrites(file, `db.prepare('${statement}');`).length, 0);
    assert.equal(cardRowWrites(file, `db.prepare('INSERT INTO notes(noteid) VALUES (?)');`).length, 1);
    for (const [f, statements] of Object.entries(ANKI_COLLECTION_STATEMENTS)) {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      for (const s of statements) assert.ok(text.includes(s), `${f} no longer runs ${s}: drop it from the list`);
    }
  });

  it('no file outside the owner writes card tables', () => {
    const problems = [...outsideOwner(scanSrc()).values()].flat().map((f) => `${f.file}:${f.line} ${f.what}`);
    assert.deepEqual(problems, []);
  });
});
