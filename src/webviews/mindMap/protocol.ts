/**
 * The mind map's protocol (host: views/mindMapPanel.ts; page: main.ts), carried
 * by the webview channel (../channel). The page draws and asks; the host reads
 * the bridge. Once the page is ready the host sends the map, and again after
 * every library change. No `vscode` import: the page bundle imports this.
 */
import { anything, fields, isInt, isString, type RequestType } from '../channel/protocol';

/** The mind map panel's view type (its serializer restores it after a reload; the reader opens beside it). */
export const MIND_MAP_VIEW_TYPE = 'studyBridge.mindMap';

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

export interface MindMapTiming {
  scriptStart: number;
  mapArrived: number;
  /** markmap laid the map out (a redraw's: its first draw carries none). */
  laidOut?: number;
  drawn: number;
}

export interface MindMapProtocol {
  hostEvents: {
    map: MindMapData;
    /** The map cannot be read (bridge stopped, set deleted); the last map stays drawn. */
    problem: { message: string };
  };
  pageEvents: {
    /**
     * The map was drawn: how many nodes the SVG shows, and the CSP violations seen so far (directive, what).
     * `timing`: ms since the page's navigation began: its script started, this map arrived, it was drawn (the suite prints them).
     */
    rendered: { seq: number; nodeCount: number; cspViolations: string[]; timing?: MindMapTiming };
    refresh: void;
  };
  hostRequests: object;
  pageRequests: {
    /** A node was clicked: reveal the card in the Study Sets view and open its source page. */
    openCard: RequestType<{ noteid: string }, void>;
  };
}

const isStringList = (x: unknown) => Array.isArray(x) && x.every(isString);

export const mindMapGuards = {
  rendered: fields({
    seq: isInt,
    nodeCount: isInt,
    cspViolations: isStringList,
    timing: (x: unknown) =>
      x === undefined ||
      (fields({ scriptStart: Number.isFinite, mapArrived: Number.isFinite, drawn: Number.isFinite })(x) &&
        ((x as { laidOut?: unknown }).laidOut === undefined || Number.isFinite((x as { laidOut?: unknown }).laidOut))),
  }),
  refresh: anything,
  openCard: fields({ noteid: isString }),
};
