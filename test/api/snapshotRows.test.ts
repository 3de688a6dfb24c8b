import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, crc32, deflateRawSync } from 'node:zlib';
import { UNNAMED_AGENT } from '../../src/server/actor';
import { linkNotes } from '../../src/server/domain/cards/noteLinks';
import { insertNote, recordOperation, reindexNote } from '../../src/server/domain/cards/noteRows';
import { currentCardsSince } from '../../src/server/domain/cards/cardEdits';
import {
  contentHash,
  parseContent,
  pickCards,
  readCards,
  readSnapshot,
  readSnapshotBytes,
} from '../../src/server/domain/cards/snapshotContent';
import { spliceContent } from '../../src/server/domain/cards/snapshotSplice';
import { SnapshotFiles } from '../../src/server/domain/cards/snapshotFiles';
import {
  decodeIndex,
  encodeIndex,
  ROW_SECTIONS,
  type RowIndex,
  rowsOf,
} from '../../src/server/domain/cards/snapshotIndex';
import { viewOf } from '../../src/server/domain/cards/snapshotView';
import { newId } from '../../src/server/domain/library/ids';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

/**
 * SBSNAP03 files carry a row index so a restore parses only the cards it
 * compares (snapshotIndex.ts, snapshotView.ts). Its partial reads must give
 * exactly what a full parse gives; older files must still restore; and a
 * damaged file, or an index that lies about which rows are whose, must be
 * reported as damage, never obeyed.
 */
