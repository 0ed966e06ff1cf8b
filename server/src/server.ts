/**
 * The language server's wiring: documents, settings, the live graph and every LSP handler.
 * Each judgement is the rule set's (`analyzeConfig`), each edit is a rule-set fix; the
 * feature modules beside this file only convert. Every handler catches, logs to the
 * connection's console and answers an empty result, so no request can crash the server.
 */
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type CompletionItem,
  type Connection,
  type Diagnostic,
  DiagnosticRefreshRequest,
  DidChangeConfigurationNotification,
  type DocumentDiagnosticReport,
  DocumentDiagnosticReportKind,
  type InitializeParams,
  type InitializeResult,
  LSPErrorCodes,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type Analysis, analyzeConfig, applySafeFixes, type AuditOptions, declaredToolsOf, type Graph, type JsonNode, RULESET_VERSION } from '10xgraph/rules';
import { fetchLiveGraph } from '10xgraph/live';
import { type AgentInfo, AgentModuleCache, NO_AGENTS } from './agentModules';
import { fixAllAction, FIX_ALL_KIND, kindRequested, quickFixActions, type EditTarget } from './codeActions';
import { completeAt } from './completion';
import { MAX_DOCUMENT_LENGTH, toDiagnostic, tooLargeDiagnostic } from './diagnostics';
import { formatText } from './formatting';
import { GraphCache, defaultCacheFolder } from './graphCache';
import { hoverAt } from './hover';
import { featureTree } from './jsonPaths';
import { type FetchGraph, type LiveGraphClient, LiveGraphHub, passiveStatus, type WantedGraph } from './liveGraph';
import { folderOf, matchPathsOf } from './paths';
import { type Positions, positionsOf } from './positions';
import { matchAny } from './glob';
import { type GraphViewParams, GraphViewRequest, type GraphViewResult, RefreshGraphCommand, StatusNotification, type StatusParams, TrustNotification } from '../../common/protocol';
import {
  DEFAULT_SETTINGS,
  parseSettings,
  sectionFromInitializationOptions,
  type Settings,
  storagePathFromInitializationOptions,
  trustedFromInitializationOptions,
} from '../../common/settings';
import { documentSymbols, flattenSymbols } from './symbols';

/** What the server takes from its surroundings; tests and benchmarks may replace parts. */
export interface ServerEnvironment {
  fetchGraph?: FetchGraph;
  now?: () => number;
}

// A client that declares `workspace/configuration` but never answers must not hang validation.
const CONFIGURATION_TIMEOUT_MS = 5000;
// A save right after a fetch does not fetch again (autosave can save on every pause).
const SAVE_REFETCH_GAP_MS = 2000;
// Agent modules older than this are read again (in the background) when next asked for.
const AGENT_MODULES_TTL_MS = 10_000;

/** What every state of a served document version has. */
interface StateBase {
  uri: string;
  version: number;
  text: string;
  settings: Settings;
  lines: Positions;
  /** Identifies what the diagnostics depend on; equal ids mean equal diagnostics. */
  resultId: string;
}

/** A file too large to check while typing: it gets one diagnostic and no other feature. */
interface TooLargeState extends StateBase {
  analysis: undefined;
}

/** Everything the features of one document version need, computed once per version, graph and agent modules. */
interface CheckedState extends StateBase {
  analysis: Analysis;
  graph: Graph | undefined;
  live: LiveGraphClient | undefined;
  /** The agent modules beside the file and their specs, as `10xgraph audit` finds them. */
  agents: AgentInfo;
  /** The tree completion, hover and symbols read (tolerant when the text is not valid JSON), parsed on first use. */
  tree: () => JsonNode | undefined;
  /** The text with every safe fix applied (the fix-all action), computed on first use. */
  safeFixes: () => { text: string; applied: number };
}

type DocumentState = TooLargeState | CheckedState;

/** `compute`, called on first use only. */
function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** Wires a 10xgraph language server onto `connection`. Call `connection.listen()` afterwards. */
export function startServer(connection: Connection, environment: ServerEnvironment = {}): void {
  new TenxGraphServer(connection, environment).listen();
}

