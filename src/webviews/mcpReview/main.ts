/// <reference lib="dom" />
import type { App, McpUiHostContext } from '@modelcontextprotocol/ext-apps' with { 'resolution-mode': 'import' };
import type { ReviewAppState } from '../../server/api/mcp/reviewCard';
import { RATINGS, render, type Rating, type Shown } from './view';
import './review.css';

/**
 * The review MCP App (ui://study-bridge/review, served by the bridge as one
 * HTML document): it draws the card a review tool answered (the host sends
 * that result as ui/notifications/tool-result) and grades it through the host
 * (tools/call study_review_grade, which answers the next card). It follows the
 * host's theme and style variables. It has no network access of its own.
 */

interface ToolResult {
  content?: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

const root = document.getElementById('app')!;
// The SDK is an ES module: loaded with import() (esbuild bundles it into this page all the same).
const sdk = import('@modelcontextprotocol/ext-apps');
let app: App | undefined;
let shown: Shown | undefined;
let shownAt = Date.now();

function draw(): void {
  if (shown) render(root, shown, { reveal, grade: (r) => void grade(r) });
}

const dataUrl = (r: ToolResult, index: number | undefined) => {
  const c = index === undefined ? undefined : r.content?.[index];
  return c?.type === 'image' && c.data ? `data:${c.mimeType ?? 'image/png'};base64,${c.data}` : undefined;
};

/** The pictures the card HTML names, as data: URLs by media name. */
function namedPictures(r: ToolResult, named: Record<string, number> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, index] of Object.entries(named ?? {})) {
    const url = dataUrl(r, index);
    if (url) out[name] = url;
  }
  return out;
}

/** A refusal's message, from the route's `{error:{message}}` body when it is one. */
function refusal(r: ToolResult): string {
  const text = r.content?.find((c) => c.type === 'text')?.text ?? 'The bridge refused.';
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    return text;
  }
}

/** Shows a review tool's result: its card (or what went wrong, over the card still shown). */
function show(r: ToolResult): void {
  const state = r.structuredContent as ReviewAppState | undefined;
  if (r.isError || !state?.deck) {
    const message = { text: refusal(r), kind: 'error' as const };
    if (shown) shown = { ...shown, busy: false, message };
    else
      root.replaceChildren(
        Object.assign(document.createElement('p'), { className: 'message error', textContent: message.text }),
      );
    return draw();
  }
  const g = state.graded;
  shown = {
    state,
    questionImage: dataUrl(r, state.images.question),
    answerImage: dataUrl(r, state.images.answer),
    pictures: namedPictures(r, state.images.named),
    revealed: false,
    busy: false,
    ...(g
      ? {
          message: {
            text: `Saved: ${g.rating}. Next review ${new Date(g.due).toLocaleString()}.`,
            kind: 'info' as const,
          },
        }
      : {}),
  };
  shownAt = Date.now();
  draw();
}

function reveal(): void {
  if (!shown || shown.busy) return;
  shown = { ...shown, revealed: true, message: undefined };
  draw();
}

async function grade(rating: Rating): Promise<void> {
  const card = shown?.state.card;
  if (!shown || !card || shown.busy || !app) return;
  shown = { ...shown, busy: true };
  draw();
  try {
    const result = await app.callServerTool({
      name: 'study_review_grade',
      arguments: {
        deckId: shown.state.deck.deckId,
        cardNoteId: card.cardNoteId,
        rating,
        durationMs: Math.max(0, Date.now() - shownAt),
      },
    });
    show(result);
  } catch (e) {
    shown = { ...shown, busy: false, message: { text: e instanceof Error ? e.message : String(e), kind: 'error' } };
    draw();
  }
}

async function start(): Promise<void> {
  const { App, applyDocumentTheme, applyHostStyleVariables } = await sdk;
  const follow = (ctx: Partial<McpUiHostContext> | undefined) => {
    if (ctx?.theme) applyDocumentTheme(ctx.theme);
    if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  };
  const a = (app = new App({ name: 'Study Bridge review', version: '1.0.0' }, {}));
  a.ontoolresult = (r) => show(r);
  a.onhostcontextchanged = (ctx) => follow(ctx);
  await a.connect();
  follow(a.getHostContext());
}

// The review panel's keys: Space or Enter shows the answer, 1–4 grade it.
document.addEventListener('keydown', (e) => {
  if (!shown?.state.card || e.ctrlKey || e.metaKey || e.altKey) return;
  if (!shown.revealed && (e.key === ' ' || e.key === 'Enter')) reveal();
  else if (shown.revealed && /^[1-4]$/.test(e.key)) void grade(RATINGS[Number(e.key) - 1]);
  else return;
  e.preventDefault();
});

void start();
