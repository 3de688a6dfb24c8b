import assert from 'node:assert/strict';
import { SseParser, type ServerSentEvent } from '../../src/client/sseParser';

describe('SseParser (text/event-stream)', () => {
  const parse = (chunks: string[]) => {
    const events: ServerSentEvent[] = [];
    const comments: string[] = [];
    const p = new SseParser(
      (e) => events.push(e),
      (c) => comments.push(c),
    );
    for (const c of chunks) p.push(c);
    return { events, comments };
  };

  it('fields split across chunks, CRLF and CR line ends, comments, multi-line data', () => {
    const { events, comments } = parse([
      'event: ca',
      'rd\r',
      '\nid: 7\r\ndata: {"a"',
      ':1}\n\n: ping\n\n',
      'data: x\rdata: y\r\r',
    ]);
    assert.deepEqual(events, [
      { event: 'card', data: '{"a":1}', id: '7' },
      { event: 'message', data: 'x\ny', id: '7' },
    ]);
    assert.deepEqual(comments, ['ping']);
  });

  it('the id persists across events until a new one; an event without data is not dispatched', () => {
    const { events } = parse(['event: open\nid: 3\n\nevent: set\ndata: 1\n\nid: 4\nevent: deck\ndata: 2\n\n']);
    assert.deepEqual(
      events.map((e) => [e.event, e.id]),
      [
        ['set', '3'],
        ['deck', '4'],
      ],
    );
  });

  it('nothing is dispatched before the blank line', () => {
    assert.deepEqual(parse(['event: card\ndata: 1\n']).events, []);
  });
});
