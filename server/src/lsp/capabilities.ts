/**
 * Capability negotiation: what the client says it supports (read once from `initialize`) and
 * what the server offers in return.
 */
import {
  type ClientCapabilities,
  CodeActionKind,
  type ServerCapabilities,
  type TextDocumentRegistrationOptions,
  TextDocumentSyncKind,
  type WorkDoneProgressOptions,
} from 'vscode-languageserver';
import { RefreshGraphCommand } from '../../../common/protocol';
import { FIX_ALL_KIND } from '../service';

/** The client capabilities the server acts on. */
export interface ClientSupport {
  /** Pull diagnostics (`textDocument/diagnostic`) instead of published ones. */
  pull: boolean;
  /** `workspace/diagnostic/refresh`. */
  refreshSupport: boolean;
  /** `workspace/configuration`. */
  configuration: boolean;
  dynamicConfiguration: boolean;
  workspaceFolders: boolean;
  hierarchicalSymbols: boolean;
  snippets: boolean;
  /** Versioned `documentChanges` in workspace edits. */
  documentChanges: boolean;
  /** Dynamic registration of `workspace/didChangeWatchedFiles`. */
  watchedFiles: boolean;
}

/** Before `initialize`: nothing. */
export const NO_CLIENT_SUPPORT: ClientSupport = {
  pull: false,
  refreshSupport: false,
  configuration: false,
  dynamicConfiguration: false,
  workspaceFolders: false,
  hierarchicalSymbols: false,
  snippets: false,
  documentChanges: false,
  watchedFiles: false,
};

/** Reads what the server acts on from the client's capabilities. */
export function readClientSupport(caps: ClientCapabilities): ClientSupport {
  return {
    pull: caps.textDocument?.diagnostic !== undefined,
    refreshSupport: caps.workspace?.diagnostics?.refreshSupport === true,
    configuration: caps.workspace?.configuration === true,
    dynamicConfiguration: caps.workspace?.didChangeConfiguration?.dynamicRegistration === true,
    workspaceFolders: caps.workspace?.workspaceFolders === true,
    hierarchicalSymbols: caps.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport === true,
    snippets: caps.textDocument?.completion?.completionItem?.snippetSupport === true,
    documentChanges: caps.workspace?.workspaceEdit?.documentChanges === true,
    watchedFiles: caps.workspace?.didChangeWatchedFiles?.dynamicRegistration === true,
  };
}

/**
 * What the server offers. The features of configs alone are registered for the globs of
 * `10xgraph.files` (as the extension selects configs); clients that ignore a selector in static
 * options just see the feature enabled.
 */
export function serverCapabilities(client: ClientSupport, configGlobs: readonly string[]): ServerCapabilities {
  const configs: TextDocumentRegistrationOptions & WorkDoneProgressOptions = { documentSelector: configGlobs.map((pattern) => ({ scheme: 'file', pattern })) };
  return {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
    // Inter-file: a config's diagnostics depend on the handlers of the sources, and back.
    ...(client.pull ? { diagnosticProvider: { identifier: '10xgraph', interFileDependencies: true, workspaceDiagnostics: false } } : {}),
    codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
    completionProvider: { triggerCharacters: ['"', ':', "'", '`'], resolveProvider: false },
    // Sources (.ts, .js) may be synced too (handler diagnostics, completion, navigation, rename): the
    // features of configs alone say so, so that TypeScript never gets a second formatter, outline or folding.
    hoverProvider: configs,
    documentSymbolProvider: { label: '10xgraph', ...configs },
    documentFormattingProvider: configs,
    documentRangeFormattingProvider: configs,
    definitionProvider: true,
    referencesProvider: true,
    renameProvider: { prepareProvider: true },
    codeLensProvider: { resolveProvider: false, ...configs },
    documentLinkProvider: { resolveProvider: false, ...configs },
    foldingRangeProvider: configs,
    selectionRangeProvider: configs,
    executeCommandProvider: { commands: [RefreshGraphCommand.command] },
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
}
