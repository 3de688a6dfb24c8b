import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BridgeClient, BridgeClientError } from './client/bridgeClient';
import { createBridge } from './server/bridge';
import { APPROVAL_POLICIES, type ApprovalPolicy } from './server/domain/approvals/approvalService';
import { premiumFromEnv } from './server/entitlements';
import { BridgeError } from './server/errors';
import { serverErrorLine } from './server/api/http/errorMapper';
import { recoveryLine } from './server/ground/store/recoveryReport';

const USAGE = `Usage:
  study-bridge serve [--data DIR] [--port N] [--no-premium] [--log] [--max-upload-mb N] [--max-pages N] [--import-folders A:B]
      [--ankiconnect-port N] [--ankiconnect-allowed-origins O1,O2] [--approvals destructive|all-writes|never]
      Serve the library in DIR (default ~/.study-bridge) on 127.0.0.1.
      Port: 42380 or the next free one up to 42399; --port 0 picks any free port.
      Uploads over N MB answer 413 (default 1024); PDFs over N pages 422 (default 10000).
      PDFs may be imported by path from the library and A:B (default ~/Documents:~/Downloads).
      --ankiconnect-port N also serves AnkiConnect's protocol (v6) on 127.0.0.1:N (8765 is what tools expect;
      0: any free port, written to bridge.json as ankiConnectPort); its "key" is a bridge token.
      --ankiconnect-allowed-origins O1,O2 lets these browser origins in (e.g. chrome-extension://<id>).
  study-bridge install-code [--data DIR] [--scope read|write] [--name NAME]
      Print a one-time agent setup command (valid 10 minutes, once). It gives the agent
      its own token named NAME (default "installed agent") with the scope (default write;
      read: reads and dry-runs only). Revoke it in VS Code (Connected Agents).
  study-bridge pair-code [--data DIR] [--scope read|write]
      Print a 6-digit pairing code (valid 5 minutes, once) for a token of that scope.`;

/** How long a stop (SIGTERM, SIGINT) waits for running requests and the store before the process ends anyway. */
const STOP_GRACE_MS = 1800;
const defaultDataDir = () => process.env.STUDY_BRIDGE_DATA || join(homedir(), '.study-bridge');

function fail(message: string, code = 1): never {
  process.stderr.write(`study-bridge: ${message}\n`);
  process.exit(code);
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      port: { type: 'string' },
      'no-premium': { type: 'boolean', default: false },
      log: { type: 'boolean', default: false },
      'max-upload-mb': { type: 'string' },
      'max-pages': { type: 'string' },
      'import-folders': { type: 'string' },
      'ankiconnect-port': { type: 'string' },
      'ankiconnect-allowed-origins': { type: 'string' },
      approvals: { type: 'string', default: 'never' },
    },
  });
  const positive = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) fail(`bad --${flag} ${v}: a whole number ≥ 1`, 2);
    return n;
  };
  const maxUploadMb = positive('max-upload-mb', values['max-upload-mb']);
  const maxPages = positive('max-pages', values['max-pages']);
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) fail(`bad --port ${values.port}`, 2);
  const ankiPort = values['ankiconnect-port'] === undefined ? undefined : Number(values['ankiconnect-port']);
  if (ankiPort !== undefined && (!Number.isInteger(ankiPort) || ankiPort < 0 || ankiPort > 65535))
    fail(`bad --ankiconnect-port ${values['ankiconnect-port']}`, 2);
  if (values['ankiconnect-allowed-origins'] !== undefined && ankiPort === undefined)
    fail('--ankiconnect-allowed-origins needs --ankiconnect-port', 2);
  const ankiOrigins =
    values['ankiconnect-allowed-origins']
      ?.split(',')
      .map((o) => o.trim())
      .filter(Boolean) ?? [];
  const approvals = values.approvals as ApprovalPolicy;
  if (!APPROVAL_POLICIES.includes(approvals))
    fail(`bad --approvals ${values.approvals}: destructive, all-writes or never`, 2);
  const premium = values['no-premium'] ? false : (premiumFromEnv() ?? true);
  let bridge;
  try {
    bridge = await createBridge({
      dataDir: resolve(values.data ?? defaultDataDir()),
      port,
      premium,
      approvals,
      importFolders: values['import-folders']
        ?.split(delimiter)
        .filter(Boolean)
        .map((f) => resolve(f)),
      ...(ankiPort !== undefined ? { ankiConnect: { port: ankiPort, allowedOrigins: ankiOrigins } } : {}),
      limits: { ...(maxUploadMb ? { uploadBytes: maxUploadMb * 1024 * 1024 } : {}), ...(maxPages ? { maxPages } : {}) },
      onRequest: values.log ? (e) => process.stderr.write(`${e.method} ${e.path} ${e.status} ${e.ms}ms\n`) : undefined,
      onError: (e) => process.stderr.write(`${serverErrorLine(e)}\n`),
    });
  } catch (e) {
    if (e instanceof BridgeError) fail(e.message, e.code === 'DATA_DIR_LOCKED' ? 3 : 1);
    throw e;
  }
  const recovered = recoveryLine(bridge.services.store.recovery);
  if (recovered) process.stderr.write(`${recovered}\n`);
  process.stdout.write(`Study Bridge listening on ${bridge.baseUrl}\n`);
  if (bridge.ankiConnectPort !== undefined)
    process.stdout.write(`AnkiConnect (v6) on http://127.0.0.1:${bridge.ankiConnectPort}\n`);
  stopOnSignals(bridge);
}

