import { request } from 'node:http';

export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = any>(): T;
}

/**
 * A request with full control of the headers (fetch will not send a foreign
 * Host), for the loopback-guard tests.
 */
export function rawRequest(
  port: number,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: opts.method, path: opts.path, headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
