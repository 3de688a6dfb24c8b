import assert from 'node:assert/strict';
import fc from 'fast-check';
import { subMapCounts, treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card } from '../helpers/libraryFixtures';

/**
 * Random sequences of structural edits over HTTP against the real bridge.
 * After every step the tree is valid (one root, no cycles, parents exist,
 * childCount / subMapId / depth / sub-map cardCount consistent); steps the
 * model knows to be invalid, and dry-runs, answer 4xx and change nothing;
 * valid steps answer 200 with their effect visible in the tree; a restore
 * gives back exactly the tree read when the snapshot was taken.
 * Seeded: PROP_SEED / PROP_RUNS reproduce or widen a run.
 */

const RUNS = Number(process.env.PROP_RUNS ?? 30);
const STEPS = 25;
const SEED = Number(process.env.PROP_SEED ?? 7_2026);
/** Above this many cards a copy is sent as a dry-run, so copies of the root cannot grow a set without bound. */
const MAX_CARDS = 120;
const UNKNOWN = '00000000-0000-4000-8000-00000000DEAD';

const pick = fc.nat({ max: 999 });
const dry = fc.nat({ max: 5 }).map((n) => n === 0); // about one step in six is a dry-run
const stepArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('create' as const), parent: pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('move' as const),
      cards: fc.array(pick, { minLength: 1, maxLength: 3 }),
      target: pick,
      dry,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('copy' as const),
      cards: fc.array(pick, { minLength: 1, maxLength: 2 }),
      target: pick,
      mode: fc.constantFrom('clone' as const, 'reference' as const),
      otherSet: fc.boolean(),
      dry,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      cards: fc.array(pick, { minLength: 1, maxLength: 2 }),
      dry,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('merge' as const), card: pick, recursive: fc.boolean(), dry }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('fold' as const), card: pick, undo: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('snapshot' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restore' as const), which: pick }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('unknown' as const),
      route: fc.constantFrom('move', 'delete', 'merge', 'fold'),
    }),
  },
);
type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;

interface Node {
  noteid: string;
  parent: string | null;
  childCount: number;
  subMapId: string | null;
  isSubMapRoot: boolean;
  depth: number;
  level: number;
  title: string;
}

/** What the runs exercised: each op that succeeded and each refusal code, so a generator that stopped reaching a case fails the test. */
const seen = new Map<string, number>();
const saw = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);

class Run {
  private snapshots: Array<{ snapshotId: string; tree: Node[] }> = [];
  private counter = 0;
  constructor(
    readonly t: TestBridge,
    readonly topicid: string,
    readonly rootNoteId: string,
    readonly other: { topicid: string; rootNoteId: string },
  ) {}

