/**
 * The `10xgraph` settings as the extension reads them, normalised by the very parser the
 * language server uses, so both sides agree on what a hand-edited settings.json means.
 */
import * as vscode from 'vscode';
import { parseSettings, type Settings } from '../../common/settings';

export type { Settings };

export const SECTION = '10xgraph';

/** Reads the `10xgraph` section for a resource (or the window when none). */
export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  return parseSettings(plainSection(scope));
}

/**
 * The `10xgraph` section as a plain object, the way `workspace/configuration` answers it:
 * the server gets exactly what the user wrote, defaults included, and normalises it itself.
 */
export function plainSection(scope?: vscode.ConfigurationScope): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
}
