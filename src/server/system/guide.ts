import { createHash } from 'node:crypto';
import type { RouteDecl } from '../http/routeTable';
import { ANCHOR_MODES, PRESETS } from '../bundles/vocabulary';
import { BRIDGE_API_VERSION } from '../version';
import { apiFingerprint, describeRoute } from './routeFingerprint';
import { proofField, proofOf } from './routeProof';

export interface Guide {
  markdown: string;
  /** One workflow each (study_guide's topic), keyed by GUIDE_TOPICS. */
  topics: Record<string, string>;
  version: string;
  sha256: string;
}

function routeTable(routes: readonly RouteDecl[]): string {
  const rows = routes.map((r) => {
    const d = describeRoute(r);
    const gate = d.confirm === 'none' ? '—' : d.confirm === 'body' ? '`confirm:true`' : '`?confirm=1`';
    const proof = proofField(r);
    return `| ${d.method} | \`${d.path}\` | ${d.requiresToken ? 'yes' : 'no'} | ${d.requiresMax ? 'yes' : 'no'} | ${gate}${d.dryRun ? ' (dry-run)' : ''} | ${proof ? `\`${proof}:true\`` : '—'} | ${r.rawBody?.mediaType ? `*raw body* (${r.rawBody.mediaType}). ` : ''}${r.summary.replace(/\|/g, '\\|')} |`;
  });
  return ['| method | path | token | premium | confirm | proof | what it does |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

const uploadWorkflow = `4. **Add a book**: \`POST /library/documents/upload?filename=book.pdf&folder=…&topicid=…&confirm=1\` with the PDF bytes as
   the body (a raw-body route: JSON there is 415 \`RAW_BODY_REQUIRED\`); a PDF on this machine: \`POST /library/documents/import\`
   \`{"path":"~/Downloads/x.pdf","topicid":…,"confirm":true}\` (MCP: the \`study_upload\` tool; small files also \`study_call\` with
   \`bodyBase64\`). Import reads only the library and the person's import folders (403 \`PATH_NOT_ALLOWED\` lists them).
   Check \`addedToStudySet\` and \`warnings\`. The text is read in the background: \`GET /documents/{id}/outline\` reports
   \`extraction\`, and a page not read yet is waited for briefly, then answered with a retryable 409 \`EXTRACTION_IN_PROGRESS\`.
   Limits (\`GET /capabilities\` \`limits\`): over \`uploadBytes\` → 413 \`PAYLOAD_TOO_LARGE\`, over \`maxPages\` → 422 \`PDF_TOO_MANY_PAGES\`;
   a PDF too complex to read safely ends \`extraction.state: failed\` with \`errorCode: PDF_TOO_COMPLEX\` (do not retry it).
`;

const bundleWorkflow = `5. **Split a book into cards** (bundles): find the chapters' PDF pages (\`GET /documents/{id}/outline\`), probe
   \`GET /documents/{id}/pages?start=N&end=N&blocks=1\` and choose preset (${PRESETS.map((p) => `\`${p}\``).join(', ')}) and
   anchor mode (${ANCHOR_MODES.map((p) => `\`${p}\``).join(', ')}): prose → \`book-breakdown\` × \`page_text\`; exams → \`exam-general\` × \`block\`;
   scanned or formula-dense → \`block\`. \`POST /bundles/prepare\` with \`segments\` (≤ 60 actual pages, PDF order) and \`async:true\`
   above 10 pages → 202 \`{jobId, bundleId, bundlePath}\`. \`warnings\` about the pairing mean: discard and prepare again.
   429 \`PREPARE_BUSY\`: one prepare runs at a time; wait \`retryAfterSeconds\`, never re-send at once.
   Poll \`GET /bundles\` (about every 15 s) until \`state\` is \`prepared\`; do not read the folder before. Read \`TASK.md\`,
   \`OUTPUT-CONTRACT.md\` and \`source.json\` (\`GET /bundles/{id}/files?path=…\` from another device), write \`result.md\`:
   headings ≤ 6 levels, verbatim \`[excerpt: …]\` (never paraphrased), \`[block: b_<page>_<seq>]\` in block mode,
   \`[style: colorIndex=N fillIndex=M]\`; \`## [[Title]]\` merges into that card and is never a link.
   \`POST /bundles/{id}/check\` (writes nothing) until it reports no problems and every excerpt anchored; then
   \`POST /bundles/{id}/submit\` once (a snapshot is taken first: \`preImportSnapshotId\`). Compare the receipt's
   \`parsed.headings\` with \`importedCards\` (lost cards) and \`excerptsTotal\` with \`excerptsAnchored\` (see \`failedExcerpts\`);
   report both. 409 \`SUBMIT_IN_FLIGHT\`: do not retry, read \`GET /bundles\`. Submitting again replaces the tree;
   \`POST /bundles/{id}/discard\` removes the folder and keeps the cards.
`;

