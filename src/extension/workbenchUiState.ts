import * as vscode from 'vscode';
import type { UiKeyOutcome } from '../server/domain/ui/uiHost';

/** Setting that lets agents change the colour theme through POST /ui-state/apply (off by default). */
export const ALLOW_THEME_SETTING = 'allowAgentThemeChanges';

/** Short names an agent may use for the built-in themes. */
const THEME_ALIASES: Record<string, string> = { dark: 'Default Dark Modern', light: 'Default Light Modern' };

function installedThemes(): Set<string> {
  const names = new Set<string>();
  for (const ext of vscode.extensions.all) {
    const themes =
      (ext.packageJSON as { contributes?: { themes?: Array<{ id?: string; label?: string }> } }).contributes?.themes ??
      [];
    for (const t of themes) {
      if (t.id) names.add(t.id);
      if (t.label) names.add(t.label);
    }
  }
  return names;
}

const themeName = (value: unknown) =>
  typeof value === 'string' ? (THEME_ALIASES[value.toLowerCase()] ?? value) : undefined;

/**
 * UI-state keys mapped onto the workbench. topicid and booklocation open the
 * set and document through WorkbenchUi.open (the bridge calls it); theme
 * writes workbench.colorTheme, only when the person allowed it; the other
 * keys have no workbench equivalent: kept in the bookmark, conditional.
 */
export class WorkbenchUiState {
  judge(key: string, value: unknown): UiKeyOutcome | undefined {
    switch (key) {
      case 'topicid':
      case 'booklocation':
        return undefined;
      case 'theme': {
        if (!vscode.workspace.getConfiguration('studyBridge').get<boolean>(ALLOW_THEME_SETTING, false)) {
          return {
            status: 'conditional',
            reason: `The person has not allowed agents to change the colour theme (setting studyBridge.${ALLOW_THEME_SETTING}); skipped.`,
          };
        }
        const name = themeName(value);
        if (!name)
          return {
            status: 'rejected',
            reason: 'theme must be the name of an installed colour theme (or dark / light).',
          };
        if (!installedThemes().has(name))
          return { status: 'rejected', reason: `No installed colour theme is named "${name}".` };
        return undefined;
      }
      default:
        return {
          status: 'conditional',
          reason: `VS Code has no equivalent of ${key}; kept in the bookmark only.`,
          keep: true,
        };
    }
  }

  async apply(patch: Record<string, unknown>): Promise<void> {
    const name = 'theme' in patch ? themeName(patch.theme) : undefined;
    if (name && vscode.workspace.getConfiguration('studyBridge').get<boolean>(ALLOW_THEME_SETTING, false)) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', name, vscode.ConfigurationTarget.Global);
    }
  }

  /** The theme as the workbench has it now. */
  live(): Record<string, unknown> {
    const theme = vscode.workspace.getConfiguration('workbench').get<string>('colorTheme');
    return theme ? { theme } : {};
  }
}
