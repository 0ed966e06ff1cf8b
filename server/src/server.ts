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
  type TextDocumentRegistrationOptions,
  type WorkDoneProgressOptions,
  type InitializeParams,
  type InitializeResult,
  LSPErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageNotification,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type Analysis, analyzeConfig, applySafeFixes, type AuditOptions, declaredToolsOf, type Graph, type JsonNode, RULESET_VERSION } from '10xgraph/rules';
import { fetchLiveGraph } from '10xgraph/live';
import { type AgentInfo, AgentModuleCache, NO_AGENTS } from './agentModules';
import { fixAllAction, FIX_ALL_KIND, kindRequested, quickFixActions, type EditTarget } from './codeActions';
import { completeAt } from './completion';
import { configFilesOf } from './configFiles';
import { MAX_DOCUMENT_LENGTH, toDiagnostic, tooLargeDiagnostic } from './diagnostics';
import { formatText } from './formatting';
import { GraphCache, graphCacheFolder } from './graphCache';
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
  withEnvironmentToken,
} from '../../common/settings';
import { documentSymbols, flattenSymbols } from './symbols';
// ---- the project (config, agent module and handlers) ----
import { type ConfigFacts, configFactsOf, configFactsOfFlat } from './configFacts';
import { type AgentSource, graphNotReadDiagnostic, readFromSourceNote } from './project';
import { ProjectService, type ConfigView } from './projectService';
import { foldingRanges, selectionRanges } from './structure';
import { Kind, NONE, type Tree } from '10xgraph/rules';
import { configNamesKey } from './projectIndex';
import { fileURLToPath } from 'node:url';
import { basename } from 'node:path';

/** What the server takes from its surroundings; tests and benchmarks may replace parts. */
export interface ServerEnvironment {
  fetchGraph?: FetchGraph;
  now?: () => number;
}