const cardsWorkflow = `6. **Read and edit cards**: \`GET /study-sets/{id}/tree\` (flat \`nodes[]\` linked by \`parent\`; \`depth\` > 0 = inside a
   nested sub-map) → \`POST /notes/batch-get\` (≤ 200 ids; \`texts[]\` is sparse: index 0 is the body, 1..N comments; check
   \`parts[]\` before calling a card empty). New card: \`POST /study-sets/{id}/notes\` (\`parentNoteId\` defaults to the root card;
   \`excerpt {bookmd5, page, text}\` anchors verbatim page text). Many cards, a whole tree: the same route with
   \`cards: [...]\` (≤ 200, each like one card's body; \`parentIndex\` points at an earlier card of the batch): one write, one
   undo step, per-card answers, <<proof POST /study-sets/{id}/notes>>; without confirm the 422's \`details\` lists what would be created and which excerpts would not anchor.
   Mind maps: \`GET /study-sets/{id}/outline?format=opml|md\` exports the tree (OPML 2.0 or Markdown); \`POST /library/study-sets/import\`
   \`{format, content, confirm}\` makes a new set from one (Markdown in the result.md grammar, bullets are cards too; a dry-run without confirm).
   Title and body edits send \`expectedPrefix\` (the first 32
   characters you read; \`""\` for an empty value). Tags go through \`POST /notes/hashtags\` only (full leaf paths like
   \`Math/Algebra\`), colours through \`POST /notes/metadata\` (palette: \`GET /study-sets/{id}/note-palette\`).
`;

const snapshotsWorkflow = `7. **Before a bulk change**: \`POST /study-sets/{id}/snapshots {"description":"…"}\` (no \`Agent:\` prefix: the bridge adds it);
   to undo, \`POST /snapshots/{id}/restore\` without confirm first (the 422 previews it), then with \`confirm:true\`. A 409
   \`USER_EDITS_PRESENT\` lists \`changedNodes\` the person edited since: show them and use \`force:true\` only with consent.
`;

const decksWorkflow = `8. **Review decks**: \`GET /decks\` (never \`/library/study-sets\`), \`POST /decks/{id}/cards\` with \`sourceNoteId\` and at most
   one of \`question\` (custom, \`{{cloze}}\`) or \`questionContentId\`; adding a source again updates and reschedules it. Check
   <<proof POST /decks/{id}/cards>> and use \`resolvedNoteId\`. Scheduling is FSRS, as in Anki. To quiz the person in a chat:
   \`GET /decks/{id}/due\` gives the due cards in review order, each with \`question.text\` (ask this; \`{{cloze}}\` already
   shown as \`[…]\`), \`answer\` (body, comments: reveal after they answer) and \`nextIntervals\`; then grade what they
   said with \`POST /decks/{id}/reviews\` \`{cardNoteId, rating: again|hard|good|easy, confirm:true}\` (one grade per answer,
   <<proof POST /decks/{id}/reviews>> and \`reviewLogId\` prove it). Let the person choose the rating when they can.
   Anki: \`POST /decks/import?filename=x.apkg&confirm=1\` (raw .apkg bytes; unconfirmed, the 422 previews) makes a set and a
   deck, and updates them on a second import; \`GET /decks/{id}/apkg\` is the deck as an .apkg for Anki and AnkiDroid.
`;

const startWorkflow = `1. **Start**: \`GET /status\` → \`GET /capabilities\` → \`GET /context\` when the user says "this page" or "this card"
   (\`available:false\` with \`reason\`: do not retry, ask the user).
`;

const findWorkflow = `2. **Find a book**: \`GET /library/study-sets\`, then \`GET /study-sets/{id}/documents\`, or \`GET /search?q=…&scope=documents\`
   for any book in the library; \`GET /documents/{id}/outline\` for its chapters
   (\`segments\`, not \`entries\`), \`GET /documents/{id}/pages?start=&end=\` for text (≤ 60 pages a call).
`;

