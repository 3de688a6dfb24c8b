/**
 * The layering of docs/ARCHITECTURE.md, checked on every `npm test`
 * (`npm run lint:deps`). A rule names what must never be imported; a rule
 * that fires fails the test run with the file and the import.
 */

/** The server's three layers are folders: api/ (transports), domain/ (the library's rules), ground/ (storage, text, PDF). */
const API = '^src/server/api/';
/** What assembles the bridge and runs it on a thread: above every layer. */
const ASSEMBLY = '^src/server/worker/|^src/server/(services|bridge|bridgeOptions|bridgeServices)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'server-without-vscode',
      comment: 'The server runs headless (cli, worker thread): it never imports vscode.',
      severity: 'error',
      from: { path: '^src/(server/|cli\\.ts$)' },
      to: { path: '^vscode$|@types/vscode' },
    },
    {
      name: 'client-without-vscode',
      comment: 'The client is plain Node (the cli and tests use it too).',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^vscode$|@types/vscode' },
    },
    {
      name: 'domain-without-api',
      comment:
        'The domain returns data or throws BridgeError; only api/ builds answers. Its collaborators are declared where used, not taken from services.ts.',
      severity: 'error',
      from: { path: '^src/server/domain/' },
      to: { path: [API, ASSEMBLY] },
    },
    {
      name: 'ground-below-domain',
      comment:
        'Storage, caches, text and PDF reading store and derive; they never call the domain or the api above them.',
      severity: 'error',
      from: { path: '^src/server/ground/' },
      to: { path: ['^src/server/(domain|api)/', ASSEMBLY] },
    },
    {
      name: 'library-without-cards',
      comment:
        'Documents and study-set rows sit below the cards: cards may read the library, never the other way round.',
      severity: 'error',
      from: { path: '^src/server/domain/library/' },
      to: { path: '^src/server/domain/cards/' },
    },
    {
      name: 'store-at-the-ground',
      comment:
        'The store knows tables and files, nothing built on it (errors, config and the worker-script locator aside).',
      severity: 'error',
      from: { path: '^src/server/ground/store/' },
      to: { path: '^src/server/', pathNot: '^src/server/(ground/store/|ground/threads/|errors\\.ts$|config\\.ts$)' },
    },
    {
      name: 'cards-below-bundles-and-decks',
      comment: 'Bundles import cards, decks review them, mind maps print them: cards never reach up to those.',
      severity: 'error',
      from: { path: '^src/server/domain/cards/' },
      to: { path: '^src/server/domain/(bundles|decks|mindmap)/' },
    },
    {
      name: 'webviews-without-server',
      comment:
        'Pages run in the browser sandbox; they talk to their host over one typed channel. Protocol types may be imported as types.',
      severity: 'error',
      from: { path: '^src/webviews/' },
      to: { path: '^src/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-without-server-values',
      comment:
        'The client talks HTTP; it may take request and response types from the routes (type-only), never server code.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'text-is-a-leaf',
      comment:
        'Folding and matching are pure functions over strings and text items: they take pdf types, nothing built on anything.',
      severity: 'error',
      from: { path: '^src/server/ground/text/' },
      to: { path: '^src/server/', pathNot: ['^src/server/ground/text/', '^src/server/ground/pdf/pdfTypes\\.ts$'] },
    },
    {
      name: 'no-circles',
      comment: 'Files do not import each other in a loop (type-only imports count).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|out|node_modules)/' },
    // Type-only imports count: a circle through types is still a circle, and the client rule must see them to allow them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
