import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { sep } from 'node:path';
import type { RouteDecl } from '../http/routeTable';
import { BRIDGE_API_VERSION } from '../../version';
import { cardsPerResult, DEFAULT_IMAGE_MAX_PX, DEFAULT_RESULT_BYTES, MAX_RESULT_BYTES } from '../mcp/mcpBudget';
import { WORKFLOWS } from './guideWorkflows';
import { routeTable, routesMarkdown } from './guideRoutes';
import { MAX_PENDING_PER_AGENT } from '../../domain/approvals/heldRequests';
import { apiFingerprint } from './routeFingerprint';
import { proofOf } from './routeProof';

export interface Guide {
  /** GET /guide: fits one context window (≤ 8 KB, a test holds it there). */
  markdown: string;
  /** GET /guide/routes: the route table the guide points to. */
  routes: string;
  /** One workflow each (study_guide's topic), earlier topic names included. */
  topics: Record<string, string>;
  version: string;
  sha256: string;
}

/** The workflow topics study_guide names (each only when its routes are served). */
export const GUIDE_TOPICS = ['start', ...WORKFLOWS.map((w) => w.topic)] as const;

/**
 * A line or two other features add to the guide (## More), each only when its
 * route is served. Keep each short: the whole guide stays within 8 KB.
 */
const MORE: { needs: string; text: string }[] = [
  {
    needs: '/events',
    text: 'Changes: `GET /events` (server-sent events, `Last-Event-ID` resumes); cannot stream: `GET /library/changes?since=<revision>&waitMs=25000`.',
  },
  {
    needs: '/study-sets/{id}/outline',
    text: 'Mind maps: `GET /study-sets/<topicid>/outline?format=md` (or `opml`) exports; POST `/library/study-sets/import` (`format`, `content`) makes a set from one.',
  },
  {
    needs: '/approvals/{id}',
    text:
      "Approvals: a call that loses the person's data (`destructive` in `/capabilities`) may answer 202 `{approvalId, state:'pending', summary}`: nothing changed yet, do not resend; poll `GET /approvals/<approvalId>` (or event `approval`) until `allowed` (`result`: the answer), `denied` or `expired`. MCP clients with elicitation are asked directly. " +
      `≤ ${MAX_PENDING_PER_AGENT} pending per token (429 \`TOO_MANY_PENDING\`).`,
  },
  {
    needs: '/context',
    text: '"This page", "this card": `GET /context` (`available:false`: ask the person, do not retry).',
  },
  {
    needs: '/decks/import',
    text: 'Anki: `POST /decks/import?filename=x.apkg&confirm=1` (raw .apkg bytes) makes a set and a deck (again: updates); `GET /decks/<deckId>/apkg` exports one.',
  },
  {
    needs: '/decks',
    text: 'AnkiConnect (v6): `ankiConnectPort` in bridge.json when turned on; `key` = a bridge token; `addNote` into deck X adds a card to X and its set.',
  },
  {
    needs: '/documents/{id}/annotations/import',
    text: 'Highlights already in a PDF: `POST /documents/<bookmd5>/annotations/import {"topicid":"<topicid>","confirm":true}` makes them cards (again: nothing new); `GET /study-sets/<topicid>/annotated-pdf?bookmd5=<bookmd5>` answers the book with them as highlights.',
  },
  {
    needs: '/mcp',
    text: `MCP \`study_call\` results ≤ ${DEFAULT_RESULT_BYTES / 1024} KB, about ${cardsPerResult()} batch-get cards (\`maxBytes\` ≤ ${MAX_RESULT_BYTES / 1024} KB); longer: \`truncated:true\` + \`next\`: the next call's arguments. Images ≤ ${DEFAULT_IMAGE_MAX_PX} px (\`imageMaxPx\`).`,
  },
];

const start = `- Base URL \`http://127.0.0.1:<port>/bridge/v1\` (port in \`<dataDir>/bridge.json\`; 42380–42399). \`GET /status\` (no token) proves
  it is up; when its \`guide.sha256\` changes, read this guide again (never re-install).
- Send \`Authorization: Bearer <token>\` (yours: \`~/.config/study-bridge/token\`; what you write is recorded as yours). Never
  send \`Origin\`. Beyond your token's scope: 403 \`SCOPE_REQUIRED\`: ask the person, do not retry.
- Routes with gates and proofs: \`GET /guide/routes\`; an \`example\` request each: \`GET /capabilities\`; one route's
  bodies and answers: \`GET /openapi.json?path=/decks/{id}/cards\`. \`study_guide\` (MCP) takes a topic.
`;

