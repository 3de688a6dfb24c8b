/**
 * Messages between the mind-map panel (extension host) and its webview
 * (src/webviews/mindMap/main.ts). The webview draws and asks; the host reads
 * the bridge. The webview says `ready` first; the host then sends the map, and
 * again after every library change. Requests (openCard) carry a requestId and
 * get exactly one `reply`. No `vscode` import: the webview bundle imports this.
 */

/** What a node of the map carries besides its HTML (markmap's `payload`). */
export interface MindMapPayload {
  [key: string]: unknown;
  noteid: string;
  colorIndex: number | null;
  isSubMapRoot: boolean;
  /** Stored fold state of the card (MarginNote's), or a sub-map root: drawn folded until the person unfolds it. */
  startsFolded: boolean;
  /** markmap's fold state: 1 folded, 0 open (the webview sets it). */
  fold?: number;
}

/** markmap's data tree (IPureNode), built straight from GET /study-sets/{id}/tree. */
export interface MindMapNode {
  /** HTML: escaped title, then a subtle line of page and hashtags. */
  content: string;
  payload: MindMapPayload;
  children: MindMapNode[];
}

export interface MindMapData {
  topicid: string;
  title: string;
  rootNoteId: string;
  cardCount: number;
  /** This panel's map number (1, 2, …): `rendered` echoes it, so the host knows which map is drawn. */
  seq: number;
  /** Palette colours by colorIndex (#RRGGBB, the set's note palette). */
  palette: string[];
  root: MindMapNode;
}

export type HostToWebview =
  | { type: 'map'; data: MindMapData }
  /** The map cannot be read (bridge stopped, set deleted); the last map stays drawn. */
  | { type: 'problem'; message: string }
  | { type: 'reply'; requestId: number; ok: true }
  | { type: 'reply'; requestId: number; ok: false; error: { code: string; message: string } };

export type WebviewToHost =
  | { type: 'ready' }
  /** A node was clicked: reveal the card in the Study Sets view and open its source page. */
  | { type: 'openCard'; requestId: number; noteid: string }
  /** The map was drawn: how many nodes the SVG shows, and the CSP violations seen so far (directive, what). */
  | { type: 'rendered'; seq: number; nodeCount: number; cspViolations: string[] }
  | { type: 'refresh' };

export const isMindMapMessage = (m: unknown): m is WebviewToHost => {
  const o = m as Record<string, unknown> | null;
  switch (o?.type) {
    case 'ready':
    case 'refresh':
      return true;
    case 'openCard':
      return Number.isInteger(o.requestId) && typeof o.noteid === 'string';
    case 'rendered':
      return Number.isInteger(o.seq) && Number.isInteger(o.nodeCount) && Array.isArray(o.cspViolations) && o.cspViolations.every((v) => typeof v === 'string');
    default:
      return false;
  }
};
