import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A loopback proxy in front of the bridge's /mcp that adds the bearer token,
 * for MCP tools that cannot send one (the conformance suite). Host and Origin
 * pass through as sent: a loopback Host only has its port turned into the
 * bridge's, so the bridge still judges every Host and Origin itself.
 */
export async function tokenProxy(
  bridgePort: number,
  token: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    const name = host.replace(/:\d+$/, '');
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (LOOPBACK.has(name)) headers.host = `${name}:${bridgePort}`;
    const upstream = request(
      { host: '127.0.0.1', port: bridgePort, method: req.method, path: `/bridge/v1${req.url}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