// A client that declares `workspace/configuration` but never answers must not hang validation.
const CONFIGURATION_TIMEOUT_MS = 5000;
// A save right after a fetch does not fetch again (autosave can save on every pause).
const SAVE_REFETCH_GAP_MS = 2000;
// After an edit, the project index waits this long before its next file.
const GIVE_WAY_MS = 10;
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
  /** The `agent` value the analysis saw (the hint for the next version's static graph). */
  agentSpec: string | undefined;
  /** The agent module read from its source, when the graph judged was read from it (no live graph). */
  fromSource: AgentSource | undefined;
  /** The agent module read from its source when no graph could be read from it exactly (no live graph either). */
  unreadSource: AgentSource | undefined;
  /** Agent, tool names and nodes with their ranges, computed on first use. */
  config: () => ConfigFacts;
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
  private initial: Settings = DEFAULT_SETTINGS;
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
  private readonly invalidGlobs = new Set<string>();
  private readonly validating = new Set<string>();
  private readonly again = new Set<string>();
  private syncChain: Promise<void> = Promise.resolve();
  private readonly project: ProjectService;
  private watchedFiles = false;
  private readonly lastStatus = new Map<string, StatusParams>();
  /** When a document last changed: the project index gives way to typing. */
  private lastEdit = 0;
  /** Per server URL, the open configs judged on a graph read from their agent module. */
  private readonly sourceGraphs = new Map<string, Map<string, AgentSource>>();
  /** The `agent` of a document whose value changed, for the next read of its state. */
  private readonly agentHints = new Map<string, string | undefined>();

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
    this.project = new ProjectService({ connection, documents: this.documents, log: (m) => this.log(m), changed: () => this.refreshDiagnostics(), pause: () => this.giveWay() });
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
    c.onNotification(
      TrustNotification.type,
      this.guard('setTrusted', undefined, (params) => this.trustChanged(params?.trusted !== false)),
    );
    c.onRequest(
      GraphViewRequest.type,
      this.guard('graphView', null as GraphViewResult | null, (params) => this.graphView(params)),
    );
    c.onExecuteCommand(this.guard('executeCommand', null as StatusParams[] | null, (params) => this.executeCommand(params.command, params.arguments ?? [])));
    c.onCodeAction(this.guard('codeAction', [] as CodeAction[], (params) => this.codeActions(params)));
    c.onCompletion(this.guard('completion', [] as CompletionItem[], (params) => this.completion(params.textDocument.uri, params.position)));
    c.onHover(this.guard('hover', null, (params) => this.hover(params.textDocument.uri, params.position)));
    c.onDocumentSymbol(this.guard('documentSymbol', [], (params) => this.symbols(params.textDocument.uri)));
    c.onDocumentFormatting(this.guard('formatting', [], (params) => this.format(params.textDocument.uri, params.options)));
    c.onDocumentRangeFormatting(this.guard('rangeFormatting', [], (params) => this.format(params.textDocument.uri, params.options, params.range)));
    // ---- the project ----
    c.onDefinition(
      this.guard('definition', [], (params) => this.withConfig(params.textDocument.uri, (view) => this.project.definition(params.textDocument.uri, params.position, view))),
    );
    c.onReferences(
      this.guard('references', [], (params) =>
        this.withConfig(params.textDocument.uri, (view) => this.project.references(params.textDocument.uri, params.position, view, params.context.includeDeclaration)),
      ),
    );
    c.onPrepareRename(
      this.guard('prepareRename', null, (params) => this.withConfig(params.textDocument.uri, (view) => this.project.prepareRename(params.textDocument.uri, params.position, view))),
    );
    c.onRenameRequest(
      this.guard('rename', null, (params) =>
        this.withConfig(params.textDocument.uri, (view) => this.project.rename(params.textDocument.uri, params.position, view, params.newName)),
      ),
    );
    c.onCodeLens(
      this.guard('codeLens', [], async (params) => {
        const view = await this.configView(params.textDocument.uri);
        return view ? this.project.codeLenses(view) : [];
      }),
    );
    c.onDocumentLinks(
      this.guard('documentLink', [], async (params) => {
        const view = await this.configView(params.textDocument.uri);
        return view ? this.project.documentLinks(view) : [];
      }),
    );
    c.onFoldingRanges(
      this.guard('foldingRange', [], async (params) => {
        const state = await this.checkedStateOf(params.textDocument.uri);
        return state ? foldingRanges(state.tree(), state.lines) : [];
      }),
    );
    c.onSelectionRanges(
      this.guard('selectionRange', [], async (params) => {
        const state = await this.checkedStateOf(params.textDocument.uri);
        return state ? selectionRanges(state.tree(), state.lines, params.positions) : [];
      }),
    );
    c.onDidChangeWatchedFiles(this.guard('didChangeWatchedFiles', undefined, (params) => this.project.filesChanged(params.changes)));
    c.languages.diagnostics.on(
      this.guard('diagnostic', { kind: DocumentDiagnosticReportKind.Full, items: [] } as DocumentDiagnosticReport, (params) =>
        this.pullDiagnostics(params.textDocument.uri, params.previousResultId),
      ),
    );
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
    this.watchedFiles = caps.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    this.folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    const options: unknown = params.initializationOptions;
    this.initial = withEnvironmentToken(parseSettings(sectionFromInitializationOptions(options)), process.env.TENXGRAPH_TOKEN);
    this.fallback = this.initial;
    this.trusted = trustedFromInitializationOptions(options);
    const cache = new GraphCache(graphCacheFolder(storagePathFromInitializationOptions(options)), (m) => this.log(m));
    this.hub = new LiveGraphHub({
      fetchGraph: this.environment.fetchGraph ?? fetchLiveGraph,
      cache,
      rulesetVersion: RULESET_VERSION,
      now: this.now,
      log: (m) => this.log(m),
      sendStatus: (status) => this.sendStatus(status),
      graphChanged: () => this.refreshDiagnostics(),
    });
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        // Inter-file: a config's diagnostics depend on the handlers of the sources, and back.
        ...(this.pull ? { diagnosticProvider: { identifier: '10xgraph', interFileDependencies: true, workspaceDiagnostics: false } } : {}),
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        completionProvider: { triggerCharacters: ['"', ':', "'", '`'], resolveProvider: false },
        // Sources (.ts, .js) may be synced too (handler diagnostics, completion, navigation, rename): the
        // features of configs alone say so, so that TypeScript never gets a second formatter, outline or folding.
        hoverProvider: this.configSelector(),
        documentSymbolProvider: { label: '10xgraph', ...this.configSelector() },
        documentFormattingProvider: this.configSelector(),
        documentRangeFormattingProvider: this.configSelector(),
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        codeLensProvider: { resolveProvider: false, ...this.configSelector() },
        documentLinkProvider: { resolveProvider: false, ...this.configSelector() },
        foldingRangeProvider: this.configSelector(),
        selectionRangeProvider: this.configSelector(),
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
    if (this.watchedFiles) await this.project.registerWatchers(this.fallback.files).catch((e: unknown) => this.logError('registering file watchers', e));
    await this.syncGraphs();
    await this.indexProject();
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
    // A client that answers workspace/configuration is asked again per scope instead: what it pushes
    // is the window's section, whose URL and token may come from different settings files.
    if (!this.configurationSupport && settings && typeof settings === 'object' && '10xgraph' in settings) {
      this.fallback = parseSettings((settings as Record<string, unknown>)['10xgraph'], this.initial);
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
    void this.indexProject();
  }

  private isServed(uri: string, settings: Settings): boolean {
    return matchAny(settings.files, matchPathsOf(uri, this.folders), (glob, reason) => this.reportInvalidGlob(glob, reason));
  }

  /** Says once per glob (not per file) that a `10xgraph.files` glob is ignored, and why. */
  private reportInvalidGlob(glob: string, reason: string): void {
    if (this.invalidGlobs.has(glob)) return;
    this.invalidGlobs.add(glob);
    const shown = glob.length > 80 ? `${glob.slice(0, 80)}…` : glob;
    const message = `10xgraph.files: the glob ${JSON.stringify(shown)} is ignored: ${reason}. The other globs still apply; correct it in your settings.`;
    this.log(message);
    // A notification, not a request: nothing waits for the person to answer.
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message }).catch((e: unknown) => this.logError('window/showMessage', e));
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
  private async stateOf(uri: string, attempt = 0): Promise<DocumentState | undefined> {
    if (!this.documents.get(uri)) return undefined;
    const epoch = this.epoch;
    const settings = await this.settingsFor(uri);
    if (!this.isServed(uri, settings)) return undefined;
    const opened = this.documents.get(uri);
    if (!opened) return undefined;
    let live: LiveGraphClient | undefined;
    let agents = NO_AGENTS;
    let fromSource: AgentSource | undefined;
    const agentHint = this.agentHints.has(uri) ? this.agentHints.get(uri) : (this.states.get(uri)?.agentSpec ?? quickAgentSpec(opened.getText()));
    // A file too large to check needs neither the graph nor the agent modules: it is answered without waiting for them.
    if (opened.getText().length <= MAX_DOCUMENT_LENGTH) {
      [live, agents, fromSource] = await Promise.all([this.liveClientFor(settings), this.agentsOf(uri), this.project.agentSource(uri, agentHint)]);
    }
    // The text and its version are read together, after every wait: they always belong together.
    const doc = this.documents.get(uri);
    if (!doc) return undefined;
    const version = doc.version;
    const text = doc.getText();
    if (text.length > MAX_DOCUMENT_LENGTH) return { uri, version, text, settings, lines: positionsOf(doc, text), analysis: undefined, resultId: `${epoch}|${version}|large` };
    let graph = live?.graph();
    // Without a live graph, node names are judged on the graph read from the agent module's source (when exact).
    const unreadSource = !graph && fromSource && !fromSource.graph ? fromSource : undefined;
    if (graph) fromSource = undefined;
    else graph = fromSource?.graph;
    if (!graph) fromSource = undefined;
    const resultId = `${epoch}|${version}|${settings.server.url}|${live ? live.generation : '-'}|${agents.candidates.join(',')}|${sourceGraphId(fromSource)}|${sourceGraphId(unreadSource)}`;
    const cached = this.states.get(uri);
    if (cached && cached.resultId === resultId && cached.text === text && cached.agents === agents && cached.fromSource === fromSource && cached.unreadSource === unreadSource)
      return cached;
    const options = this.auditOptions(uri, graph, agents.candidates);
    // A keystroke inside a string reuses the previous version's tree (not kept by this state: no chain of versions).
    const previousTree = cached?.analysis?.flatTree;
    const analysis = analyzeConfig(text, previousTree ? { ...options, previous: { flatTree: previousTree } } : options);
    // A text that is not JSON keeps the last `agent` read; a JSON text without one has none.
    const agentSpec = analysis.flatTree ? agentSpecOf(analysis) : agentHint;
    // The graph read from the source was the one of another `agent` (the value just changed): read the right one.
    if (agentSpec !== agentHint && attempt < 2) {
      this.agentHints.set(uri, agentSpec);
      return this.stateOf(uri, attempt + 1);
    }
    const lines = positionsOf(doc, text);
    const state: CheckedState = {
      uri,
      version,
      text,
      settings,
      lines,
      graph,
      live,
      agents,
      analysis,
      tree: once(() => featureTree(text, analysis.tree)),
      safeFixes: once(() => applySafeFixes(text, options)),
      resultId,
      agentSpec,
      fromSource,
      unreadSource,
      config: once(() => (analysis.flatTree ? configFactsOfFlat(analysis.flatTree, lines) : configFactsOf(state.tree(), text, lines))),
    };
    this.states.set(uri, state);
    this.agentHints.delete(uri);
    this.noteSourceGraph(settings.server.url, uri, fromSource);
    // The config's declarations join the project after this version's diagnostics are out.
    setImmediate(() => {
      if (this.states.get(uri) !== state) return;
      const names = analysis.flatTree ? flatNamesKey(analysis.flatTree, previousTree) : undefined;
      if (names === undefined) this.project.configChanged({ uri, text, lines, facts: state.config() });
      else this.project.configVersion(uri, names, state.config);
    });
    return state;
  }

  /** The state of a document the rule set checked, or undefined (not open, not served, or too large). */
  private async checkedStateOf(uri: string): Promise<CheckedState | undefined> {
    const state = await this.stateOf(uri);
    return state?.analysis ? state : undefined;
  }

  private auditOptions(uri: string, graph: Graph | undefined, agentCandidates: string[]): AuditOptions {
    // The files beside the config (the env file, Python modules), read by the rules that need them during this analysis.
    const files = configFilesOf(uri, this.folders);
    return { ...(graph ? { graph } : {}), ...(agentCandidates.length ? { agentCandidates } : {}), ...(files ? { files } : {}) };
  }

  private diagnosticsOf(state: DocumentState): Diagnostic[] {
    if (!state.analysis) return [tooLargeDiagnostic(state.text.length)];
    const diagnostics = state.analysis.problems.map((p) => {
      const diagnostic = toDiagnostic(p, state.lines, state.uri, state.version);
      // The user must know which graph judged: the one read from the agent module's source.
      if (state.fromSource && (p.code === 'node-not-found' || p.code === 'node-not-tool-node')) diagnostic.message += readFromSourceNote(state.fromSource.file);
      return diagnostic;
    });
    return [...diagnostics, ...this.projectDiagnosticsOf(state)];
  }

  /** The project's diagnostics of a config (handlers, the graph read from the source). */
  private projectDiagnosticsOf(state: DocumentState): Diagnostic[] {
    // A text that is not JSON gets its syntax errors first, as from the rule set: the project is judged once it parses.
    if (!state.analysis?.flatTree) return [];
    const flat = state.analysis.flatTree;
    return [
      ...(state.unreadSource?.tell ? graphNotReadDiagnostic(state.config(), state.unreadSource) : []),
      ...this.project.configDiagnostics(
        state.uri,
        (only) => (only ? configFactsOfFlat(flat, state.lines, only) : state.config()),
        () => flatToolNames(flat),
      ),
    ];
  }

  /** What a pulled report of `state` depends on: the state, and where the project's diagnostics are (their text follows from both). */
  private reportIdOf(state: DocumentState): string {
    const project = this.projectDiagnosticsOf(state).map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`);
    return `${state.resultId}|${project.join(',')}`;
  }

  private contentChanged(uri: string): void {
    this.lastEdit = this.now();
    if (this.project.isSource(uri)) this.project.sourceChanged(uri);
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
          if (this.project.isSource(uri)) {
            const report = this.project.sourceDiagnostics(uri);
            if (report && (report.items.length > 0 || this.published.has(uri))) {
              this.published.add(uri);
              await this.connection.sendDiagnostics({ uri, version: report.version, diagnostics: report.items });
            }
            continue;
          }
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
    if (this.project.isSource(uri)) {
      const report = this.project.sourceDiagnostics(uri);
      if (!report) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
      if (previousResultId !== undefined && previousResultId === report.resultId) return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: report.resultId };
      return { kind: DocumentDiagnosticReportKind.Full, resultId: report.resultId, items: report.items };
    }
    const version = doc.version;
    const state = await this.stateOf(uri);
    if (this.documents.get(uri)?.version !== version) {
      throw new ResponseError(LSPErrorCodes.ServerCancelled, 'The document changed while it was checked.', { retriggerRequest: true });
    }
    if (!state) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
    const resultId = this.reportIdOf(state);
    if (previousResultId !== undefined && previousResultId === resultId) {
      return { kind: DocumentDiagnosticReportKind.Unchanged, resultId };
    }
    return { kind: DocumentDiagnosticReportKind.Full, resultId, items: this.diagnosticsOf(state) };
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
    this.project.closed(uri);
    this.agentHints.delete(uri);
    for (const [url, sources] of this.sourceGraphs) if (sources.has(uri)) this.noteSourceGraph(url, uri, undefined);
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
    // A source outside the project (a dependency in node_modules, an ignored folder) gets no edit, as from a rename.
    if (this.project.isSource(params.textDocument.uri) && !(await this.project.includesUri(params.textDocument.uri))) return [];
    const source = this.project.sourceState(params.textDocument.uri);
    if (source) {
      const target = { uri: params.textDocument.uri, version: source.version, lines: source.lines, documentChanges: this.documentChanges };
      return kindRequested(params.context.only, CodeActionKind.QuickFix) ? quickFixActions(target, params.context.diagnostics) : [];
    }
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
    if (this.project.isSource(uri)) return this.project.completion(uri, position);
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
      ...(state.fromSource ? { sourceFile: basename(state.fromSource.file) } : {}),
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

  private async format(
    uri: string,
    options: { tabSize: number; insertSpaces: boolean },
    range?: { start: { line: number; character: number }; end: { line: number; character: number } },
  ) {
    const state = await this.checkedStateOf(uri);
    if (!state) return [];
    return formatText(state.text, state.lines, options, range);
  }

  // ---- the project (config, agent module and handlers) ------------------------------------

  /** Sends a live graph's status, saying when node names are judged on the graph read from the agent module instead. */
  private sendStatus(status: StatusParams): void {
    this.lastStatus.set(status.url, status);
    const sources = this.sourceGraphs.get(status.url);
    const source = sources && sources.size > 0 ? [...sources.values()][0] : undefined;
    const sent: StatusParams = source?.graph ? { ...status, sourceGraph: { file: basename(source.file), nodeCount: source.graph.nodes.length } } : status;
    void this.connection.sendNotification(StatusNotification.type, sent).catch((e: unknown) => this.logError('status', e));
  }

  /** Notes which graph judged `uri` (for the status of its server URL), and tells the client when that changed. */
  private noteSourceGraph(url: string, uri: string, source: AgentSource | undefined): void {
    let sources = this.sourceGraphs.get(url);
    if (!sources) this.sourceGraphs.set(url, (sources = new Map()));
    const before = sources.get(uri);
    if (source) sources.set(uri, source);
    else sources.delete(uri);
    if (before?.file === source?.file && before?.graph?.nodes.length === source?.graph?.nodes.length) return;
    const status = this.lastStatus.get(url);
    if (status) this.sendStatus(status);
  }

  /**
   * The features of configs alone are registered for the globs of `10xgraph.files` (as the extension
   * selects configs); clients that ignore a selector in static options just see the feature enabled.
   */
  private configSelector(): TextDocumentRegistrationOptions & WorkDoneProgressOptions {
    return { documentSelector: this.fallback.files.map((pattern) => ({ scheme: 'file', pattern })) };
  }

  /** What the project features need of an open config, or undefined when `uri` is not one. */
  private async configView(uri: string): Promise<ConfigView | undefined> {
    const state = await this.checkedStateOf(uri);
    if (!state) return undefined;
    const view = { uri, text: state.text, lines: state.lines, facts: state.config() };
    // A request right after an edit sees this version's declarations in the project too (exact ranges for a rename).
    this.project.configChanged(view);
    return view;
  }

  /** Runs a project request with the config view of `uri` (undefined for a source). */
  private async withConfig<R>(uri: string, run: (view: ConfigView | undefined) => R | Promise<R>): Promise<R> {
    return run(this.project.isSource(uri) ? undefined : await this.configView(uri));
  }

  /**
   * Resolves when the project index may read its next file: at once (next turn of the event loop)
   * unless a document changed in the last few milliseconds, then once that many have passed, so
   * that the diagnostics of the next keystroke rarely wait behind a parse. One wait per file at most:
   * typing slows the index, never stops it.
   */
  private giveWay(): Promise<void> {
    const since = this.now() - this.lastEdit;
    if (since >= GIVE_WAY_MS || since < 0) return new Promise((resolve) => setImmediate(resolve));
    return new Promise((resolve) => setTimeout(resolve, GIVE_WAY_MS - since));
  }

  /** Indexes the workspace folders with their settings (again when they changed). */
  private async indexProject(): Promise<void> {
    const roots = [];
    for (const folder of this.folders) {
      if (!folder.startsWith('file:')) continue;
      const settings = await this.settingsFor(folder);
      roots.push({ path: fileURLToPath(folder), files: settings.files, exclude: settings.project.exclude });
    }
    this.project.setRoots(roots);
  }
}

const sourceGraphIds = new WeakMap<AgentSource, number>();
let nextSourceGraphId = 1;

/** An id per graph read from a source (the same object while the module is unchanged). */
function sourceGraphId(source: AgentSource | undefined): string {
  if (!source) return '-';
  let id = sourceGraphIds.get(source);
  if (id === undefined) sourceGraphIds.set(source, (id = nextSourceGraphId++));
  return `s${id}`;
}

/** The `agent` value of a strict-JSON analysis, read from the rule set's tree. */
function agentSpecOf(analysis: Analysis): string | undefined {
  const tree = analysis.flatTree;
  if (!tree || tree.kind[tree.root] !== Kind.Object) return undefined;
  const value = tree.get(tree.root, 'agent');
  return value !== NONE && tree.kind[value] === Kind.String ? tree.string(value) : undefined;
}

/** The `name` of each tool of a strict-JSON config (undefined where it is not a string), without positions. */
function flatToolNames(tree: Tree): Array<string | undefined> {
  const root = tree.root;
  if (tree.kind[root] !== Kind.Object) return [];
  const list = tree.get(root, 'remote_tools');
  if (list === NONE || tree.kind[list] !== Kind.Array) return [];
  return tree
    .children(list)
    .filter((t) => tree.kind[t] === Kind.Object)
    .map((t) => {
      const name = tree.get(t, 'name');
      return name !== NONE && tree.kind[name] === Kind.String ? tree.string(name) : undefined;
    });
}

/** The names key of each tree computed, while the tree lives. */
const namesKeys = new WeakMap<Tree, string>();
/** The keys whose string values make up the names key. */
const NAME_KEYS = new Set(['name', 'node', 'agent']);

/**
 * The names key of a config's tree. A tree the rule set built from `previous` by an edit inside
 * one string (a keystroke in a description) has the previous key, unless that string is a name.
 */
function flatNamesKey(tree: Tree, previous?: Tree): string {
  let key = namesKeys.get(tree);
  if (key !== undefined) return key;
  const edited = tree.editedString;
  const before = previous && edited !== NONE ? namesKeys.get(previous) : undefined;
  const owner = edited === NONE ? NONE : tree.parent[edited];
  if (before !== undefined && owner !== NONE && tree.kind[owner] === Kind.Property && !NAME_KEYS.has(tree.string(tree.keyOf(owner)))) key = before;
  else key = computeNamesKey(tree);
  namesKeys.set(tree, key);
  return key;
}

/** The names key of a strict-JSON config (`agent`, each tool's `name` and `node`), without positions. */
function computeNamesKey(tree: Tree): string {
  const root = tree.root;
  const text = (node: number) => (node !== NONE && tree.kind[node] === Kind.String ? tree.string(node) : undefined);
  if (tree.kind[root] !== Kind.Object) return configNamesKey(undefined, []);
  const list = tree.get(root, 'remote_tools');
  const tools =
    list !== NONE && tree.kind[list] === Kind.Array
      ? tree
          .children(list)
          .filter((t) => tree.kind[t] === Kind.Object)
          .map((t) => [text(tree.get(t, 'name')), text(tree.get(t, 'node'))] as const)
      : [];
  return configNamesKey(text(tree.get(root, 'agent')), tools);
}

/** A first guess of `agent` before the analysis (corrected after it when wrong). */
function quickAgentSpec(text: string): string | undefined {
  return /"agent"\s*:\s*"([^"\\]*)"/.exec(text)?.[1];
}