  async tree(topicid = this.topicid): Promise<Node[]> {
    return (await this.t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid } })).nodes;
  }

  /** The invariants, checked through the API, for one set. */
  async check(topicid: string, rootNoteId: string, where: string): Promise<Node[]> {
    const nodes = await this.tree(topicid);
    assert.deepEqual(treeViolations(nodes, rootNoteId), [], `${where}: tree invalid`);
    const subMaps = (await this.t.client.call('GET /study-sets/{id}/sub-maps', { params: { id: topicid } })).subMaps;
    const counts = subMapCounts(nodes);
    assert.deepEqual(
      subMaps.map((s) => [s.noteid, s.cardCount, s.depth]),
      nodes.filter((n) => n.isSubMapRoot).map((n) => [n.noteid, counts.get(n.noteid)!.descendants, n.depth]),
      `${where}: sub-maps disagree with the tree`,
    );
    return nodes;
  }

  post(path: string, body: Record<string, unknown>) {
    return this.t.client.raw('POST', path, { body });
  }

  /** A refused or dry-run request: 4xx with the expected code, and the store byte-identical. */
  async refused(path: string, body: Record<string, unknown>, codes: string[], where: string) {
    const before = storeDigest(this.t.bridge.services.store);
    const res = await this.post(path, body);
    assert.ok(res.status >= 400 && res.status < 500, `${where}: expected 4xx, got ${res.status} ${res.text()}`);
    assert.ok(
      codes.includes(res.json<any>().error.code),
      `${where}: code ${res.json<any>().error.code}, expected one of ${codes}`,
    );
    assert.equal(storeDigest(this.t.bridge.services.store), before, `${where}: a refused request changed the store`);
    saw(res.json<any>().error.code);
    return res.json<any>().error;
  }

  async ok(path: string, body: Record<string, unknown>, where: string) {
    const res = await this.post(path, { ...body, confirm: true });
    assert.equal(res.status, 200, `${where}: ${res.text()}`);
    saw(`${path.replace(/[0-9A-F-]{36}/g, '{id}')} ok`);
    return res.json<any>();
  }

  /**
   * Runs one step on the tree as last read; returns the check of its effect,
   * run on the tree read after it (one read per step serves both).
   */
  async step(s: Step, i: number, nodes: Node[]): Promise<((after: Node[]) => void) | void> {
    const at = (k: number) => nodes[k % nodes.length];
    const ids = (ks: number[]) => [...new Set(ks.map((k) => at(k).noteid))];
    const below = (id: string) => {
      const out = new Set<string>([id]);
      for (const n of nodes) if (n.parent && out.has(n.parent)) out.add(n.noteid); // pre-order: parents come first
      return out;
    };
    const where = `step ${i} ${JSON.stringify(s)}`;
    const root = this.rootNoteId;
    switch (s.op) {
      case 'create': {
        const parent = at(s.parent).noteid;
        const res = await this.ok(
          `/study-sets/${this.topicid}/notes`,
          { parentNoteId: parent, title: `card ${++this.counter}` },
          where,
        );
        return (after) => assert.equal(after.find((n) => n.noteid === res.noteid)?.parent, parent, where);
      }
      case 'move': {
        const cards = ids(s.cards);
        const target = at(s.target).noteid;
        const body = { noteIds: cards, targetParentNoteId: target };
        const invalid = cards.includes(root)
          ? 'ROOT_CARD'
          : cards.some((c) => below(c).has(target))
            ? 'WOULD_CREATE_CYCLE'
            : null;
        if (invalid) return void (await this.refused('/notes/move', { ...body, confirm: true }, [invalid], where));
        if (s.dry) return void (await this.refused('/notes/move', body, ['CONFIRM_REQUIRED'], where));
        await this.ok('/notes/move', body, where);
        return (after) => {
          for (const c of cards) assert.equal(after.find((n) => n.noteid === c)?.parent, target, where);
          assert.equal(after.length, nodes.length, where);
        };
      }
      case 'copy': {
        const cards = ids(s.cards);
        const target = s.otherSet ? this.other.rootNoteId : at(s.target).noteid;
        const body = { noteIds: cards, targetParentNoteId: target, mode: s.mode };
        const covered = cards.filter((c) => cards.some((a) => a !== c && below(a).has(c)));
        const added = cards.filter((c) => !covered.includes(c)).reduce((sum, c) => sum + below(c).size, 0);
        const into = s.otherSet ? this.other.topicid : this.topicid;
        const before = s.otherSet ? (await this.tree(into)).length : nodes.length;
        if (s.dry || before + added > MAX_CARDS) {
          const err = await this.refused('/notes/copy', body, ['CONFIRM_REQUIRED'], where);
          assert.equal(
            err.details.wouldCopy.reduce((sum: number, w: any) => sum + w.descendants + 1, 0),
            added,
            where,
          );
          assert.deepEqual(err.details.skipped.map((x: any) => x.noteid).sort(), [...covered].sort(), where);
          return;
        }
        const res = await this.ok('/notes/copy', body, where);
        assert.equal(
          res.copies.reduce((sum: number, c: any) => sum + c.cardCount, 0),
          added,
          where,
        );
        if (!s.otherSet) return (after) => assert.equal(after.length, before + added, where);
        const otherAfter = await this.check(this.other.topicid, this.other.rootNoteId, `${where} (other set)`);
        assert.equal(otherAfter.length, before + added, where);
        return;
      }
      case 'delete': {
        const cards = ids(s.cards);
        if (cards.includes(root))
          return void (await this.refused('/notes/delete', { noteIds: cards, confirm: true }, ['ROOT_CARD'], where));
        if (s.dry) return void (await this.refused('/notes/delete', { noteIds: cards }, ['CONFIRM_REQUIRED'], where));
        const res = await this.ok('/notes/delete', { noteIds: cards }, where);
        assert.deepEqual(
          res.deleted.map((d: any) => d.noteid),
          cards,
          where,
        );
        return (after) => {
          assert.equal(after.length, nodes.length - cards.length, where);
          assert.ok(!after.some((n) => cards.includes(n.noteid)), where);
        };
      }
      case 'merge': {
        const card = at(s.card).noteid;
        const path = `/notes/${card}/merge-branch`;
        if (s.dry) {
          const err = await this.refused(path, { recursive: s.recursive }, ['CONFIRM_REQUIRED'], where);
          assert.ok(Array.isArray(err.details.willMerge), where);
          return;
        }
        const res = await this.ok(path, { recursive: s.recursive }, where);
        if (!s.recursive) assert.equal(res.merged.length + res.skipped.length, at(s.card).childCount, where);
        return (after) => {
          assert.equal(after.length, nodes.length - res.merged.length, where);
          assert.ok(
            after.some((n) => n.noteid === card),
            where,
          );
          assert.ok(!after.some((n) => res.merged.includes(n.noteid)), where);
        };
      }
      case 'fold': {
        const n = at(s.card);
        const path = `/notes/${n.noteid}/fold-into-sub-map`;
        const invalid =
          n.noteid === root
            ? 'ROOT_CARD'
            : s.undo
              ? n.isSubMapRoot
                ? null
                : 'NOT_A_SUB_MAP'
              : n.childCount
                ? null
                : 'NO_CHILDREN';
        if (invalid) return void (await this.refused(path, { undo: s.undo, confirm: true }, [invalid], where));
        const res = await this.ok(path, { undo: s.undo }, where);
        assert.equal(res.isSubMapRoot, !s.undo, where);
        return (after) => assert.equal(after.find((x) => x.noteid === n.noteid)?.isSubMapRoot, !s.undo, where);
      }
      case 'snapshot': {
        const res = await this.t.client.call('POST /study-sets/{id}/snapshots', {
          params: { id: this.topicid },
          body: { description: `step ${i}` },
        });
        assert.equal(res.noteCount, nodes.length, where);
        this.snapshots.push({ snapshotId: res.snapshotId, tree: nodes });
        return;
      }
      case 'restore': {
        if (!this.snapshots.length) return;
        const snap = this.snapshots[s.which % this.snapshots.length];
        await this.ok(`/snapshots/${snap.snapshotId}/restore`, { force: true }, where);
        return (after) => assert.deepEqual(after, snap.tree, `${where}: restore did not give back the snapshot's tree`);
      }
      case 'unknown': {
        const path = {
          move: '/notes/move',
          delete: '/notes/delete',
          merge: `/notes/${UNKNOWN}/merge-branch`,
          fold: `/notes/${UNKNOWN}/fold-into-sub-map`,
        }[s.route];
        const body = {
          move: { noteIds: [UNKNOWN], targetParentNoteId: root },
          delete: { noteIds: [UNKNOWN] },
          merge: {},
          fold: {},
        }[s.route];
        await this.refused(path, { ...body, confirm: true }, ['NOTE_NOT_FOUND'], where);
        return;
      }
    }
  }
}