/**
 * SIGINT/SIGTERM close the bridge; a stop is honoured within STOP_GRACE_MS even while a request runs. The store
 * is journaled, so ending mid-write loses nothing acknowledged (the next start replays or drops the unfinished
 * transaction).
 */
function stopOnSignals(bridge: { close(): Promise<void> }): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`Study Bridge stopped after ${STOP_GRACE_MS} ms with work still running\n`);
      process.exit(0);
    }, STOP_GRACE_MS).unref();
    await bridge.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

async function issueCode(argv: string[], kind: 'install' | 'pair'): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, scope: { type: 'string', default: 'write' }, name: { type: 'string' } },
  });
  const dataDir = resolve(values.data ?? defaultDataDir());
  const scope = values.scope;
  if (scope !== 'read' && scope !== 'write') fail(`bad --scope ${scope}: read or write`, 2);
  const name = values.name?.trim() || undefined;
  let client: BridgeClient;
  try {
    client = BridgeClient.fromDataDir(dataDir);
  } catch {
    fail(
      `no running bridge found in ${dataDir} (no bridge.json or token). Start one with: study-bridge serve --data ${dataDir}`,
    );
  }
  try {
    if (kind === 'install') {
      const c = await client.createInstallCode({ name, scope });
      process.stdout.write(
        `Paste this into the agent's terminal (valid until ${c.expiresAt}, once); it gets a ${c.scope} token named "${c.name}":\n\n  ${c.command}\n\nThen, for Claude Code over MCP:\n\n  ${c.mcpCommand}\n`,
      );
    } else {
      const c = await client.createPairCode({ name, scope });
      process.stdout.write(
        `Pairing code: ${c.code} (valid until ${c.expiresAt}, once)\nThe device sends: POST ${c.pairUrl} {"code":"${c.code}","deviceName":"..."}\n`,
      );
    }
  } catch (e) {
    if (e instanceof BridgeClientError) fail(e.message);
    fail(`the bridge in ${dataDir} does not answer (${(e as Error).message}); is it running?`);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'install-code':
      return issueCode(rest, 'install');
    case 'pair-code':
      return issueCode(rest, 'pair');
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return;
    default:
      fail(`unknown command "${command}"\n${USAGE}`, 2);
  }
}

main(process.argv.slice(2)).catch((e) => fail((e as Error)?.stack ?? String(e)));
