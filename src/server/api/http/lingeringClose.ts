import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused body may keep arriving after its answer before the socket is cut. */
const LINGER_MS = 10_000;

/**
 * An answer given before the request body is all in (413, a refused upload)
 * on a connection the client asked to close: Node would destroy the socket
 * right after the answer, and the client, still sending, gets EPIPE or a
 * reset that can discard the answer from its receive buffer. Instead the
 * bridge half-closes (the answer is flushed, then FIN) and keeps reading and
 * dropping the body until the client closes or LINGER_MS pass: the
 * "lingering close" of RFC 9112 §9.6. Memory stays bounded (nothing is kept).
 */
export function lingerIfBodyPending(req: IncomingMessage): void {
  if (req.complete) return;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed || (socket as { lingering?: boolean }).lingering) return;
  (socket as { lingering?: boolean }).lingering = true;
  socket.destroySoon = () => {
    socket.end();
    socket
      .on('data', () => undefined)
      .on('error', () => undefined)
      .resume();
    const cut = setTimeout(() => socket.destroy(), LINGER_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut)).once('end', () => socket.destroy());
  };
}
