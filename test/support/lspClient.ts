/**
 * A real LSP client for the protocol tests: it spawns the bundled server (`dist/server.js
 * --stdio`) and talks JSON-RPC with `vscode-languageserver-protocol`'s own connection. It
 * records what the server pushes (diagnostics, statuses, refresh requests, logs) so tests can
 * poll for it; nothing here sleeps a fixed time.
 */
import { poll, within } from './poll';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type ClientCapabilities,
  type ConfigurationItem,
  ConfigurationRequest,
  createProtocolConnection,
  type Diagnostic,
  DiagnosticRefreshRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  DefinitionRequest,
  DocumentDiagnosticRequest,
  type DocumentDiagnosticReport,
  ExitNotification,
  type Location,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  LogMessageNotification,
  type ProtocolConnection,
  type Position,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  ReferencesRequest,
  RegistrationRequest,
  ShowMessageNotification,
  type ShowMessageParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { StatusNotification, type StatusParams } from '../../common/protocol';

export const ROOT = join(__dirname, '..', '..');
/** The bundle under test: `dist/server.js`, or another build named by `TENXGRAPH_LS_BUNDLE`. */
export const SERVER_JS = process.env.TENXGRAPH_LS_BUNDLE ?? join(ROOT, 'dist', 'server.js');

/** How a test client presents itself. */
export interface ClientOptions {
  /** Declare pull diagnostics (`textDocument.diagnostic`). Default false: push. */
  pull?: boolean;
  /** Declare `workspace.diagnostics.refreshSupport` (pull mode). Default true. */
  refreshSupport?: boolean;
  /**
   * Answer `workspace/configuration` with this function; without it the client does not
   * declare the capability and the server falls back to `initializationOptions`.
   */
  configuration?: (item: ConfigurationItem) => unknown;
  initializationOptions?: Record<string, unknown>;
  workspaceFolders?: Array<{ uri: string; name: string }>;
  snippetSupport?: boolean;
  hierarchicalSymbols?: boolean;
  documentChanges?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  return poll(what, probe, timeoutMs);
}

/** A file URI for a path. */
export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

// Every folder made here is removed when the test file's process ends (each test file runs in a
// process of its own), whatever state its test left it in.
const made = new Set<string>();
process.once('exit', () => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test process exits. */
export function tempFolder(prefix = '10xgraph-ls-test-'): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  made.add(folder);
  return folder;
}

/** A spawned server and the client side of its connection. */
export class TestClient {
  readonly published: PublishDiagnosticsParams[] = [];
  readonly statuses: StatusParams[] = [];
  readonly logs: string[] = [];
  /** What the server showed with `window/showMessage`. */
  readonly messages: ShowMessageParams[] = [];
  readonly configurationRequests: ConfigurationItem[] = [];
  refreshRequests = 0;
  stderr = '';
  initializeResult!: InitializeResult;
  private readonly versions = new Map<string, number>();
  private exited = false;
  private ownStorage?: string;
  /** Settles when the process has exited, however early: `stop` waits on it, not on an event it may have missed. */
  private readonly gone: Promise<void>;

  private constructor(
    readonly process: ChildProcess,
    readonly connection: ProtocolConnection,
    readonly options: ClientOptions,
  ) {
    this.gone = new Promise((resolve) => {
      if (process.exitCode !== null || process.signalCode !== null) resolve();
      else process.once('exit', () => resolve());
    });
  }

