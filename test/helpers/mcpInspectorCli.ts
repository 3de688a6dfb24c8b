// The official MCP Inspector in CLI mode (Streamable HTTP) as an MCP client of a test bridge.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { TestBridge } from './bridgeFixture';
import { projectRoot } from './childBridge';

const inspectorBin = join(projectRoot, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
}

/** One Inspector CLI run; its stdout is the JSON answer of the method. `size`: the bytes it printed. */
export function inspector(t: TestBridge, args: string[]): Promise<any> {
  const argv = [
    inspectorBin,
    '--cli',
    `${t.bridge.baseUrl}/mcp`,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${t.bridge.token}`,
    // The bridge is up already: its default 15 s connect timeout only measures how busy the machine is.
    '--connect-timeout',
    '60000',
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { timeout: 120_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      // Exit code 5: the tool answered isError:true (said on stderr); the result is still on stdout.
      const toolError = err?.code === 5 && stderr.includes('"tool_is_error"');
      if (err && !toolError)
        return reject(
          new Error(
            `mcp-inspector ${args.join(' ').slice(0, 300)} failed (${err.code ?? err.signal}): ${stderr}${stdout}`,
          ),
        );
      try {
        const out = JSON.parse(stdout);
        Object.defineProperty(out, 'size', { value: Buffer.byteLength(stdout), enumerable: false });
        resolve(out);
      } catch {
        reject(new Error(`mcp-inspector printed no JSON: ${stdout} ${stderr}`));
      }
    });
  });
}

export const callTool = (t: TestBridge, tool: string, toolArgs: string[]): Promise<ToolResult & { size: number }> =>
  inspector(t, ['--method', 'tools/call', '--tool-name', tool, ...toolArgs.flatMap((a) => ['--tool-arg', a])]);

export const textOf = (r: ToolResult) => {
  assert.equal(r.content[0].type, 'text', JSON.stringify(r).slice(0, 300));
  return r.content[0].text!;
};

/** A tool call with its arguments as one JSON object (numbers and nested objects sent as such). */
export const callToolJson = (
  t: TestBridge,
  tool: string,
  toolArgs: Record<string, unknown>,
): Promise<ToolResult & { size: number }> =>
  inspector(t, ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(toolArgs)]);
