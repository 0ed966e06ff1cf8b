/**
 * When diagnostics reach the client: pulled (`textDocument/diagnostic`, with result ids so that
 * an unchanged report is one word) or pushed (`publishDiagnostics` after each change, edits that
 * arrive during a run coalesced into one more run), and refreshed when a graph, the agent
 * modules, the project or the settings change.
 */
import {
  type Connection,
  DiagnosticRefreshRequest,
  type DocumentDiagnosticReport,
  DocumentDiagnosticReportKind,
  LSPErrorCodes,
  ResponseError,
  type TextDocuments,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageService } from '../service';
import type { ClientSupport } from './capabilities';
import type { Logger } from './logger';
import type { DocumentState, DocumentStates } from './documentStates';
import type { ServerProject } from './project';

/** What the scheduler needs of the server around it. */
export interface DiagnosticsHost {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  states: DocumentStates;
  project: ServerProject;
  service: LanguageService;
  logger: Logger;
  client: () => ClientSupport;
}

const EMPTY: DocumentDiagnosticReport = { kind: DocumentDiagnosticReportKind.Full, items: [] };

/** The diagnostics of one server's open documents. */
export class DiagnosticsScheduler {
  /** Documents whose last push was not empty. */
  private readonly published = new Set<string>();
  private readonly validating = new Set<string>();
  private readonly again = new Set<string>();
  /** Validations and pulls under way, and who waits for there to be none. */
  private running = 0;
  private waiting: Array<() => void> = [];

  constructor(private readonly host: DiagnosticsHost) {}

  /** Resolves when no document is being validated (at once when none is). */
  settled(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  private begin(): void {
    this.running++;
  }

  private end(): void {
    if (--this.running > 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  /** What a pulled report of `state` depends on: the state, and where the project's diagnostics are (their text follows from both). */
  private reportIdOf(state: DocumentState): string {
    const project = this.host.service.doProjectValidation(state).map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`);
    return `${state.resultId}|${project.join(',')}`;
  }

  /** Answers `textDocument/diagnostic`. */
  async pull(uri: string, previousResultId: string | undefined): Promise<DocumentDiagnosticReport> {
    this.begin();
    try {
      return await this.report(uri, previousResultId);
    } finally {
      this.end();
    }
  }

  private async report(uri: string, previousResultId: string | undefined): Promise<DocumentDiagnosticReport> {
    const { documents, project, states, service } = this.host;
    const doc = documents.get(uri);
    if (!doc) return EMPTY;
    if (project.service.isSource(uri)) {
      const report = project.service.sourceDiagnostics(uri);
      if (!report) return EMPTY;
      if (previousResultId !== undefined && previousResultId === report.resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: report.resultId };
      return { kind: DocumentDiagnosticReportKind.Full, resultId: report.resultId, items: report.items };
    }
    const version = doc.version;
    const state = await states.stateOf(uri);
    if (documents.get(uri)?.version !== version) {
      throw new ResponseError(LSPErrorCodes.ServerCancelled, 'The document changed while it was checked.', { retriggerRequest: true });
    }
    if (!state) return EMPTY;
    const resultId = this.reportIdOf(state);
    if (previousResultId !== undefined && previousResultId === resultId) {
      return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
    }
    return { kind: DocumentDiagnosticReportKind.Full, resultId, items: service.doValidation(state) };
  }

  /** A document changed: pushes its diagnostics (a pulling client asks by itself). */
  changed(uri: string): void {
    if (!this.host.client().pull) this.schedulePush(uri);
  }

  /** Validates and pushes one document; edits arriving meanwhile are coalesced into one more run. */
  private schedulePush(uri: string): void {
    if (this.validating.has(uri)) {
      this.again.add(uri);
      return;
    }
    this.validating.add(uri);
    this.begin();
    const { connection, documents, project, states, service, logger } = this.host;
    void (async () => {
      try {
        do {
          this.again.delete(uri);
          const doc = documents.get(uri);
          if (!doc) break;
          const version = doc.version;
          if (project.service.isSource(uri)) {
            const report = project.service.sourceDiagnostics(uri);
            if (report && (report.items.length > 0 || this.published.has(uri))) {
              this.published.add(uri);
              await connection.sendDiagnostics({ uri, version: report.version, diagnostics: report.items });
            }
            continue;
          }
          const state = await states.stateOf(uri);
          const current = documents.get(uri);
          // A result for an outdated version is dropped; the newer version has its own run.
          if (!current || current.version !== version) continue;
          if (!state) {
            if (this.published.delete(uri)) await connection.sendDiagnostics({ uri, diagnostics: [] });
            continue;
          }
          this.published.add(uri);
          await connection.sendDiagnostics({ uri, version, diagnostics: service.doValidation(state) });
        } while (this.again.has(uri));
      } catch (error) {
        logger.logError(`validating ${uri}`, error);
      } finally {
        this.validating.delete(uri);
        this.end();
      }
    })();
  }

  /** Asks the client to pull again, or pushes every open document again. */
  refresh(): void {
    const client = this.host.client();
    if (client.pull) {
      if (client.refreshSupport)
        this.host.connection.sendRequest(DiagnosticRefreshRequest.type).catch((e: unknown) => this.host.logger.logError('workspace/diagnostic/refresh', e));
      return;
    }
    for (const doc of this.host.documents.all()) this.schedulePush(doc.uri);
  }

  /** A document closed: a pushing client gets its diagnostics cleared. */
  closed(uri: string): void {
    this.again.delete(uri);
    if (!this.host.client().pull && this.published.delete(uri)) void this.host.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}
