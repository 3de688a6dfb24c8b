// @ts-check
/**
 * Lint gate (`npm run lint`, part of `npm test`): typescript-eslint's type-checked rules over src/, test/ and
 * bench/, plus the import rules of each environment (webview pages, VS Code hosts, server, client).
 * Rules turned off say why on their line; everything else in recommended-type-checked stays on.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** An import of server code from a folder one or more levels below src/. */
const SERVER = '^(\\.\\./)+server/';

const vscodeNever = {
  name: 'vscode',
  message: 'Runs without VS Code (cli, worker thread, tests): never import vscode.',
};
const vscodeTypesOnly = {
  name: 'vscode',
  allowTypeImports: true,
  message: 'Webview pages run in the browser sandbox: vscode only as types.',
};
const serverTypesOnly = (why) => ({ regex: SERVER, allowTypeImports: true, message: why });
const HOST_WHY = 'Hosts talk to the bridge through src/client (a second window attaches the same way): types only.';

export default defineConfig([
  globalIgnores(['dist/', 'out/', 'node_modules/', '.cache/', 'test-output/', 'test/fixtures/', 'bench/fixtures/']),
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Route handlers and interface methods are async without awaiting: dropping `async` would turn a throw into a sync throw.
      '@typescript-eslint/require-await': 'off',
      // Control characters are matched on purpose (Anki's \x1f field separator, NULs and C0 stripped from stored text).
      'no-control-regex': 'off',
      // A caught error (typed unknown) is passed on as it came; a new reason or throw must still be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      // `_name` marks a parameter or binding kept on purpose (a callback's signature, a rest-omit).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },

  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benches read JSON bodies (`request<any>`), VS Code command results and page state untyped on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Suites load in a set order after mocha's pre-require, and some tests take a module object to patch or an ESM-typed package's CJS build.
      '@typescript-eslint/no-require-imports': 'off',
      // A promise callback's error is typed any; it is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Failure messages print arrays and numbers as they are.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowArray: true, allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
    },
  },

  // Import rules per environment. One block per glob: a later block for the same file replaces the options.
  {
    files: ['src/webviews/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [vscodeTypesOnly],
          patterns: [serverTypesOnly('Webview pages talk to their host over the typed channel: server types only.')],
        },
      ],
    },
  },
  {
    files: ['src/editors/**/*.ts', 'src/views/**/*.ts', 'src/extension/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [serverTypesOnly(HOST_WHY)] }],
    },
  },
  {
    // Exceptions, each a value import of server code a host still needs:
    files: [
      // The window that hosts the bridge starts it (in-process or on a worker) and reads its discovery file and lock.
      'src/extension/bridgeHost.ts',
      'src/extension/bridgeLaunch.ts',
      'src/extension/hostProbe.ts',
      'src/extension/restartMarker.ts',
      // The window's UI host (GET /context) is handed to the bridge this window hosts.
      'src/extension/workbenchUi.ts',
      // The reader's opening picture is rendered in the host with the server's PDF pool and cache.
      'src/editors/readerOpeningImage.ts',
      // The highlight colours are the card palette's values (domain/cards/notePalette.ts).
      'src/editors/readerBridgeData.ts',
    ],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['src/server/**/*.ts', 'src/cli.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [vscodeNever] }] },
  },
  {
    files: ['src/client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [vscodeNever],
          patterns: [serverTypesOnly('The client talks HTTP: request and response types from the routes only.')],
        },
      ],
    },
  },
]);
