// What `activate` hands back: the in-VS-Code tests and other extensions read the
// bridge, the views and the open panels through it.
import type { BridgeHost } from './bridgeHost';
import type { BridgeMode, BridgeState } from './bridgeState';
import type { BridgeStatusBar } from './statusBar';
import type { LibraryChangeFeed } from './changeFeed';
import type { Review } from './reviewCommands';
import type { Sidebar } from './sidebar';
import type { MindMapPanels } from '../views/mindMapPanels';
import type { BridgeClient } from '../client/bridgeClient';
import type { ResultMarkdownEditorProvider } from '../editors/resultMarkdownEditor';
import type { PdfReaderEditorProvider } from '../editors/pdfReaderEditor';

/** What `activate` returns: used by the in-VS-Code tests and by other extensions. */
export interface StudyBridgeApi {
  readonly mode: BridgeMode;
  readonly state: BridgeState;
  readonly baseUrl: string | undefined;
  readonly port: number | undefined;
  readonly dataDir: string;
  readonly client: BridgeClient | undefined;
  /** Milliseconds activate() took: registrations only, the bridge starts behind it. */
  readonly activationMs: number;
  /** Milliseconds from the start of activate() to a listening (or attached) bridge; undefined until then. */
  readonly listeningMs: number | undefined;
  readonly statusBarText: string;
  /** File behind the "Study Bridge" log channel (the request log). */
  readonly logFile: string;
  readonly mcpRegistered: boolean;
  readonly views: Sidebar['views'];
  readonly trees: Sidebar['trees'];
  /** The result.md editor (its open previews, their state and problems). */
  readonly resultEditor: ResultMarkdownEditorProvider;
  /** The change feed the views follow (GET /library/changes). */
  readonly feed: LibraryChangeFeed;
  /** The PDF reader (its open books, their pages, Make card). */
  readonly reader: PdfReaderEditorProvider;
  /** Open mind maps of study sets (one panel per set). */
  readonly mindMaps: MindMapPanels;
  /** Review panels of decks and the status bar count of cards due today. */
  readonly review: Pick<Review, 'panels' | 'dueStatus'>;
  /** Resolves when a pending start/restart/takeover has settled. */
  whenSettled(): Promise<BridgeState>;
  /** Checkpoints the bridge this window hosts, on the thread it runs on (state.thread); rejects when not hosting. */
  checkpoint(): Promise<{ ms: number; threadId: number }>;
}

/** The parts of the window the API shows, as activate wired them. */
export interface ApiParts {
  bridgeHost: BridgeHost;
  statusBar: BridgeStatusBar;
  sidebar: Sidebar;
  feed: LibraryChangeFeed;
  resultEditor: ResultMarkdownEditorProvider;
  reader: PdfReaderEditorProvider;
  mindMaps: MindMapPanels;
  review: Review;
  logFile: string;
  mcpRegistered: boolean;
  activationMs: number;
  /** Until the bridge listens: undefined. */
  listeningMs: () => number | undefined;
  /** Settles when bridgeHost.start() has. */
  started: Promise<void>;
}

/** The API object: the bridge's fields are read live, since it restarts and changes mode. */
export function studyBridgeApi(p: ApiParts): StudyBridgeApi {
  const { bridgeHost } = p;
  return {
    get mode() {
      return bridgeHost.state.mode;
    },
    get state() {
      return bridgeHost.state;
    },
    get baseUrl() {
      return bridgeHost.state.baseUrl;
    },
    get port() {
      return bridgeHost.state.port;
    },
    get dataDir() {
      return bridgeHost.state.dataDir;
    },
    get client() {
      return bridgeHost.client;
    },
    activationMs: p.activationMs,
    get listeningMs() {
      return p.listeningMs();
    },
    get statusBarText() {
      return p.statusBar.text;
    },
    logFile: p.logFile,
    mcpRegistered: p.mcpRegistered,
    views: p.sidebar.views,
    trees: p.sidebar.trees,
    resultEditor: p.resultEditor,
    feed: p.feed,
    reader: p.reader,
    mindMaps: p.mindMaps,
    review: { panels: p.review.panels, dueStatus: p.review.dueStatus },
    whenSettled: () => p.started.then(() => waitSettled(bridgeHost)),
    checkpoint: () => bridgeHost.checkpoint(),
  };
}

async function waitSettled(h: BridgeHost): Promise<BridgeState> {
  for (let i = 0; i < 600 && h.state.mode === 'starting'; i++) await new Promise((r) => setTimeout(r, 50));
  return h.state;
}
