import assert from 'node:assert/strict';
import { newId, newIds } from '../../src/server/domain/library/ids';

/** Ids made in bulk (a large import) are the ids newId makes: random version-4 UUIDs in upper case. */
describe('ids made in bulk', function () {
  const V4 = /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/;

  it('have the form of newId: version 4, the RFC variant, upper-case hex', function () {
    assert.match(newId(), V4);
    const ids = newIds(20_000);
    assert.equal(ids.length, 20_000);
    for (const id of ids) assert.match(id, V4);
    assert.deepEqual(newIds(0), []);
  });

  it('are all different, and every hex digit is used where the bytes are random', function () {
    const ids = newIds(50_000);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set([...newIds(5), ...newIds(5)]).size, 10);
    // Each random position takes all 16 digits across 50,000 ids (a fixed or badly mapped nibble would not).
    for (const at of [0, 9, 15, 20, 35]) assert.equal(new Set(ids.map((id) => id[at])).size, 16, `position ${at}`);
  });
});