class TenxGraphServer {
  private readonly documents = new TextDocuments(TextDocument);
  private readonly now: () => number;
  private hub!: LiveGraphHub;
  private folders: string[] = [];
  private fallback: Settings = DEFAULT_SETTINGS;
  private trusted = true;
  private pull = false;
  private refreshSupport = false;
  private configurationSupport = false;
  private dynamicConfiguration = false;
  private workspaceFolderSupport = false;
  private hierarchicalSymbols = false;
  private snippets = false;
  private documentChanges = false;
  private epoch = 0;
  private readonly settingsCache = new Map<string, Promise<Settings>>();
  private readonly states = new Map<string, CheckedState>();
  private readonly agentCache: AgentModuleCache;
  private readonly published = new Set<string>();
  private readonly validating = new Set<string>();
  private readonly again = new Set<string>();
  private syncChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly environment: ServerEnvironment,
  ) {
    this.now = environment.now ?? Date.now;
    this.agentCache = new AgentModuleCache({
      ttlMs: AGENT_MODULES_TTL_MS,
      now: this.now,
      candidatesChanged: () => this.refreshDiagnostics(),
      log: (m) => this.log(m),
    });
  }

  private log(message: string): void {
    this.connection.console.log(message);
  }

  private logError(where: string, error: unknown): void {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.connection.console.error(`10xgraph: ${where} failed: ${text}`);
  }

  /** Wraps a handler so that an error is logged and answered with `fallback`. */
  private guard<P extends unknown[], R>(where: string, fallback: R, handler: (...args: P) => R | Promise<R>): (...args: P) => Promise<R> {
    return async (...args: P) => {
      try {
        return await handler(...args);
      } catch (error) {
        if (error instanceof ResponseError) throw error;
        this.logError(where, error);
        return fallback;
      }
    };
  }

  listen(): void {
    const c = this.connection;
    c.onInitialize((params) => this.initialize(params));
    c.onInitialized(this.guard('initialized', undefined, () => this.initialized()));
    c.onDidChangeConfiguration(this.guard('didChangeConfiguration', undefined, (params) => this.configurationChanged(params.settings)));
    c.onNotification(TrustNotification.type, this.guard('setTrusted', undefined, (params) => this.trustChanged(params?.trusted !== false)));
    c.onRequest(GraphViewRequest.type, this.guard('graphView', null as GraphViewResult | null, (params) => this.graphView(params)));
    c.onExecuteCommand(this.guard('executeCommand', null as StatusParams[] | null, (params) => this.executeCommand(params.command, params.arguments ?? [])));
    c.onCodeAction(this.guard('codeAction', [] as CodeAction[], (params) => this.codeActions(params)));
    c.onCompletion(this.guard('completion', [] as CompletionItem[], (params) => this.completion(params.textDocument.uri, params.position)));
    c.onHover(this.guard('hover', null, (params) => this.hover(params.textDocument.uri, params.position)));
    c.onDocumentSymbol(this.guard('documentSymbol', [], (params) => this.symbols(params.textDocument.uri)));
    c.onDocumentFormatting(this.guard('formatting', [], (params) => this.format(params.textDocument.uri, params.options)));
    c.onDocumentRangeFormatting(this.guard('rangeFormatting', [], (params) => this.format(params.textDocument.uri, params.options, params.range)));
    c.languages.diagnostics.on(this.guard('diagnostic', { kind: DocumentDiagnosticReportKind.Full, items: [] } as DocumentDiagnosticReport, (params) => this.pullDiagnostics(params.textDocument.uri, params.previousResultId)));
    this.documents.onDidChangeContent(this.guard('didChange', undefined, (event) => this.contentChanged(event.document.uri)));
    this.documents.onDidOpen(this.guard('didOpen', undefined, () => this.syncGraphs()));
    this.documents.onDidClose(this.guard('didClose', undefined, (event) => this.closed(event.document.uri)));
    this.documents.onDidSave(this.guard('didSave', undefined, (event) => this.saved(event.document.uri)));
    this.documents.listen(c);
    c.onShutdown(this.guard('shutdown', undefined, () => this.hub?.dispose()));
  }

  private initialize(params: InitializeParams): InitializeResult {
    const caps = params.capabilities;
    this.pull = caps.textDocument?.diagnostic !== undefined;
    this.refreshSupport = caps.workspace?.diagnostics?.refreshSupport === true;
    this.configurationSupport = caps.workspace?.configuration === true;
    this.dynamicConfiguration = caps.workspace?.didChangeConfiguration?.dynamicRegistration === true;
    this.workspaceFolderSupport = caps.workspace?.workspaceFolders === true;
    this.hierarchicalSymbols = caps.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport === true;
    this.snippets = caps.textDocument?.completion?.completionItem?.snippetSupport === true;
    this.documentChanges = caps.workspace?.workspaceEdit?.documentChanges === true;
    this.folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    const options: unknown = params.initializationOptions;
    this.fallback = parseSettings(sectionFromInitializationOptions(options));
    this.trusted = trustedFromInitializationOptions(options);
    const cache = new GraphCache(storagePathFromInitializationOptions(options) ?? defaultCacheFolder(), (m) => this.log(m));
    this.hub = new LiveGraphHub({
      fetchGraph: this.environment.fetchGraph ?? fetchLiveGraph,
      cache,
      rulesetVersion: RULESET_VERSION,
      now: this.now,
      log: (m) => this.log(m),
      sendStatus: (status) => void this.connection.sendNotification(StatusNotification.type, status).catch((e: unknown) => this.logError('status', e)),
      graphChanged: () => this.refreshDiagnostics(),
    });
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        ...(this.pull ? { diagnosticProvider: { identifier: '10xgraph', interFileDependencies: false, workspaceDiagnostics: false } } : {}),
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        completionProvider: { triggerCharacters: ['"', ':'], resolveProvider: false },
        hoverProvider: true,
        documentSymbolProvider: { label: '10xgraph' },
        documentFormattingProvider: true,
        documentRangeFormattingProvider: true,
        executeCommandProvider: { commands: [RefreshGraphCommand.command] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: '10xgraph-language-server', version: RULESET_VERSION },
    };
  }

  private async initialized(): Promise<void> {
    if (this.dynamicConfiguration) {
      await this.connection.client.register(DidChangeConfigurationNotification.type, { section: '10xgraph' });
    }
    if (this.workspaceFolderSupport) {
      this.connection.workspace.onDidChangeWorkspaceFolders(
        this.guard('didChangeWorkspaceFolders', undefined, (event) => {
          const removed = new Set(event.removed.map((f) => f.uri));
          this.folders = [...this.folders.filter((f) => !removed.has(f)), ...event.added.map((f) => f.uri)];
          this.settingsChanged();
        }),
      );
    }
    await this.syncGraphs();
  }

  // ---- settings ------------------------------------------------------------------------

  /** The settings of a scope (a document or folder URI), asked once and cached until they change. */
  private settingsFor(scopeUri: string): Promise<Settings> {
    let settings = this.settingsCache.get(scopeUri);
    if (!settings) {
      settings = this.fetchSettings(scopeUri);
      this.settingsCache.set(scopeUri, settings);
    }
    return settings;
  }

  private async fetchSettings(scopeUri: string): Promise<Settings> {
    if (!this.configurationSupport) return this.fallback;
    let timer: NodeJS.Timeout | undefined;
    try {
      const raw: unknown = await Promise.race([
        this.connection.workspace.getConfiguration({ scopeUri, section: '10xgraph' }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer to workspace/configuration within ${CONFIGURATION_TIMEOUT_MS} ms`)), CONFIGURATION_TIMEOUT_MS);
        }),
      ]);
      return raw === null || raw === undefined ? this.fallback : parseSettings(raw, this.fallback);
    } catch (error) {
      this.log(`10xgraph: settings of ${scopeUri} not read (${error instanceof Error ? error.message : String(error)}); using the initialization options.`);
      return this.fallback;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private configurationChanged(settings: unknown): void {
    // Clients that push settings (instead of answering workspace/configuration) send the section here.
    if (settings && typeof settings === 'object' && '10xgraph' in settings) {
      this.fallback = parseSettings((settings as Record<string, unknown>)['10xgraph']);
    }
    this.settingsChanged();
  }

  private trustChanged(trusted: boolean): void {
    if (trusted === this.trusted) return;
    this.trusted = trusted;
    this.settingsChanged();
  }

  private settingsChanged(): void {
    this.settingsCache.clear();
    this.epoch++;
    void this.syncGraphs().then(() => this.refreshDiagnostics());
  }

  private isServed(uri: string, settings: Settings): boolean {
    return matchAny(settings.files, matchPathsOf(uri, this.folders));
  }

  // ---- the live graph --------------------------------------------------------------------

  private modeOf(settings: Settings): WantedGraph['mode'] {
    if (!settings.server.enabled) return 'disabled';
    return this.trusted ? 'live' : 'untrusted';
  }

  private configOf(settings: Settings) {
    return { timeoutMs: settings.server.timeoutMs, refreshSeconds: settings.server.refreshSeconds, token: settings.server.token };
  }

  /** Brings the set of live graphs in line with the folders and open documents (one at a time). */
  private syncGraphs(): Promise<void> {
    this.syncChain = this.syncChain.then(async () => {
      try {
        const rank = { live: 2, untrusted: 1, disabled: 0 } as const;
        const wanted = new Map<string, WantedGraph>();
        const scopes = [...this.folders.map((uri) => ({ uri, document: false })), ...this.documents.all().map((d) => ({ uri: d.uri, document: true }))];
        for (const { uri, document } of scopes) {
          const settings = await this.settingsFor(uri);
          if (document && !this.isServed(uri, settings)) continue;
          const mode = this.modeOf(settings);
          const previous = wanted.get(settings.server.url);
          if (!previous || rank[mode] > rank[previous.mode]) wanted.set(settings.server.url, { mode, config: this.configOf(settings) });
        }
        this.hub.sync(wanted);
      } catch (error) {
        this.logError('syncing the live graphs', error);
      }
    });
    return this.syncChain;
  }

  private async liveClientFor(settings: Settings): Promise<LiveGraphClient | undefined> {
    if (this.modeOf(settings) !== 'live') return undefined;
    const client = this.hub.client(settings.server.url, this.configOf(settings));
    await client.ready;
    return client;
  }

  private async executeCommand(command: string, args: unknown[]): Promise<StatusParams[] | null> {
    if (command !== RefreshGraphCommand.command) return null;
    const uri = typeof args[0] === 'string' ? args[0] : undefined;
    if (uri) {
      const client = await this.liveClientFor(await this.settingsFor(uri));
      return client ? this.hub.refresh(client.url) : [];
    }
    return this.hub.refresh();
  }

  // ---- documents -------------------------------------------------------------------------

  /** The agent modules beside a document (read from the folder, never run): from memory once the folder was read. */
  private agentsOf(uri: string): AgentInfo | Promise<AgentInfo> {
    const folder = folderOf(uri);
    return folder ? this.agentCache.agentsOf(folder) : NO_AGENTS;
  }

  /**
   * The state of an open document, or undefined when it is not open or not served. The rule
   * set runs at most once per document version, graph, agent modules and settings.
   */
  private async stateOf(uri: string): Promise<DocumentState | undefined> {
    if (!this.documents.get(uri)) return undefined;
    const epoch = this.epoch;
    const settings = await this.settingsFor(uri);
    if (!this.isServed(uri, settings)) return undefined;
    const opened = this.documents.get(uri);
    if (!opened) return undefined;
    let live: LiveGraphClient | undefined;
    let agents = NO_AGENTS;
    // A file too large to check needs neither the graph nor the agent modules: it is answered without waiting for them.
    if (opened.getText().length <= MAX_DOCUMENT_LENGTH) [live, agents] = await Promise.all([this.liveClientFor(settings), this.agentsOf(uri)]);
    // The text and its version are read together, after every wait: they always belong together.
    const doc = this.documents.get(uri);
    if (!doc) return undefined;
    const version = doc.version;
    const text = doc.getText();
    if (text.length > MAX_DOCUMENT_LENGTH) return { uri, version, text, settings, lines: positionsOf(doc, text), analysis: undefined, resultId: `${epoch}|${version}|large` };
    const graph = live?.graph();
    const resultId = `${epoch}|${version}|${settings.server.url}|${live ? live.generation : '-'}|${agents.candidates.join(',')}`;
    const cached = this.states.get(uri);
    if (cached && cached.resultId === resultId && cached.text === text && cached.agents === agents) return cached;
    const options = this.auditOptions(graph, agents.candidates);
    const analysis = analyzeConfig(text, options);
    const state: CheckedState = {
      uri,
      version,
      text,
      settings,
      lines: positionsOf(doc, text),
      graph,
      live,
      agents,
      analysis,
      tree: once(() => featureTree(text, analysis.tree)),
      safeFixes: once(() => applySafeFixes(text, options)),
      resultId,
    };
    this.states.set(uri, state);
    return state;
  }

  /** The state of a document the rule set checked, or undefined (not open, not served, or too large). */
  private async checkedStateOf(uri: string): Promise<CheckedState | undefined> {
    const state = await this.stateOf(uri);
    return state?.analysis ? state : undefined;
  }

  private auditOptions(graph: Graph | undefined, agentCandidates: string[]): AuditOptions {
    return { ...(graph ? { graph } : {}), ...(agentCandidates.length ? { agentCandidates } : {}) };
  }

  private diagnosticsOf(state: DocumentState): Diagnostic[] {
    if (!state.analysis) return [tooLargeDiagnostic(state.text.length)];
    return state.analysis.problems.map((p) => toDiagnostic(p, state.lines, state.uri, state.version));
  }

  private contentChanged(uri: string): void {
    if (!this.pull) this.schedulePush(uri);
  }

  /** Validates and pushes one document; edits arriving meanwhile are coalesced into one more run. */
  private schedulePush(uri: string): void {
    if (this.validating.has(uri)) {
      this.again.add(uri);
      return;
    }
    this.validating.add(uri);
    void (async () => {
      try {
        do {
          this.again.delete(uri);
          const doc = this.documents.get(uri);
          if (!doc) break;
          const version = doc.version;
          const state = await this.stateOf(uri);
          const current = this.documents.get(uri);
          // A result for an outdated version is dropped; the newer version has its own run.
          if (!current || current.version !== version) continue;
          if (!state) {
            if (this.published.delete(uri)) await this.connection.sendDiagnostics({ uri, diagnostics: [] });
            continue;
          }
          this.published.add(uri);
          await this.connection.sendDiagnostics({ uri, version, diagnostics: this.diagnosticsOf(state) });
        } while (this.again.has(uri));
      } catch (error) {
        this.logError(`validating ${uri}`, error);
      } finally {
        this.validating.delete(uri);
      }
    })();
  }

  private async pullDiagnostics(uri: string, previousResultId: string | undefined): Promise<DocumentDiagnosticReport> {
    const doc = this.documents.get(uri);
    if (!doc) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const version = doc.version;
    const state = await this.stateOf(uri);
    if (this.documents.get(uri)?.version !== version) {
      throw new ResponseError(LSPErrorCodes.ServerCancelled, 'The document changed while it was checked.', { retriggerRequest: true });
    }
    if (!state) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    if (previousResultId !== undefined && previousResultId === state.resultId) {
      return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: state.resultId };
    }
    return { kind: DocumentDiagnosticReportKind.Full, resultId: state.resultId, items: this.diagnosticsOf(state) };
  }

  /** Asks the client to pull again, or pushes every open document again. */
  private refreshDiagnostics(): void {
    if (this.pull) {
      if (this.refreshSupport) this.connection.sendRequest(DiagnosticRefreshRequest.type).catch((e: unknown) => this.logError('workspace/diagnostic/refresh', e));
      return;
    }
    for (const doc of this.documents.all()) this.schedulePush(doc.uri);
  }

  private closed(uri: string): void {
    this.states.delete(uri);
    this.settingsCache.delete(uri);
    this.again.delete(uri);
    if (!this.pull && this.published.delete(uri)) void this.connection.sendDiagnostics({ uri, diagnostics: [] });
    void this.syncGraphs();
  }

  private async saved(uri: string): Promise<void> {
    const settings = await this.settingsFor(uri);
    if (!this.isServed(uri, settings) || this.modeOf(settings) !== 'live') return;
    const client = this.hub.existing(settings.server.url);
    if (client && client.sinceLastFetch() >= SAVE_REFETCH_GAP_MS) await client.refresh();
  }

  // ---- features ----------------------------------------------------------------------------

  private editTarget(state: DocumentState): EditTarget {
    return { uri: state.uri, version: state.version, lines: state.lines, documentChanges: this.documentChanges };
  }

  private async codeActions(params: CodeActionParams): Promise<CodeAction[]> {
    const state = await this.checkedStateOf(params.textDocument.uri);
    if (!state) return [];
    const only = params.context.only;
    const target = this.editTarget(state);
    const actions: CodeAction[] = [];
    if (kindRequested(only, CodeActionKind.QuickFix)) actions.push(...quickFixActions(target, params.context.diagnostics));
    const fixAllWanted = only?.length ? kindRequested(only, FIX_ALL_KIND) : true;
    if (fixAllWanted && state.analysis.problems.some((p) => p.fixes?.some((f) => f.safe && f.edits.length > 0))) {
      const fixed = state.safeFixes();
      const action = fixAllAction(target, state.text, fixed.text, fixed.applied);
      if (action) actions.push(action);
    }
    return actions;
  }

  private async completion(uri: string, position: { line: number; character: number }): Promise<CompletionItem[]> {
    const state = await this.checkedStateOf(uri);
    if (!state) return [];
    return completeAt({
      text: state.text,
      offset: state.lines.offsetAt(position),
      lines: state.lines,
      tree: state.tree(),
      graph: state.graph,
      agentModules: state.agents.modules,
      agentCandidates: state.agents.candidates,
      snippets: this.snippets,
    });
  }

  private async hover(uri: string, position: { line: number; character: number }) {
    const state = await this.checkedStateOf(uri);
    if (!state) return null;
    return hoverAt({
      offset: state.lines.offsetAt(position),
      lines: state.lines,
      tree: state.tree(),
      problems: state.analysis.problems,
      graph: state.graph,
      status: this.statusOf(state),
      agentModules: state.agents.modules,
      now: this.now(),
    });
  }

  private statusOf(state: CheckedState): StatusParams | undefined {
    if (state.live) return state.live.currentStatus();
    const mode = this.modeOf(state.settings);
    return mode === 'live' ? undefined : passiveStatus(state.settings.server.url, mode, RULESET_VERSION);
  }

  /**
   * What the graph view draws for a document (or a folder): the graph and status its diagnostics
   * use, and its remote tools with the verdicts of the analysis its diagnostics came from.
   */
  private async graphView(params: GraphViewParams | undefined): Promise<GraphViewResult> {
    const uri = typeof params?.uri === 'string' ? params.uri : this.folders[0];
    const state = uri !== undefined ? await this.checkedStateOf(uri) : undefined;
    // Without a checked document: the graph of the folder's settings (or the initialization options').
    const settings = state?.settings ?? (uri !== undefined ? await this.settingsFor(uri) : this.fallback);
    const live = state ? state.live : await this.liveClientFor(settings);
    const mode = this.modeOf(settings);
    let status: StatusParams;
    if (live) status = live.currentStatus();
    else if (mode !== 'live') status = passiveStatus(settings.server.url, mode, RULESET_VERSION);
    else throw new Error(`no live graph for ${settings.server.url}`);
    const graph = state ? state.graph : live?.graph();
    const tools = state ? declaredToolsOf(state.analysis, graph !== undefined) : undefined;
    return { status, ...(graph ? { graph } : {}), ...(tools ? { tools } : {}) };
  }

  private async symbols(uri: string) {
    const state = await this.checkedStateOf(uri);
    if (!state) return [];
    const symbols = documentSymbols(state.tree(), state.lines);
    return this.hierarchicalSymbols ? symbols : flattenSymbols(symbols, uri);
  }

  private async format(uri: string, options: { tabSize: number; insertSpaces: boolean }, range?: { start: { line: number; character: number }; end: { line: number; character: number } }) {
    const state = await this.checkedStateOf(uri);
    if (!state) return [];
    return formatText(state.text, state.lines, options, range);
  }
}
