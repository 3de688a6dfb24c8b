// `npm run test:vscode`: the extension suite (test/extension/suite) in desktop
// VS Code through @vscode/test-electron, as the design names it. Needs a
// machine that can download VS Code (update.code.visualstudio.com) or a local
// one (VSCODE_EXECUTABLE_PATH, or a copy cached in .vscode-test/). Where
// neither exists it says so within seconds and exits 2; CI's runner is then
// `npm run test:extension` (the same suite in code-server + Chromium).
//
//   VSCODE_TEST_VERSION=1.101.0   version to download (default: the engines minimum)
//   VSCODE_EXECUTABLE_PATH=…      use an installed VS Code, download nothing
//
// Output: test-output/vscode/ (results.json, suite.log, summary.json).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

const root = resolve(__dirname, '..', '..');
const out = join(root, 'test-output', 'vscode');
const cachePath = join(root, '.vscode-test');
const VERSION = process.env.VSCODE_TEST_VERSION ?? '1.101.0';
const UPDATE_HOST = 'https://update.code.visualstudio.com';
const PROBE_TIMEOUT_MS = 5000;
const RUN_TIMEOUT_MS = 15 * 60_000;
const EXTENSION_ID = 'study-bridge.study-bridge';
const CANNOT_RUN = 2;

const log = (m: string) => process.stdout.write(`[vscode-tests] ${m}\n`);

/** Why desktop VS Code cannot be had here, or undefined when it can. */
async function unavailableReason(): Promise<string | undefined> {
  const exe = process.env.VSCODE_EXECUTABLE_PATH;
  if (exe) return existsSync(exe) ? undefined : `VSCODE_EXECUTABLE_PATH=${exe} does not exist.`;
  if (existsSync(cachePath) && readdirSync(cachePath).some((d) => d.startsWith('vscode-') && d.endsWith(VERSION)))
    return undefined;
  // test-electron downloads from here; without a short probe its request would hang on a blackholed network.
  const url = `${UPDATE_HOST}/api/releases/stable`;
  try {
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (res.status >= 500) return `${url} answered HTTP ${res.status}.`;
    return undefined;
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === 'TimeoutError'
        ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    return `VS Code cannot be downloaded: ${UPDATE_HOST} is unreachable from this machine (${why}), no VS Code ${VERSION} is cached in .vscode-test/, and VSCODE_EXECUTABLE_PATH is not set.`;
  }
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, { cwd: root, env: opts.env ?? process.env, stdio: 'pipe', encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

function newestVsix(): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const found = readdirSync(root)
    .filter((f) => f.startsWith(`${pkg.name}-${pkg.version}`) && f.endsWith('.vsix'))
    .map((f) => join(root, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!found.length) throw new Error('no VSIX found after npm run package');
  return found[0];
}

/** The suite bundled for the extension host, as test/extension/run.ts bundles it (every suite/*.test.ts). */
async function bundleSuite(dir: string): Promise<string> {
  const suiteSrc = join(root, 'test', 'extension', 'suite');
  const tests = readdirSync(suiteSrc)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => basename(f, '.ts'));
  rmSync(dir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: {
      index: join(suiteSrc, 'index.ts'),
      ...Object.fromEntries(tests.map((t) => [t, join(suiteSrc, `${t}.ts`)])),
    },
    outdir: dir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode', 'mocha', ...tests.map((t) => `./${t}`)],
    logLevel: 'warning',
  });
  return join(dir, 'index.js');
}