const studySetWorkflow = `3. **New study set**: \`POST /library/study-sets {"title":"…","confirm":true}\` → check <<proof POST /library/study-sets>>; it starts with
   one root card bearing its title.
`;

/** How to follow changes (only where GET /events is served). */
const EVENTS_NOTE = `- Follow changes: \`GET /events\` is a server-sent event stream (\`event:\` card|set|deck|document|bundle, \`data:\` {revision, ids};
  reconnect with \`Last-Event-ID\`; on \`event: reset\` re-read what you show). Cannot stream? Long-poll
  \`GET /library/changes?since=<revision>&waitMs=25000\`.
`;

/** The guide topics study_guide answers one at a time (each only when its routes are served). */
export const GUIDE_TOPICS = ['start', 'find', 'study-set', 'upload', 'bundles', 'cards', 'snapshots', 'decks'] as const;

/** One workflow with the rows of the routes it names: small enough for one MCP result. */
function topicMarkdown(routes: readonly RouteDecl[], topic: string, text: string): string {
  const names = (r: RouteDecl) => new RegExp(`${r.method} ${r.path.replace(/[{}]/g, '\\$&')}(?![\\w/{}-])`).test(text);
  const named = routes.filter((r) => r.listed !== false && names(r));
  return `# Study Bridge guide: ${topic}\n\nAuth, conventions and the other workflows: the whole guide (study_guide without topic, GET /guide).\n\n${text.replace(/^\d+\. /, '')}\n## Routes\n${routeTable(named)}\n`;
}

