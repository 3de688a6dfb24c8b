import * as vscode from 'vscode';

/**
 * Asks the person to consent in a modal; answers the button chosen. Scripted
 * callers (the extension tests: VS Code refuses modal dialogs under test) pass
 * their own as `{ consent }` after the command's other arguments.
 */
export type Consent = (message: string, detail: string, button: string) => Thenable<string | undefined>;

export const modalConsent: Consent = (message, detail, button) =>
  vscode.window.showWarningMessage(message, { modal: true, detail }, button);