  /** Spawns the server and completes `initialize`/`initialized`. */
  static async start(options: ClientOptions = {}): Promise<TestClient> {
    const child = spawn(process.execPath, [SERVER_JS, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new TestClient(child, connection, options);
    child.stderr!.on('data', (chunk: Buffer) => (client.stderr += chunk.toString()));
    child.on('exit', () => (client.exited = true));
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => void client.published.push(p));
    connection.onNotification(StatusNotification.type, (p) => void client.statuses.push(p));
    connection.onNotification(LogMessageNotification.type, (p) => void client.logs.push(p.message));
    connection.onNotification(ShowMessageNotification.type, (p) => void client.messages.push(p));
    connection.onRequest(RegistrationRequest.type, () => null);
    connection.onRequest(DiagnosticRefreshRequest.type, () => {
      client.refreshRequests++;
      return null;
    });
    connection.onRequest(ConfigurationRequest.type, (params) =>
      params.items.map((item) => {
        client.configurationRequests.push(item);
        return options.configuration ? options.configuration(item) : null;
      }),
    );
    connection.listen();
    const capabilities: ClientCapabilities = {
      workspace: {
        configuration: options.configuration !== undefined,
        didChangeConfiguration: { dynamicRegistration: true },
        workspaceFolders: true,
        workspaceEdit: { documentChanges: options.documentChanges ?? false },
        diagnostics: { refreshSupport: options.refreshSupport ?? true },
        executeCommand: {},
      },
      textDocument: {
        synchronization: { didSave: true, dynamicRegistration: false },
        publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        completion: { completionItem: { snippetSupport: options.snippetSupport ?? true } },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: options.hierarchicalSymbols ?? true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source', 'source.fixAll'] } }, isPreferredSupport: true, dataSupport: true },
        ...(options.pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
      },
    };
    // A storage folder of the client's own unless the test gives one; removed by `stop`.
    const given = options.initializationOptions?.storagePath;
    const storagePath = typeof given === 'string' ? given : tempFolder('10xgraph-ls-cache-');
    if (typeof given !== 'string') client.ownStorage = storagePath;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the server exited with code ${code} during initialize: ${client.stderr}`))));
    exited.catch(() => undefined);
    client.initializeResult = await Promise.race([
      connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: options.workspaceFolders?.[0]?.uri ?? null,
        workspaceFolders: options.workspaceFolders ?? null,
        capabilities,
        initializationOptions: { storagePath, ...options.initializationOptions },
      }),
      exited,
    ]);
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /** Opens a document (any language id: the server selects by path). */
  async open(uri: string, text: string, languageId = 'json', version = 1): Promise<void> {
    this.versions.set(uri, version);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } });
  }

  /** Replaces the whole text (or applies `changes`) and returns the new version. */
  async change(uri: string, textOrChanges: string | TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const contentChanges = typeof textOrChanges === 'string' ? [{ text: textOrChanges }] : textOrChanges;
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
    return version;
  }

  async save(uri: string): Promise<void> {
    await this.connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
  }

  async close(uri: string): Promise<void> {
    this.versions.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** `textDocument/definition` at `position` of `uri`. */
  definition(uri: string, position: Position): Promise<Location[]> {
    return this.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position }) as Promise<Location[]>;
  }

  /** `textDocument/references` at `position` of `uri`. */
  references(uri: string, position: Position, includeDeclaration = true): Promise<Location[]> {
    return this.connection.sendRequest(ReferencesRequest.type, { textDocument: { uri }, position, context: { includeDeclaration } }) as Promise<Location[]>;
  }

  async changeConfiguration(settings: unknown = null): Promise<void> {
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings });
  }

  /** The latest diagnostics pushed for `uri`, if any. */
  latest(uri: string): PublishDiagnosticsParams | undefined {
    for (let i = this.published.length - 1; i >= 0; i--) if (this.published[i].uri === uri) return this.published[i];
    return undefined;
  }

  /** Waits for pushed diagnostics of `uri` (for `version` when given) that satisfy `accept`. */
  async pushed(uri: string, version?: number, accept: (d: Diagnostic[]) => boolean = () => true): Promise<Diagnostic[]> {
    const found = await waitFor(
      () => {
        const last = this.latest(uri);
        return last && (version === undefined || last.version === version) && accept(last.diagnostics) ? last : undefined;
      },
      `diagnostics of ${uri}${version !== undefined ? ` at version ${version}` : ''}`,
    );
    return found.diagnostics;
  }

  /** Pulls diagnostics for `uri`. */
  pull(uri: string, previousResultId?: string): Promise<DocumentDiagnosticReport> {
    return this.connection.sendRequest(DocumentDiagnosticRequest.type, { textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}) });
  }

  /** The latest status sent for `url`. */
  status(url: string): StatusParams | undefined {
    for (let i = this.statuses.length - 1; i >= 0; i--) if (this.statuses[i].url === url) return this.statuses[i];
    return undefined;
  }

  /** Waits for a status of `url` that satisfies `accept`. */
  waitStatus(url: string, accept: (s: StatusParams) => boolean, what = 'a status'): Promise<StatusParams> {
    return waitFor(
      () => {
        const s = this.status(url);
        return s && accept(s) ? s : undefined;
      },
      `${what} of ${url} (last: ${JSON.stringify(this.status(url))})`,
    );
  }

  /** Whether the server process is still running. */
  get alive(): boolean {
    return !this.exited && this.process.exitCode === null;
  }

  /** Shuts the server down politely, then makes sure the process is gone. */
  async stop(): Promise<void> {
    if (this.alive) {
      try {
        await within(this.connection.sendRequest(ShutdownRequest.type), 2000);
        await this.connection.sendNotification(ExitNotification.type);
      } catch {
        // The process may already be gone.
      }
      await within(this.gone, 3000);
    }
    if (this.alive) {
      this.process.kill('SIGKILL');
      await within(this.gone, 10_000);
    }
    this.connection.dispose();
    if (this.ownStorage) rmSync(this.ownStorage, { recursive: true, force: true });
  }
}
