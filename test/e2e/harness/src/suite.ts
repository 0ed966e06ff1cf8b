/**
 * The in-host checks: they run inside the extension host next to the 10xgraph extension and
 * use VS Code's own API (`getDiagnostics`, `executeCodeActionProvider`,
 * `executeCompletionItemProvider`), as a person's editor would. Each check takes plain JSON
 * arguments, throws on failure and returns JSON, so a test outside (through the harness's
 * loopback control server) or `@vscode/test-electron` can run it.
 */
import { poll } from '../../../support/poll';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'tenxgraph.10xgraph-vscode';

/**
 * The part of the extension's API (`TenxGraphApi` in client/src/extension.ts) the checks use,
 * restated here: the harness sees the installed extension only through `exports`.
 */
interface TenxGraphApi {
  ready(): Promise<void>;
  status(): { url: string; state: string; nodeCount?: number } | undefined;
  statusText(): string;
  auditWorkspace(): Promise<{ files: number; errors: number; warnings: number; infos: number }>;
  graphView(): Promise<{ state: string; nodes: string[] } | undefined>;
}

/** A check: JSON in, JSON out, throws when the extension misbehaves. */
export type Check = (args: Record<string, unknown>) => Promise<unknown>;

/** The extension's API, activating it if needed. */
async function extensionApi(): Promise<TenxGraphApi> {
  const extension = vscode.extensions.getExtension<TenxGraphApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed`);
  const api = extension.isActive ? extension.exports : await extension.activate();
  await api.ready();
  return api;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return poll(what, probe, timeoutMs, 100);
}

function fileUri(relative: unknown): vscode.Uri {
  assert.equal(typeof relative, 'string', 'a check needs a "file" argument');
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the window has no workspace folder');
  return vscode.Uri.joinPath(folder.uri, relative as string);
}

/** Our diagnostics of a file: those the 10xgraph language server reported. */
function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === '10xgraph');
}

function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return typeof code === 'object' && code !== null ? String(code.value) : String(code);
}

function describe(diagnostic: vscode.Diagnostic): { code: string; source?: string; line: number; character: number; message: string } {
  return { code: codeOf(diagnostic), source: diagnostic.source, line: diagnostic.range.start.line, character: diagnostic.range.start.character, message: diagnostic.message };
}

/** Opens a file in an editor (the client pulls diagnostics for files shown in tabs). */
async function show(uri: vscode.Uri): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(document, { preview: false });
}

/** Waits until the file has diagnostics with every code in `codes`, and returns all of them. */
async function diagnosticsWith(uri: vscode.Uri, codes: string[]): Promise<vscode.Diagnostic[]> {
  return waitFor(`diagnostics ${codes.join(', ')} on ${vscode.workspace.asRelativePath(uri)}`, () => {
    const found = ours(uri);
    const have = new Set(found.map(codeOf));
    return codes.every((code) => have.has(code)) ? found : undefined;
  });
}

/** The checks, by name. */
export const checks: Record<string, Check> = {
  /** Opens a file in an editor. */
  async open(args) {
    const editor = await show(fileUri(args.file));
    return { file: args.file, languageId: editor.document.languageId };
  },

  /** Waits until find-references of `needle` (in `file`) lists `count` places, once the project is indexed; returns their files. */
  async references(args) {
    const uri = fileUri(args.file);
    const document = await vscode.workspace.openTextDocument(uri);
    const position = document.positionAt(document.getText().indexOf(args.needle as string) + 1);
    return waitFor(`${String(args.count)} references of ${String(args.needle)}`, async () => {
      const locations = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, position);
      return locations.length === args.count ? locations.map((l) => vscode.workspace.asRelativePath(l.uri)).sort() : undefined;
    });
  },

  /** Waits until go to definition one character into `needle` (in `file`) lands in `target`, once the project is indexed; returns the place (zero-based). */
  async definition(args) {
    const uri = fileUri(args.file);
    const target = fileUri(args.target).toString();
    const document = await vscode.workspace.openTextDocument(uri);
    const position = document.positionAt(document.getText().indexOf(args.needle as string) + 1);
    return waitFor(`the definition of ${String(args.needle)} in ${String(args.target)}`, async () => {
      const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, position);
      const places = found.map((l) => ('targetUri' in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l));
      const place = places.find((l) => l.uri.toString() === target);
      return place ? { file: vscode.workspace.asRelativePath(place.uri), line: place.range.start.line, character: place.range.start.character } : undefined;
    });
  },

  /** Waits until `file` (shown in an editor) has a diagnostic of `code` mentioning `needle` (`present`), or none (`!present`). */
  async waitForDiagnostic(args) {
    const uri = fileUri(args.file);
    await show(uri);
    const matches = (d: vscode.Diagnostic) => codeOf(d) === args.code && d.message.includes(args.needle as string);
    await waitFor(`${String(args.code)} on '${String(args.needle)}' to be ${args.present ? 'reported' : 'gone'}`, () =>
      ours(uri).some(matches) === args.present ? true : undefined,
    );
    return ours(uri).map(describe);
  },

  /** The text of a file as the editor holds it (unsaved edits included). */
  async documentText(args) {
    const document = await vscode.workspace.openTextDocument(fileUri(args.file));
    return { text: document.getText(), dirty: document.isDirty };
  },

  /** The file and line of the active editor's cursor. */
  async activeEditor() {
    const editor = vscode.window.activeTextEditor;
    return editor
      ? { file: vscode.workspace.asRelativePath(editor.document.uri), line: editor.selection.active.line, text: editor.document.lineAt(editor.selection.active.line).text }
      : null;
  },

  /** A matching file opens in the `10xgraph-json` mode (also files of a custom glob that open as `json`). */
  async languageMode(args) {
    const uri = fileUri(args.file);
    const editor = await show(uri);
    const languageId = await waitFor('the 10xgraph-json language mode', () => {
      const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      return document?.languageId === '10xgraph-json' ? document.languageId : undefined;
    });
    assert.equal(languageId, '10xgraph-json');
    return { file: args.file, languageId, shown: editor.document.uri.toString() };
  },

  /**
   * Diagnostics with the expected codes appear, carry a link to the rule's documentation, and
   * no other source (VS Code's JSON support) reports the file a second time.
   */
  async diagnostics(args) {
    const uri = fileUri(args.file);
    const codes = args.codes as string[];
    await show(uri);
    const found = await diagnosticsWith(uri, codes);
    for (const diagnostic of found) {
      const target = typeof diagnostic.code === 'object' ? diagnostic.code.target : undefined;
      // Every code has its section in docs/rules.md, the project's (handlers, the graph read from the source) too.
      assert.ok(
        target !== undefined && target.toString().endsWith(`rules.md#${codeOf(diagnostic)}`),
        `diagnostic ${codeOf(diagnostic)} links to its documentation (got ${String(target)})`,
      );
    }
    if (Array.isArray(args.exactly)) assert.deepEqual(found.map(codeOf).sort(), [...(args.exactly as string[])].sort());
    const others = vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source !== '10xgraph');
    assert.deepEqual(others.map(describe), [], 'only the 10xgraph language server reports on the file');
    return found.map(describe);
  },

  /** The quick fix of `missing-field` adds the field; the problem then goes away. */
  async quickFix(args) {
    const uri = fileUri(args.file);
    const editor = await show(uri);
    const [missing] = (await diagnosticsWith(uri, ['missing-field'])).filter((d) => codeOf(d) === 'missing-field');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, missing!.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((action) => action.edit !== undefined && action.kind?.value.startsWith('quickfix') === true && /description/.test(action.title));
    const offered = actions.map((a) => ({ title: a.title, kind: a.kind?.value, edit: a.edit !== undefined, command: a.command?.command, diagnostics: a.diagnostics?.map(codeOf) }));
    assert.ok(fix, `a quick fix for missing-field (offered: ${JSON.stringify(offered)})`);
    const before = editor.document.getText();
    assert.ok(await vscode.workspace.applyEdit(fix.edit!), 'the quick fix applies');
    const after = editor.document.getText();
    assert.ok(after.includes('"description"'), 'the fix adds "description"');
    await waitFor('missing-field to go away', () => (ours(uri).some((d) => codeOf(d) === 'missing-field') ? undefined : true));
    // Leave the fixture as it was for the next check.
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor('the file to be reverted', () => (editor.document.getText() === before && !editor.document.isDirty ? true : undefined));
    return { title: fix.title, added: after.length - before.length };
  },

  /** Completion inside a tool's `node` value offers the live graph's ToolNode names. */
  async completion(args) {
    const uri = fileUri(args.file);
    const expected = args.toolNodes as string[];
    const editor = await show(uri);
    const text = editor.document.getText();
    const at = text.indexOf('"node": "') + '"node": "'.length;
    assert.ok(at > '"node": "'.length, 'the fixture has a "node" value');
    const position = editor.document.positionAt(at);
    const labels = await waitFor(`ToolNode names ${expected.join(', ')} in completion`, async () => {
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position);
      const names = list.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
      return expected.every((name) => names.includes(name)) ? names : undefined;
    });
    return { labels };
  },

  /** `Audit Workspace` reports files no editor shows, in the Problems panel (the diagnostics API). */
  async audit(args) {
    const api = await extensionApi();
    const uri = fileUri(args.file);
    const codes = args.codes as string[];
    assert.ok(
      !vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString())),
      'the audited file is not open in an editor',
    );
    assert.deepEqual(ours(uri), [], 'no diagnostics before the audit');
    const summary = await api.auditWorkspace();
    const found = ours(uri);
    const have = new Set(found.map(codeOf));
    for (const code of codes) assert.ok(have.has(code), `the audit reports ${code} on ${String(args.file)} (got ${[...have].join(', ')})`);
    return { summary, diagnostics: found.map(describe) };
  },

  /** Every diagnostic of a file, whatever its source (for diagnosing a failed run). */
  async allDiagnostics(args) {
    const uri = fileUri(args.file);
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    return { languageId: document?.languageId ?? null, diagnostics: vscode.languages.getDiagnostics(uri).map(describe) };
  },

  /** The extension's state as the status bar shows it. */
  async state() {
    const api = await extensionApi();
    return { trusted: vscode.workspace.isTrusted, status: api.status() ?? null, statusText: api.statusText() };
  },

  /** Waits until the status is `args.state`, and returns it. */
  async waitForState(args) {
    const api = await extensionApi();
    return waitFor(`the status ${String(args.state)}`, () => {
      const status = api.status();
      return status?.state === args.state ? { status, statusText: api.statusText() } : undefined;
    });
  },

  /** What the graph view shows (undefined when it is closed). */
  async graphView() {
    const api = await extensionApi();
    return (await api.graphView()) ?? null;
  },
};