/** The runtime guide for agents, generated from the route table so it cannot drift from it. */
export function buildGuide(routes: readonly RouteDecl[]): Guide {
  // Workflows name only routes this bridge serves.
  const has = (path: string) => routes.some((r) => r.path === path);
  // Proof fields come from the routes' answer schemas (routeProof.ts), never typed into the prose.
  const proofs = (text: string) => text.replace(/<<proof (GET|POST) (\S+)>>/g, (_m, method: string, path: string) => proofOf(routes, `${method} ${path}`));
  const workflows = [
    { topic: 'start', text: startWorkflow, served: true },
    { topic: 'find', text: findWorkflow, served: true },
    { topic: 'study-set', text: studySetWorkflow, served: true },
    { topic: 'upload', text: uploadWorkflow, served: has('/library/documents/upload') },
    { topic: 'bundles', text: bundleWorkflow, served: has('/bundles/prepare') },
    { topic: 'cards', text: cardsWorkflow, served: has('/notes/batch-get') && has('/study-sets/{id}/notes') && has('/notes/hashtags') && has('/notes/metadata') },
    { topic: 'snapshots', text: snapshotsWorkflow, served: has('/snapshots/{id}/restore') },
    { topic: 'decks', text: decksWorkflow, served: has('/decks/{id}/cards') },
  ]
    .filter((w) => w.served)
    .map((w) => ({ ...w, text: proofs(w.text) }));
  const markdown = proofs(`# Study Bridge — runtime guide for agents

Guide version ${BRIDGE_API_VERSION}, route table fingerprint \`${apiFingerprint(routes)}\`.
This guide is generated by the running bridge. It and \`GET /capabilities\` outrank any other documentation:
call only routes that \`/capabilities\` lists.

## Discovery
- Base URL: \`http://127.0.0.1:<port>/bridge/v1\` (default port 42380, else the next free one up to 42399).
- \`<dataDir>/bridge.json\` holds \`baseUrl\`, \`port\`, \`pid\`, \`instanceNonce\`. Only \`GET /status\` proves the bridge is up:
  check that its \`instanceNonce\` equals the file's.
- Refresh rule: re-read \`GET /status\`; when \`guide.sha256\`, \`guide.version\` or \`apiFingerprint\` differ from what you
  cached, re-read \`GET /guide\` and \`GET /capabilities\` with your existing token. Never re-install to refresh: installing
  is for a new machine.
- A route's body and answer schemas: \`GET /openapi.json?path=/decks/{id}/cards\` (or \`?tag=decks\`) answers just those routes;
  the whole document is too large for one MCP result. \`/capabilities\` gives each route's \`example\` request.

## Authentication
- Send \`Authorization: Bearer <token>\` on every route except \`GET /status\`, \`GET /install?code=\` and \`POST /pair\`.
  Your token is in \`~/.config/study-bridge/token\` (after install): it is yours alone, named, and the person can revoke it
  (then 401). What you write is recorded as written by you; no header can make it the person's.
- Scopes: a \`read\` token may call GETs, reads such as \`POST /notes/batch-get\` and \`/bundles/{id}/check\`, and every
  dry-run (a call without confirm); a \`write\` token everything else an agent does; \`owner\` routes (\`/tokens\`, codes) are the
  person's. Beyond your scope: 403 \`SCOPE_REQUIRED\` with \`details.scopeRequired\`; do not retry, ask the person.
- Never send an \`Origin\` header (403 \`FORBIDDEN_ORIGIN\`); use \`127.0.0.1\` or \`localhost\` as the host (else 403 \`FORBIDDEN_HOST\`).
- \`requiresMax:true\` routes also need the premium entitlement (403 \`MAX_REQUIRED\` when it is off; do not retry, reads keep working).
  \`requiresMax:false\` still needs the token.

## Conventions
- Every body is JSON, except on raw-body routes (marked *raw body* below, \`rawBody\` in \`/capabilities\`): they take a file's
  bytes (over MCP: \`study_upload\`, or \`study_call\` with \`bodyBase64\`). Success bodies carry \`bridgeApiVersion\`, and \`ignoredFields[]\` when you sent fields the route does
  not know (they had no effect: check spelling) and \`warnings[]\` when something partly failed.
- Errors: \`{"error":{"code","message","retryable","details"?},"bridgeApiVersion"}\`. 429 and retryable 409 carry
  \`Retry-After\` and \`details.retryAfterSeconds\`: wait that long before one retry.
- Confirm gates: routes marked \`confirm:true\` change the library only with \`"confirm": true\` in the body; upload takes
  \`?confirm=1\` instead. Without it you get 422 \`CONFIRM_REQUIRED\` and nothing changes. On dry-run routes that 422's
  \`details\` is a preview of what would happen: show it to the user, then repeat with confirm.
- Page numbers are PDF order, 1-based, never printed page labels. Virtual blank pages (66000 and above) are refused by PDF routes.
- Ids: \`bookmd5\` = MD5 of a document's bytes; \`topicid\` (study sets), deck ids, note ids = uppercase UUIDs.
  Study-set ids and deck ids are not interchangeable.
- Bad input is 4xx with a code (\`INVALID_INPUT\` lists the failing fields in \`details.issues\`) and changes nothing.
- Proof of success: the *proof* column of the route table (read from each route's answer schema), e.g.
  <<proof POST /library/study-sets>> after creating a set, <<proof POST /study-sets/{id}/notes>> after creating cards; upload and
  import: \`created\` (or \`alreadyPresent\`) and \`addedToStudySet\`. A 200 without the proof field is not success.
- Asynchronous routes (open, focus, ui-state apply, prepare with \`async:true\`) only accept the request: read
  \`GET /context\` (or the matching read route) afterwards.
${has('/events') ? EVENTS_NOTE : ''}
## Workflows
${workflows.map((w) => w.text).join('')}
## Pitfalls
- \`pageCount:0\` does not mean an empty book; probe with \`/pages\`.
- \`truncated:true\` in a search or scan is not "nothing found": narrow and repeat.
- Do not hammer a 429: honour \`retryAfterSeconds\`.
- Touch only the study sets the user named.
- Study-set ids and deck ids are not interchangeable (422 \`IS_A_DECK\` / \`NOT_A_DECK\`); never split a book into a deck.
- \`texts[]\` is sparse and comment indexes start at 1 (0 is the body: 422). An excerpt card is one with \`excerpt:true\` or
  \`sourceAnchor.hasExcerpt\`; editing its body detaches it from the page text (the source link stays).
- Writing \`#tags\` through \`/notes/{id}/text\` is refused (422 \`HASHTAG_ROUTE_REQUIRED\`): use \`POST /notes/hashtags\`.
- Success is only what the proof field says (*proof* column): <<proof POST /notes/metadata>>, <<proof POST /study-sets/{id}/delete>>, <<proof POST /decks>>.

## Routes
${routeTable(routes)}
`);
  const topics = Object.fromEntries(workflows.map((w) => [w.topic, topicMarkdown(routes, w.topic, w.text)]));
  return { markdown, topics, version: BRIDGE_API_VERSION, sha256: createHash('sha256').update(markdown).digest('hex') };
}
