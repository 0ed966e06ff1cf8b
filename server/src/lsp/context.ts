/**
 * What every handler of the language server is given: the connection, the open documents and
 * the server's parts (settings, live graphs, document states, diagnostics, the project and the
 * language service), and `guard`, which keeps an error from escaping a handler.
 */
import { type Connection, ResponseError, type TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageService } from '../service';
import type { ClientSupport } from './capabilities';
import type { DiagnosticsScheduler } from './diagnosticsScheduler';
import type { DocumentStates } from './documentStates';
import type { LiveGraphs } from './liveGraphs';
import type { ServerProject } from './project';
import type { SettingsStore } from './settings';

/** Logging to the connection's console. */
export interface Logger {
  log(message: string): void;
  /** Logs that `where` failed, with the error's stack. */
  logError(where: string, error: unknown): void;
}

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
  /** Wraps a handler so that an error is logged and answered with `fallback` (a `ResponseError` goes to the client as it is). */
  guard<P extends unknown[], R>(where: string, fallback: R, handler: (...args: P) => R | Promise<R>): (...args: P) => Promise<R>;
}

/** A logger on `connection`'s console. */
export function createLogger(connection: Connection): Logger {
  return {
    log: (message) => connection.console.log(message),
    logError(where, error) {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      connection.console.error(`10xgraph: ${where} failed: ${text}`);
    },
  };
}

/** `ServerContext.guard` over `logger`. */
export function createGuard(logger: Logger): ServerContext['guard'] {
  return (where, fallback, handler) =>
    async (...args) => {
      try {
        return await handler(...args);
      } catch (error) {
        if (error instanceof ResponseError) throw error;
        logger.logError(where, error);
        return fallback;
      }
    };
}
