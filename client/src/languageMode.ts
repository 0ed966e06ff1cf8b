/**
 * Keeps VS Code's own JSON support off 10xgraph files, so that a problem is reported once, by
 * the 10xgraph language server, with its code and fix.
 *
 * `10xgraph.json` opens in the `10xgraph-json` language mode (declared in the manifest: JSON
 * colours and brackets, but not the `json` language, so the built-in JSON validator never sees
 * it). Files that other `10xgraph.files` globs match open as `json` first; they are switched
 * to `10xgraph-json` here.
 */
import * as vscode from 'vscode';

/** The language id of 10xgraph config files. */
const LANGUAGE_ID = '10xgraph-json';

// Languages VS Code's JSON support (or nothing useful) would serve a matching file in.
const SWITCHABLE = new Set(['json', 'jsonc', 'plaintext']);

/** Switches every open document that `globs` match into the `10xgraph-json` mode, now and on open. */
export class LanguageModeAssigner implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private selector: vscode.DocumentSelector;

  constructor(globs: string[]) {
    this.selector = selectorOf(globs);
    this.subscription = vscode.workspace.onDidOpenTextDocument((document) => void this.assign(document));
    for (const document of vscode.workspace.textDocuments) void this.assign(document);
  }

  /** Uses new globs (the `10xgraph.files` setting changed). */
  update(globs: string[]): void {
    this.selector = selectorOf(globs);
    for (const document of vscode.workspace.textDocuments) void this.assign(document);
  }

  /** Whether `document` is one of ours. */
  matches(document: vscode.TextDocument): boolean {
    return vscode.languages.match(this.selector, document) > 0;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** Whether `document` is one of ours, open in a mode it is about to leave for `10xgraph-json`. */
  willSwitch(document: vscode.TextDocument): boolean {
    return SWITCHABLE.has(document.languageId) && this.matches(document);
  }

  private async assign(document: vscode.TextDocument): Promise<void> {
    if (!this.willSwitch(document)) return;
    try {
      await vscode.languages.setTextDocumentLanguage(document, LANGUAGE_ID);
    } catch {
      // The document closed before its mode could be set: nothing to switch.
    }
  }
}

/** The document selector of the `10xgraph.files` globs: files on disk, any language. */
export function selectorOf(globs: string[]): Array<{ scheme: 'file'; pattern: string }> {
  return globs.map((pattern) => ({ scheme: 'file', pattern }));
}