describe('snapshot files with a row index (SBSNAP03): partial reads, older formats, damage', function () {
  this.timeout(120_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge({ store: { idleCheckpointMs: 0 } });
  });
  after(() => t.stop());

  const store = () => t.bridge.services.store;
  const post = (path: string, body: Record<string, unknown>) => t.client.raw('POST', path, { body });
  const snapshot = async (topicid: string) =>
    (await t.client.call('POST /study-sets/{id}/snapshots', { params: { id: topicid }, body: { description: 'rows' } }))
      .snapshotId;
  const hashOf = (snapshotId: string) =>
    store().get<{ h: string }>('SELECT content_hash AS h FROM snapshots WHERE snapshot_id = ?', [snapshotId])!.h;
  const fileOf = (snapshotId: string) => t.bridge.services.snapshotFiles.pathOf(hashOf(snapshotId));
  const retitle = async (noteid: string, text: string) => {
    const title = store().get<{ title: string }>('SELECT title FROM notes WHERE noteid = ?', [noteid])!.title;
    const res = await post(`/notes/${noteid}/title`, { text, expectedPrefix: title.slice(0, 32), confirm: true });
    assert.equal(res.status, 200, res.text());
  };
  const setHash = (topicid: string) => contentHash(readSnapshotBytes(store(), topicid));
  const files = () => {
    const dir = join(t.dataDir, 'snapshots');
    return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];
  };
  const now = '2024-01-01T00:00:00.000Z';
  // Text a row scan could trip over: the very sequence between rows, quotes, backslashes, CJK, an emoji, U+2028.
  const tricky = [
    '},{"noteid":"x"},{"noteid":',
    'a "quoted" \\ back\\slash \\"',
    '叶绿体的结构 😀 \u2028 end',
    '}]},"texts":[{',
  ];

  /** A set whose cards have texts (tricky ones too), tags, parts with blobs, links in and out of the set, a hidden card and a document. */
  async function makeSet(title: string, n = 12) {
    const set = await t.client.createStudySet(title);
    const other = await t.client.createStudySet(`${title} other`);
    const ids = Array.from({ length: n }, () => newId());
    const outside = newId();
    await store().write((tx) => {
      insertNote(tx, { noteid: outside, topicid: other.topicid, parentId: other.rootNoteId!, title: 'outside', now });
      ids.forEach((id, i) => {
        insertNote(tx, {
          noteid: id,
          topicid: set.topicid,
          parentId: set.rootNoteId!,
          title: `${title} ${i} ${tricky[i % tricky.length]}`,
          text: i % 3 ? tricky[(i + 1) % tricky.length] : undefined,
          now,
        });
        if (i % 2)
          tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 1, ?, 0, 'text')`, [
            id,
            `comment ${tricky[i % tricky.length]}`,
          ]);
        if (i % 4 === 1)
          tx.run(`INSERT INTO note_hashtags(noteid, path) VALUES (?, ?), (?, 'z/last')`, [id, `tag/${i}`, id]);
        if (i % 5 === 2)
          tx.run(
            `INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, data, blob) VALUES (?, ?, 0, 'image', 'image/png', '{"a":1}', x'00FF7B7D2C22')`,
            [newId(), id],
          );
        reindexNote(tx, id);
      });
      tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [ids[3]]);
      linkNotes(tx, ids[1], ids[2], now);
      linkNotes(tx, ids[4], outside, now);
      tx.run(`INSERT INTO topic_documents(topicid, bookmd5, position, is_main, added_at) VALUES (?, 'abc', 0, 1, ?)`, [
        set.topicid,
        now,
      ]);
      recordOperation(tx, { topicid: set.topicid, kind: 'create', actor: UNNAMED_AGENT, noteIds: ids, now });
    });
    return { topicid: set.topicid, root: set.rootNoteId!, ids };
  }

  it('a new snapshot file is SBSNAP03, and reading any cards through its index gives the rows a full parse gives', async () => {
    const s = await makeSet('Rows');
    const id = await snapshot(s.topicid);
    const hash = hashOf(id);
    assert.equal(readFileSync(fileOf(id)).subarray(0, 8).toString('latin1'), 'SBSNAP03');
    const fromFile = new SnapshotFiles(join(t.dataDir, 'snapshots')).open(hash); // read back, not the copy kept in memory
    assert.ok(fromFile.index, 'the file has a row index');
    const full = parseContent(fromFile.bytes.toString('utf8'));
    for (const stored of [fromFile, t.bridge.services.snapshotFiles.open(hash)]) {
      const view = viewOf(stored);
      assert.deepEqual(
        [...view.noteIds],
        full.notes.map((n) => n.noteid),
      );
      for (const sec of ROW_SECTIONS)
        assert.deepEqual(view.columns(sec), full[sec].length ? Object.keys(full[sec][0]) : [], sec);
      const all = full.notes.map((n) => n.noteid);
      const picks = [
        ...all.map((x) => [x]),
        all,
        [],
        ['not-a-card'],
        all.filter((_, i) => i % 3 === 0),
        [all[all.length - 1], all[0], 'not-a-card'],
      ];
      for (const ids of picks) assert.deepEqual(view.cards(new Set(ids)), pickCards(full, new Set(ids)), ids.join());
      assert.deepEqual(view.full(), full);
    }
  });

  it('a snapshot whose file is of an older format (SBSNAP02, SBSNAP01) previews and restores; putting its content again upgrades the file', async () => {
    for (const [magic, pack] of [
      ['SBSNAP02', (b: Buffer) => brotliCompressSync(b)],
      ['SBSNAP01', (b: Buffer) => deflateRawSync(b)],
    ] as const) {
      const s = await makeSet(`Old ${magic}`);
      const id = await snapshot(s.topicid);
      const want = setHash(s.topicid);
      const path = fileOf(id);
      const json = t.bridge.services.snapshotFiles.open(hashOf(id)).bytes;
      writeFileSync(path, fileBytes(magic, hashOf(id), pack(json)));
      await retitle(s.ids[0], 'renamed');
      await store().write((tx) => tx.run('DELETE FROM note_texts WHERE noteid = ?', [s.ids[1]]));
      const dry = await post(`/snapshots/${id}/restore`, { dryRun: true });
      assert.equal(dry.json<any>().error.code, 'CONFIRM_REQUIRED', dry.text());
      const restored = await post(`/snapshots/${id}/restore`, { confirm: true, force: true });
      assert.equal(restored.status, 200, restored.text());
      assert.equal(setHash(s.topicid), want, `${magic}: the set is the snapshot again`);
      assert.equal(readFileSync(path).subarray(0, 8).toString('latin1'), magic, 'read as it is');
      // The same content snapshotted again: the file gets its index.
      const again = await snapshot(s.topicid);
      assert.equal(hashOf(again), hashOf(id));
      assert.equal(readFileSync(path).subarray(0, 8).toString('latin1'), 'SBSNAP03');
      assert.equal(new SnapshotFiles(join(t.dataDir, 'snapshots')).read(hashOf(id)), json.toString('utf8'));
    }
  });

  it('the protection snapshot, built from the restored snapshot and the rows changed since, is byte for byte a fresh read (random edits of every kind)', async () => {
    const s = await makeSet('Splice', 30);
    const id = await snapshot(s.topicid);
    const view = viewOf(t.bridge.services.snapshotFiles.open(hashOf(id)));
    let seed = 11;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const live = [...s.ids];
    for (let round = 0; round < 12; round++) {
      await store().write((tx) => {
        for (let k = 0; k < 4; k++) {
          const card = live[rand(live.length)];
          switch (rand(8)) {
            case 0:
              tx.run('UPDATE notes SET title = ? WHERE noteid = ?', [`t ${round} ${tricky[rand(4)]}`, card]);
              break;
            case 1:
              tx.run(
                `INSERT OR REPLACE INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 5, ?, 0, 'text')`,
                [card, `c ${round}`],
              );
              break;
            case 2:
              tx.run('DELETE FROM note_texts WHERE noteid = ?', [card]);
              break;
            case 3:
              tx.run(`INSERT OR IGNORE INTO note_hashtags(noteid, path) VALUES (?, ?)`, [card, `r/${rand(3)}`]);
              break;
            case 4:
              tx.run(
                `INSERT INTO note_parts(content_id, noteid, idx, kind, blob) VALUES (?, ?, 1, 'image', x'7D2C7B')`,
                [newId(), card],
              );
              break;
            case 5: {
              const n = newId();
              insertNote(tx, {
                noteid: n,
                topicid: s.topicid,
                parentId: s.root,
                title: `new ${round}`,
                text: tricky[rand(4)],
                now,
              });
              live.push(n);
              break;
            }
            case 6:
              if (live.length > 5) {
                tx.run('DELETE FROM notes WHERE noteid = ?', [card]);
                live.splice(live.indexOf(card), 1);
              }
              break;
            default:
              linkNotes(tx, card, live[rand(live.length)], now);
          }
        }
      });
      const since = currentCardsSince(store(), s.topicid, id, view);
      const fresh = readSnapshot(store(), s.topicid);
      assert.ok(since.candidates, 'stamps are trusted');
      assert.ok(since.data.bytes.equals(fresh.bytes), `round ${round}: the same bytes`);
      const { idsJson: _a, ...spliced } = since.data.index!;
      const { idsJson: _b, ...read } = fresh.index!;
      assert.deepEqual(spliced, read, `round ${round}: the same index`);
      assert.ok(
        spliceContent(
          store(),
          s.topicid,
          view,
          since.candidates,
          since.candidates.size
            ? readCards(
                store(),
                s.topicid,
                [...since.candidates].filter((x) => since.ids.has(x)),
              )
            : undefined,
          since.ids,
        ),
        'built, not read',
      );
    }
    // Rows rendered by another SQLite may differ in bytes: then the set is read whole.
    const stored = t.bridge.services.snapshotFiles.open(hashOf(id));
    const other = viewOf({ bytes: stored.bytes, index: { ...stored.index!, sqlite: '3.0.0' } });
    assert.ok(
      spliceContent(store(), s.topicid, viewOf(stored), new Set(), undefined, new Set(other.noteIds)),
      'the same SQLite: built',
    );
    assert.equal(
      spliceContent(store(), s.topicid, other, new Set(), undefined, new Set(other.noteIds)),
      undefined,
      'another: read whole',
    );
    // A restore's protection snapshot holds exactly what the set held.
    const wanted = readSnapshotBytes(store(), s.topicid);
    const res = await post(`/snapshots/${id}/restore`, { confirm: true, force: true });
    assert.equal(res.status, 200, res.text());
    assert.equal(
      new SnapshotFiles(join(t.dataDir, 'snapshots')).read(hashOf(res.json<any>().protectionSnapshotId)),
      wanted.toString('utf8'),
    );
  });

  describe('a damaged SBSNAP03 file (checksum made to match) answers 422 SNAPSHOT_UNREADABLE and changes nothing', () => {
    type Damage = (f: { json: Buffer; index: Buffer; ix: RowIndex; a: number }) => { index?: Buffer; payload?: Buffer };
    const damages: Array<[string, Damage, RegExp, boolean]> = [
      [
        "its index's stream cut short",
        ({ json, index }) => {
          const z = brotliCompressSync(json);
          return { payload: Buffer.concat([u32(z.length), z, brotliCompressSync(index).subarray(0, 20)]) };
        },
        /decompress/,
        true,
      ],
      [
        'its index is cut short',
        ({ index }) => ({ index: index.subarray(0, index.length - 9) }),
        /cut short|does not fit|bytes past/,
        true,
      ],
      [
        'a row start moved by a byte',
        ({ ix }) => (ix.rows.texts.start[1]++, { index: encodeIndex(ix) }),
        /does not fit/,
        true,
      ],
      [
        'two card ids swapped',
        ({ ix }) => {
          [ix.ids[0], ix.ids[1]] = [ix.ids[1], ix.ids[0]];
          return { index: encodeIndex({ ...ix, idsJson: Buffer.from(JSON.stringify(ix.ids)) }) };
        },
        /out of order/,
        true,
      ],
      // Only the restore parses the rows: the edited card's text row said to be its neighbour's, and a neighbour's said to be the card's.
      [
        "a card's text row said to be the next card's",
        ({ ix, a }) => {
          const [first, end] = rowsOf(ix, 'texts', a);
          for (let r = first; r < end; r++) ix.rows.texts.note[r] = a + 1;
          return { index: encodeIndex(ix) };
        },
        /belongs to another card/,
        false,
      ],
      [
        "the previous card's text row said to be the card's",
        ({ ix, a }) => {
          const [first] = rowsOf(ix, 'texts', a);
          ix.rows.texts.note[first - 1] = a;
          return { index: encodeIndex(ix) };
        },
        /belongs to another card/,
        false,
      ],
      [
        'its JSON stream said to be longer than the payload',
        ({ json, index }) => ({
          payload: Buffer.concat([u32(json.length * 9), brotliCompressSync(json), brotliCompressSync(index)]),
        }),
        /past the payload/,
        true,
      ],
    ];
    for (const [what, damage, problem, previewToo] of damages) {
      it(`${what}${previewToo ? ': dry-run and restore' : ': the restore'} → 422; the set's other snapshot still restores`, async () => {
        const s = await makeSet(`Damaged ${what}`);
        const id = await snapshot(s.topicid);
        const path = fileOf(id);
        const { json, index } = unpack(readFileSync(path));
        const ix = decodeIndex(index, json);
        // A visible card with text rows, neither first nor last, with another card's rows before them; edited after the snapshot, so the restore reads its rows.
        const a = ix.ids.findIndex((x, k) => {
          const [first, end] = rowsOf(ix, 'texts', k);
          return s.ids.includes(x) && x !== s.ids[3] && k > 0 && k < ix.ids.length - 1 && first > 0 && end > first;
        });
        await retitle(ix.ids[a], 'edited after');
        const later = await snapshot(s.topicid);
        const d = damage({ json, index, ix, a });
        const z = brotliCompressSync(json);
        const payload = d.payload ?? Buffer.concat([u32(z.length), z, brotliCompressSync(d.index ?? index)]);
        writeFileSync(path, fileBytes('SBSNAP03', hashOf(id), payload));

        const digest = storeDigest(store());
        const before = files();
        for (const body of previewToo
          ? [{ dryRun: true }, { confirm: true, force: true }]
          : [{ confirm: true, force: true }]) {
          const r = await post(`/snapshots/${id}/restore`, body);
          assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text()}`);
          const e = r.json<any>().error;
          assert.equal(e.code, 'SNAPSHOT_UNREADABLE');
          assert.equal(e.details.reason, 'corrupt');
          assert.match(e.details.problem, problem);
          assert.match(e.message, /Nothing was changed/);
        }
        assert.equal(storeDigest(store()), digest, 'nothing changed in the store');
        assert.deepEqual(files(), before, 'no file written');
        const ok = await post(`/snapshots/${later}/restore`, { confirm: true, force: true });
        assert.equal(ok.status, 200, ok.text());
      });
    }
  });
});

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/** A snapshot file as snapshotFiles.ts writes it: magic, hash, payload length, crc32 of the payload, payload. */
function fileBytes(magic: string, hash: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(magic, 'latin1'),
    Buffer.from(hash, 'hex'),
    u32(payload.length),
    u32(crc32(payload)),
    payload,
  ]);
}

/** The JSON and the row index of an SBSNAP03 file. */
function unpack(file: Buffer): { json: Buffer; index: Buffer } {
  const payload = file.subarray(48);
  const n = payload.readUInt32LE(0);
  return {
    json: brotliDecompressSync(payload.subarray(4, 4 + n)),
    index: brotliDecompressSync(payload.subarray(4 + n)),
  };
}