/** Desktop VS Code on Linux needs a display: a private Xvfb when none is set. */
function ensureDisplay(): { env: Record<string, string>; xvfb?: ChildProcess } {
  if (process.platform !== 'linux' || process.env.DISPLAY) return { env: {} };
  if (spawnSync('sh', ['-c', 'command -v Xvfb'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      'no DISPLAY and no Xvfb: install xvfb (Debian: apt-get install xvfb) or run under a desktop session.',
    );
  }
  const display = `:${90 + Math.floor(Math.random() * 100)}`;
  const xvfb = spawn('Xvfb', [display, '-screen', '0', '1400x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  return { env: { DISPLAY: display }, xvfb };
}

async function main(): Promise<number> {
  const reason = await unavailableReason();
  if (reason) {
    process.stderr.write(
      `\nnpm run test:vscode cannot run here.\n  ${reason}\n` +
        `  It needs network access to ${UPDATE_HOST} once (the copy is cached in .vscode-test/), or VSCODE_EXECUTABLE_PATH=<path to code>.\n` +
        `  The same extension suite runs in VS Code's extension host through code-server with \`npm run test:extension\`: that is CI's runner.\n\n`,
    );
    return CANNOT_RUN;
  }

  const { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } =
    await import('@vscode/test-electron');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const vscodeExecutablePath =
    process.env.VSCODE_EXECUTABLE_PATH ??
    (await downloadAndUnzipVSCode({ version: VERSION, cachePath, timeout: 30_000 }));
  log(`VS Code: ${vscodeExecutablePath}`);

  // The artefact under test is the packaged VSIX, installed into an isolated profile (as with code-server).
  if (!process.argv.includes('--no-package')) run('npm', ['run', '--silent', 'package']);
  const vsix = newestVsix();
  const tmp = mkdtempSync(join(tmpdir(), 'study-bridge-desktop-'));
  const dirs = {
    userData: join(tmp, 'user-data'),
    extensions: join(tmp, 'extensions'),
    workspace: join(tmp, 'workspace'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'extensions.autoUpdate': false,
    }),
  );
  writeFileSync(join(dirs.workspace, 'notes.md'), '# Study notes\n');
  const profileArgs = [`--user-data-dir=${dirs.userData}`, `--extensions-dir=${dirs.extensions}`];
  const [cli, ...cliArgs] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath);
  run(cli, [
    ...cliArgs.filter((a) => !a.startsWith('--user-data-dir') && !a.startsWith('--extensions-dir')),
    ...profileArgs,
    '--install-extension',
    vsix,
  ]);
  if (!readdirSync(dirs.extensions).some((d) => d.startsWith(EXTENSION_ID)))
    throw new Error(`${vsix} was not installed into ${dirs.extensions}`);

  const extensionTestsPath = await bundleSuite(join(root, '.cache', 'vscode-suite'));
  const display = ensureDisplay();
  const watchdog = setTimeout(() => {
    process.stderr.write(`[vscode-tests] no result after ${RUN_TIMEOUT_MS / 60_000} min: stopping\n`);
    display.xvfb?.kill();
    process.exit(1);
  }, RUN_TIMEOUT_MS);
  watchdog.unref();
  try {
    await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath: join(root, 'test', 'extension', 'harness'),
      extensionTestsPath,
      extensionTestsEnv: { STUDY_BRIDGE_TEST_OUT: out, ...display.env },
      launchArgs: [
        dirs.workspace,
        ...profileArgs,
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
      ],
    });
  } finally {
    clearTimeout(watchdog);
    display.xvfb?.kill();
    if (!process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
  }

  const resultsFile = join(out, 'results.json');
  if (!existsSync(resultsFile)) throw new Error('the suite wrote no results.json (see the VS Code output above)');
  const suite = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
    results: Array<{ title: string; state: string; ms: number; error?: string }>;
    ms: number;
  };
  process.stdout.write(`\nStudy Bridge extension tests (desktop VS Code ${VERSION})\n`);
  for (const c of suite.results) {
    process.stdout.write(`  ${c.state === 'passed' ? '✔' : '✘'} ${c.title} (${c.ms} ms)\n`);
    if (c.error) process.stdout.write(`      ${c.error.split('\n').slice(0, 6).join('\n      ')}\n`);
  }
  const failed = suite.results.filter((c) => c.state !== 'passed').length;
  process.stdout.write(`\n  ${suite.results.length - failed} passing, ${failed} failing (output: ${out})\n`);
  return failed === 0 && suite.results.length > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[vscode-tests] ${err instanceof Error ? err.stack : err}\n`);
    process.exit(1);
  },
);