describe('card tree property: random structural edits keep the tree valid', function () {
  this.timeout(180_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it(`${RUNS} runs × ${STEPS} steps of create/move/copy/delete/merge/fold-into-sub-map/snapshot/restore`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 99 }), { minLength: 3, maxLength: 8 }),
        fc.array(stepArb, { minLength: STEPS, maxLength: STEPS }),
        async (shape, steps) => {
          run++;
          const set = await t.client.createStudySet(`Property ${run}`);
          const other = await t.client.createStudySet(`Property ${run} other`);
          const r = new Run(t, set.topicid, set.rootNoteId!, { topicid: other.topicid, rootNoteId: other.rootNoteId! });
          // A generated starting tree: card k hangs under one of the cards before it.
          const made = [set.rootNoteId!];
          for (const [k, p] of shape.entries()) {
            made.push(await card(t, set.topicid, { parentNoteId: made[p % made.length], title: `start ${k}` }));
          }
          let nodes = await r.check(set.topicid, set.rootNoteId!, 'start');
          for (const [i, s] of steps.entries()) {
            const effect = await r.step(s, i, nodes);
            nodes = await r.check(set.topicid, set.rootNoteId!, `after step ${i} ${JSON.stringify(s)}`);
            effect?.(nodes);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    const expected = [
      ...[
        '/study-sets/{id}/notes',
        '/notes/move',
        '/notes/copy',
        '/notes/delete',
        '/notes/{id}/merge-branch',
        '/notes/{id}/fold-into-sub-map',
        '/snapshots/{id}/restore',
      ].map((p) => `${p} ok`),
      ...['ROOT_CARD', 'WOULD_CREATE_CYCLE', 'NO_CHILDREN', 'NOT_A_SUB_MAP', 'CONFIRM_REQUIRED', 'NOTE_NOT_FOUND'],
    ];
    assert.deepEqual(
      expected.filter((k) => !seen.has(k)),
      [],
      `cases never reached: ${JSON.stringify([...seen])}`,
    );
  });
});
