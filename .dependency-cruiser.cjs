/**
 * The layering of docs/ARCHITECTURE.md, checked on every `npm test`
 * (`npm run lint:deps`). A rule names what must never be imported; a rule
 * that fires fails the test run with the file and the import.
 */

/** Domain folders: they return data or throw BridgeError, and know nothing of HTTP. */
const DOMAIN = '^src/server/(bundles|cards|decks|library|mindmap|sync|ui|search|cache|store|pdf|security)/';
/** The transport and what is derived from the route table. */
const TRANSPORT = '^src/server/(http|routes|mcp|system|worker)/|^src/server/(services|bridge)\\.ts$';
/** Files that may import each other in a loop: the client facade hands itself to its parts (BridgeClient.cards, …). */
const ALLOWED_CIRCLE = '^src/client/(bridgeClient|bundlesApi|cardsApi|readerApi|reviewApi)\\.ts$';

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
      name: 'domain-without-transport',
      comment: 'The domain returns data or throws BridgeError; only routes build HTTP answers. Its collaborators are declared where used, not taken from services.ts.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: TRANSPORT },
    },
    {
      name: 'library-without-cards',
      comment: 'Documents and study-set rows sit below the cards: cards may read the library, never the other way round.',
      severity: 'error',
      from: { path: '^src/server/library/' },
      to: { path: '^src/server/cards/' },
    },
    {
      name: 'store-at-the-ground',
      comment: 'The store knows tables and files, nothing built on it (errors, config and the worker-script locator aside).',
      severity: 'error',
      from: { path: '^src/server/store/' },
      to: { path: '^src/server/', pathNot: '^src/server/(store/|threads/|errors\\.ts$|config\\.ts$)' },
    },
    {
      name: 'caches-below-domain',
      comment: 'The page cache and the text index store what the domain derives; they never call it.',
      severity: 'error',
      from: { path: '^src/server/(cache|search)/' },
      to: { path: '^src/server/(library|cards|bundles|decks|mindmap|sync|ui)/' },
    },
    {
      name: 'cards-below-bundles-and-decks',
      comment: 'Bundles import cards, decks review them, mind maps print them: cards never reach up to those.',
      severity: 'error',
      from: { path: '^src/server/cards/' },
      to: { path: '^src/server/(bundles|decks|mindmap)/' },
    },
    {
      name: 'webviews-without-server',
      comment: 'Pages run in the browser sandbox; they talk to their host over one typed channel. Protocol types may be imported as types.',
      severity: 'error',
      from: { path: '^src/webviews/' },
      to: { path: '^src/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-without-server-values',
      comment: 'The client talks HTTP; it may take request and response types from the routes (type-only), never server code.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'text-is-a-leaf',
      comment: 'Folding and matching are pure functions over strings and text items: they take pdf types, nothing built on anything.',
      severity: 'error',
      from: { path: '^src/server/text/' },
      to: { path: '^src/server/', pathNot: ['^src/server/text/', '^src/server/pdf/pdfTypes\\.ts$'] },
    },
    {
      name: 'no-circles',
      comment: 'Files do not import each other in a loop, outside the allowed list.',
      severity: 'error',
      from: { path: '^src/', pathNot: ALLOWED_CIRCLE },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|out|node_modules)/' },
    // Type-only imports count: a circle through types is still a circle, and the client rule must see them to allow them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
