import assert from 'node:assert/strict';
import type { Database } from 'sql.js';
import { openDatabase, runStatement, sqliteCApi } from '../../src/server/ground/store/sqlite';
import { stmtPointer } from '../../src/server/ground/store/sqliteCApi';
import type { SqlParam } from '../../src/server/ground/store/journal';

/**
 * Writes bind through SQLite's C API (sqliteBind.ts): what is stored and
 * what is refused must be what sql.js's own API gives.
 */

const VALUES: SqlParam[] = [
  '',
  'plain',
  'café',
  '光合作用',
  'emoji 🧪 pair',
  'nul\u0000inside',
  'x'.repeat(100_000),
  0,
  -0,
  1,
  -1,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 53,
  1.5,
  -0.1,
  1e300,
  NaN,
  Infinity,
  -Infinity,
  null,
  new Uint8Array(0),
  new Uint8Array([0, 1, 255]),
  new Uint8Array(70_000).fill(7),
];

const read = (db: Database) =>
  db.exec(
    'SELECT typeof(a), quote(a), typeof(t), quote(t), typeof(i), quote(i), typeof(r), quote(r) FROM v ORDER BY k',
  )[0]?.values;

async function twoDatabases(): Promise<[Database, Database]> {
  const [a, b] = [await openDatabase(), await openDatabase()];
  for (const db of [a, b])
    db.exec('CREATE TABLE v (k INTEGER PRIMARY KEY, a, t TEXT, i INTEGER, r REAL, u TEXT UNIQUE)');
  return [a, b];
}

describe('SQLite through its C API: binding', function () {
  it('is the path writes take here (the statement pointer is found)', async function () {
    const db = await openDatabase();
    const api = sqliteCApi();
    assert.ok(api, 'sql.js exports the C functions');
    const sql = 'SELECT 1 AS one';
    const stmt = db.prepare(sql);
    assert.equal(typeof stmtPointer(api, stmt, sql), 'number');
    stmt.free();
    db.close();
  });

  it('stores every kind of value as sql.js binds it', async function () {
    const [raw, own] = await twoDatabases();
    const sql = 'INSERT INTO v(k, a, t, i, r) VALUES (?, ?, ?, ?, ?)';
    VALUES.forEach((v, k) => {
      runStatement(raw, sql, [k, v, v, v, v]);
      own.run(sql, [k, v, v, v, v]);
    });
    const got = read(raw);
    assert.equal(got?.length, VALUES.length);
    assert.deepEqual(got, read(own));
    raw.close();
    own.close();
  });

  it('a multi-row statement of thousands of parameters, and one kept for the next run', async function () {
    const [raw, own] = await twoDatabases();
    const rows = 400;
    const sql = `INSERT INTO v(k, a, t, i, r) VALUES ${Array.from({ length: rows }, () => '(?,?,?,?,?)').join(',')}`;
    for (const start of [0, rows]) {
      const params = Array.from({ length: rows }, (_, j) => [start + j, `a${j}`, `t${start + j}`, j * 3, j / 7]).flat();
      runStatement(raw, sql, params);
      own.run(sql, params);
    }
    assert.deepEqual(read(raw), read(own));
    raw.close();
    own.close();
  });

  it("refuses as sql.js does: SQLite's own message, nothing kept, the statement usable after", async function () {
    const [raw, own] = await twoDatabases();
    const sql = 'INSERT INTO v(k, u) VALUES (?, ?)';
    runStatement(raw, sql, [1, 'same']);
    own.run(sql, [1, 'same']);
    const ownError = (() => {
      try {
        own.run(sql, [2, 'same']);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    assert.match(ownError ?? '', /UNIQUE constraint failed: v\.u/);
    assert.throws(() => runStatement(raw, sql, [2, 'same']), { message: ownError });
    runStatement(raw, sql, [3, 'other']);
    assert.deepEqual(raw.exec('SELECT k, u FROM v ORDER BY k')[0].values, [
      [1, 'same'],
      [3, 'other'],
    ]);
    assert.throws(() => runStatement(raw, sql, [4, undefined as unknown as SqlParam]), /Wrong API use/);
    raw.close();
    own.close();
  });
});
