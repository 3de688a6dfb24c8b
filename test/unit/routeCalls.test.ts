import assert from 'node:assert/strict';
import { callRoute, routePath } from '../../src/client/routeCalls';
import type { Requester, RequestOptions } from '../../src/client/requester';

describe('typed route calls (client/routeCalls.ts)', () => {
  it('fills each {name} of the key URL-encoded, and refuses a key whose parameter has no value', () => {
    assert.deepEqual(routePath('GET /decks/{id}/stats', { id: 'a b/c' }), {
      method: 'GET',
      path: '/decks/a%20b%2Fc/stats',
    });
    assert.deepEqual(routePath('POST /notes/batch-get'), { method: 'POST', path: '/notes/batch-get' });
    assert.throws(() => routePath('GET /decks/{id}/stats', {}), /no value for the path parameter \{id\}/);
  });

  it('sends the method, path, query and body through the requester, without the params', async () => {
    const sent: [string, string, RequestOptions | undefined][] = [];
    const requester: Requester = {
      request: <T>(method: 'GET' | 'POST', path: string, opts?: RequestOptions) => {
        sent.push([method, path, opts]);
        return Promise.resolve({ bridgeApiVersion: '1' } as T);
      },
      raw: () => Promise.reject(new Error('not used')),
    };
    await callRoute(requester, 'GET /decks/{id}/stats', { params: { id: 'd1' }, query: { forecastDays: 90 } });
    await callRoute(requester, 'POST /notes/batch-get', { body: { noteIds: ['n1'] } });
    assert.deepEqual(sent, [
      ['GET', '/decks/d1/stats', { query: { forecastDays: 90 } }],
      ['POST', '/notes/batch-get', { body: { noteIds: ['n1'] } }],
    ]);
  });

  it('types keys, params and bodies by the route table (a wrong one does not compile)', () => {
    const requester = {} as Requester;
    const never = () => {
      // @ts-expect-error: no such route
      void callRoute(requester, 'GET /no/such/route');
      // @ts-expect-error: the batch-get body needs noteIds as strings
      void callRoute(requester, 'POST /notes/batch-get', { body: { noteIds: [1] } });
      // @ts-expect-error: the answer has no field `nope`
      void callRoute(requester, 'GET /decks/{id}/stats', { params: { id: 'd' } }).then((s) => s.nope);
    };
    assert.equal(typeof never, 'function');
  });
});