const rules = `- Requests below are literal: send that JSON, with \`<name>\` replaced by the field \`name\` of an earlier answer (or what it describes).
- Writes change nothing without \`"confirm":true\` (upload: \`?confirm=1\`): the 422 \`CONFIRM_REQUIRED\` is a free dry-run whose
  \`details\` preview the change. Success is the proof field (\`persisted:true\`, \`isStudySet:true\`…), never a bare 200.
- \`ignoredFields[]\`: fields that had no effect (check spelling). \`warnings[]\`: something partly failed.
- Errors: \`{"error":{"code","message","retryable","details"}}\`; a 4xx changed nothing. 429 and retryable 409: wait
  \`details.retryAfterSeconds\`, then retry once. 403 \`MAX_REQUIRED\`: premium is off; reads still work.
  503 \`RENDERER_UNAVAILABLE\`: no pictures here; text works.
- Pages: PDF order, 1-based. Ids: \`bookmd5\` a book, \`topicid\` a study set, \`deckId\` a deck (not interchangeable), \`noteid\` a card.
- Touch only the study sets the person named. \`pageCount:0\` is not an empty book: read \`/pages\`.
`;

/** "`GET /x`" mentions a workflow makes, for the rows its topic carries. */
function namedRoutes(routes: readonly RouteDecl[], text: string): RouteDecl[] {
  const spans = [...text.matchAll(/`(GET|POST) (\/[^\s`?]*)/g)].map(
    (m) => `${m[1]} ${m[2].replace(/<[^>]+>|\{[^}]+\}/g, '*')}`,
  );
  return routes.filter((r) => r.listed !== false && spans.includes(`${r.method} ${r.path.replace(/\{[^}]+\}/g, '*')}`));
}

/** What the guide says of this bridge's settings. */
export interface GuideSettings {
  /** Where a PDF may be imported by path besides the library (setting importFolders, CLI --import-folders). */
  importFolders?: readonly string[];
}

/** "the library, `~/Documents`, `~/Downloads`": where import by path reads (the home folder as ~, to keep it short). */
function importFolderList(folders: readonly string[]): string {
  const home = homedir();
  const short = (f: string) => (f.startsWith(home + sep) ? `~${f.slice(home.length)}` : f);
  return ['the library', ...folders.map((f) => `\`${short(f)}\``)].join(', ');
}

/** The runtime guide for agents, generated from the route table so it cannot drift from it. */
export function buildGuide(routes: readonly RouteDecl[], settings: GuideSettings = {}): Guide {
  const has = (path: string) => routes.some((r) => r.path === path);
  const folders = settings.importFolders ? importFolderList(settings.importFolders) : 'the library or an import folder';
  // Proof fields come from the routes' answer schemas (routeProof.ts), never typed into the prose.
  const proofs = (text: string) =>
    text
      .replace(/<<proof (GET|POST) (\S+)>>/g, (_m, method: string, path: string) =>
        proofOf(routes, `${method} ${path}`),
      )
      .replace(/<<importFolders>>/g, folders);
  const workflows = WORKFLOWS.filter((w) => w.needs.every(has)).map((w) => ({ ...w, text: proofs(w.text) }));
  const more = MORE.filter((m) => has(m.needs)).map((m) => `- ${m.text}\n`);
  const markdown = `# Study Bridge — runtime guide for agents

Guide ${BRIDGE_API_VERSION}, routes \`${apiFingerprint(routes)}\`. This guide and \`GET /capabilities\` outrank other documentation.

## Start
${start}
## Rules
${rules}
${workflows.map((w) => `## ${w.title} (topic \`${w.topic}\`)\n${w.text}`).join('\n')}
## More
${more.join('')}`;
  const topic = (title: string, text: string) =>
    `# Study Bridge guide: ${title}\n\nRules, auth and the other workflows: the whole guide (study_guide without topic, GET /guide).\n\n${text}\n## Routes\n${routeTable(namedRoutes(routes, text))}\n`;
  const topics: Record<string, string> = { start: topic('start', `${start}\n${rules}`) };
  for (const w of workflows) for (const name of [w.topic, ...w.aliases]) topics[name] = topic(w.topic, w.text);
  return {
    markdown,
    routes: routesMarkdown(routes),
    topics,
    version: BRIDGE_API_VERSION,
    sha256: createHash('sha256').update(markdown).digest('hex'),
  };
}
