/**
 * What every handler of the language server is given: the connection, the open documents and
 * the server's parts (settings, live graphs, document states, diagnostics, the project and the
 * language service), and the guard that keeps an error from escaping a handler.
 */
import type { Connection, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageService } from '../service';
import type { ClientSupport } from './capabilities';
import type { Guard, Logger } from './logger';
import type { DiagnosticsScheduler } from './diagnosticsScheduler';
import type { DocumentStates } from './documentStates';
import type { LiveGraphs } from './liveGraphs';
import type { ServerProject } from './project';
import type { SettingsStore } from './settings';

/** The parts of one language server, shared by its handlers. */
export interface ServerContext extends Logger {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  now: () => number;
  /** What the client supports: read from `initialize`. */
  client: ClientSupport;
  settings: SettingsStore;
  live: LiveGraphs;
  project: ServerProject;
  states: DocumentStates;
  diagnostics: DiagnosticsScheduler;
  service: LanguageService;
  guard: Guard;
}
