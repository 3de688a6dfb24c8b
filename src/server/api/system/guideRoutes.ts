import type { RouteDecl } from '../http/routeTable';
import { apiFingerprint, describeRoute } from './routeFingerprint';
import { proofField } from './routeProof';

/** The route table in Markdown: the guide's topics carry their rows, GET /guide/routes all of them. */
export function routeTable(routes: readonly RouteDecl[]): string {
  const rows = routes.map((r) => {
    const d = describeRoute(r);
    const gate = d.confirm === 'none' ? '—' : d.confirm === 'body' ? '`confirm:true`' : '`?confirm=1`';
    const proof = proofField(r);
    return `| ${d.method} | \`${d.path}\` | ${d.requiresToken ? 'yes' : 'no'} | ${d.requiresMax ? 'yes' : 'no'} | ${gate}${d.dryRun ? ' (dry-run)' : ''} | ${proof ? `\`${proof}:true\`` : '—'} | ${r.rawBody?.mediaType ? `*raw body* (${r.rawBody.mediaType}). ` : ''}${r.summary.replace(/\|/g, '\\|')} |`;
  });
  return [
    '| method | path | token | premium | confirm | proof | what it does |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** GET /guide/routes: every listed route, its gates and the field that proves a write took effect. */
export function routesMarkdown(routes: readonly RouteDecl[]): string {
  return `# Study Bridge routes

Route table fingerprint \`${apiFingerprint(routes)}\`. *token*: needs the bearer token; *premium*: 403 \`MAX_REQUIRED\` when the
entitlement is off; *confirm*: changes nothing without it (dry-run: the 422's \`details\` preview the change); *proof*: the answer's
field that proves success. Bodies and answers: \`GET /openapi.json?path=<path>\`; an example request per route: \`GET /capabilities\`.

${routeTable(routes)}
`;
}
