import * as vscode from 'vscode';
import type { BridgeHostOptions, BridgeThread } from './bridgeState';

/** Reads the studyBridge.* settings into the options of the bridge host. */
export function readBridgeOptions(context: vscode.ExtensionContext): BridgeHostOptions {
  const config = vscode.workspace.getConfiguration('studyBridge');
  const dataDir = config.get<string>('dataDir')?.trim() || context.globalStorageUri.fsPath;
  const port = config.get<number | null>('port');
  const exportFolder = config.get<string>('exportFolder')?.trim() || undefined;
  const maxUploadMb = config.get<number>('maxUploadMb');
  const maxPages = config.get<number>('maxPages');
  const importFolders = config.get<string[]>('importFolders');
  return {
    dataDir,
    // null/undefined: the default range 42380–42399; 0: any free port.
    port: typeof port === 'number' ? port : undefined,
    premium: config.get<boolean>('premium', true),
    exportFolder,
    // Unset or empty: the bridge's default (~/Documents, ~/Downloads).
    importFolders:
      Array.isArray(importFolders) && importFolders.length
        ? importFolders.filter((f) => typeof f === 'string' && f.trim()).map((f) => f.trim())
        : undefined,
    limits: {
      ...(typeof maxUploadMb === 'number' && maxUploadMb >= 1
        ? { uploadBytes: Math.floor(maxUploadMb) * 1024 * 1024 }
        : {}),
      ...(typeof maxPages === 'number' && maxPages >= 1 ? { maxPages: Math.floor(maxPages) } : {}),
    },
    thread: config.get<BridgeThread>('bridgeThread') === 'main' ? 'main' : 'worker',
    ankiConnect: ankiConnectOptions(config),
    // The person approves agents' destructive calls unless they chose otherwise (headless `serve` defaults to never).
    approvals: approvalPolicy(config.get<string>('approveAgentChanges')),
    // This bridge has a reader: a new book's first page is rendered for its first opening.
    openingPictures: true,
  };
}

const approvalPolicy = (v: string | undefined) => (v === 'all-writes' || v === 'never' ? v : 'destructive');

/** True when a change touches a setting that needs the bridge restarted. */
export function affectsBridge(e: vscode.ConfigurationChangeEvent): boolean {
  return [
    'dataDir',
    'port',
    'premium',
    'exportFolder',
    'bridgeThread',
    'maxUploadMb',
    'maxPages',
    'importFolders',
    'ankiConnect',
    'approveAgentChanges',
  ].some((k) => e.affectsConfiguration(`studyBridge.${k}`));
}

/** studyBridge.ankiConnect.port (off when unset) and .allowedOrigins: the AnkiConnect port of the bridge. */
function ankiConnectOptions(config: vscode.WorkspaceConfiguration): BridgeHostOptions['ankiConnect'] {
  const port = config.get<number | null>('ankiConnect.port');
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  const origins = config.get<string[]>('ankiConnect.allowedOrigins');
  return {
    port,
    allowedOrigins: Array.isArray(origins)
      ? origins.filter((o) => typeof o === 'string' && o.trim()).map((o) => o.trim())
      : [],
  };
}
