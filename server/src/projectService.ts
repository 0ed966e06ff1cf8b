/**
 * The project features of the language server: the index of the workspace's sources and
 * configs, the graph read from the agent module's source, and definition, references, rename,
 * code lenses, links, source completion and the handler diagnostics built on them. The server
 * hands it what a config's state knows; it never delays a config's own diagnostics (the index
 * is built in the background and only read here).
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type CodeLens,
  type CompletionItem,
  CompletionItemKind,
  type Connection,
  type Diagnostic,
  DidChangeWatchedFilesNotification,
  type DocumentLink,
  type FileEvent,
  FileChangeType,
  type Location,
  type Position,
  type Range,
  ResponseError,
  ErrorCodes,
  type TextDocuments,
  type TextEdit,
  WatchKind,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { splitAgentSpec, toolNameProblem } from '10xgraph/rules';
import type { ConfigFacts } from './configFacts';
import { positionsOf, type Positions } from './positions';
import {
  type AgentSource,
  agentSourceOf,
  configTargetAt,
  handlerNamePrefix,
  missingHandlerDiagnostics,
  moduleAttributeDiagnostics,
  moduleAttributeProblems,
  nodeSitesNamed,
  pythonAgentSourceOf,
  ProjectSnapshot,
  renameRanges,
  renameRefusal,
  sourceTargetAt,
  type Target,
  toolLensTitle,
  toolLocations,
  undeclaredHandlerDiagnostics,
} from './project';
import { type IndexLimits, ProjectIndex, type IndexRoot } from './projectIndex';
import {
  formatBytes,
  isPythonPath,
  isSourcePath,
  moduleNamesOf,
  packageEntries,
  pythonModuleFiles,
  pythonModuleNotRead,
  resolveAgentFile,
  SOURCE_EXTENSIONS,
} from '10xgraph/workspace';
import type { Problem, PythonModuleNames } from '10xgraph/rules';
import { type PythonFacts, readPythonFacts } from './pythonFacts';
import { readSourceFacts, type SourceFacts } from './sourceFacts';

/** What the service needs of the server around it. */
export interface ProjectHost {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  log: (message: string) => void;
  /** The project changed: diagnostics of open documents may change. */
  changed: () => void;
  limits?: IndexLimits;
  /** Resolves when the index may read its next file (see `ProjectIndex`). */
  pause?: () => Promise<void>;
}

/** What a config's state tells the project features. */
export interface ConfigView {
  uri: string;
  text: string;
  lines: Positions;
  facts: ConfigFacts;
}

/** An open source document at one version. */
interface SourceState {
  version: number;
  facts: SourceFacts;
  lines: Positions;
}

function pathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** The project features of one server. */
export class ProjectService {
  readonly index: ProjectIndex;
  private snapshotCache: ProjectSnapshot | undefined;
  private exactCache: { revision: number; snapshot: ProjectSnapshot } | undefined;
  private readonly sources = new Map<string, SourceState>();
  private readonly agents = new Map<string, { generation: number; value: Promise<AgentSource | undefined>; settled?: AgentSource | null }>();
  private rootsKey = '';
  private readonly parsing = new Set<string>();
  /** Open sources over the index's per-file bound, told once each (until they shrink or close). */
  private readonly tooLarge = new Set<string>();

  constructor(private readonly host: ProjectHost) {
    this.index = new ProjectIndex({ limits: host.limits, log: host.log, changed: () => host.changed(), pause: host.pause });
  }

  /** Asks the client to report file events of sources, configs and `.gitignore` files (when it can register watchers). */
  async registerWatchers(configGlobs: string[]): Promise<void> {
    const extensions = SOURCE_EXTENSIONS.map((e) => e.slice(1)).join(',');
    const kind = WatchKind.Create | WatchKind.Change | WatchKind.Delete;
    await this.host.connection.client.register(DidChangeWatchedFilesNotification.type, {
      watchers: [{ globPattern: `**/*.{${extensions},py}`, kind }, { globPattern: '**/.gitignore', kind }, ...configGlobs.map((globPattern) => ({ globPattern, kind }))],
    });
  }

  /** Indexes the workspace folders (again, when they or their settings changed). */
  setRoots(roots: IndexRoot[]): void {
    const key = JSON.stringify(roots);
    if (key === this.rootsKey) return;
    this.rootsKey = key;
    void this.index.setRoots(roots);
  }

  /** Applies `workspace/didChangeWatchedFiles`. */
  async filesChanged(changes: FileEvent[]): Promise<void> {
    for (const change of changes) {
      const path = pathOf(change.uri);
      if (path) await this.index.fileEvent(path, change.type === FileChangeType.Deleted);
    }
  }

  /**
   * The index joined by name. Diagnostics need names only: that snapshot is rebuilt when names
   * change; navigation and rename need exact positions (`exact`): rebuilt on any change.
   */
  snapshot(exact = false): ProjectSnapshot {
    const generation = this.index.generation * 2 + (this.index.complete ? 1 : 0);
    if (exact) {
      if (this.exactCache?.revision !== this.index.revision || this.exactCache.snapshot.generation !== generation) {
        this.exactCache = { revision: this.index.revision, snapshot: new ProjectSnapshot(generation, this.index) };
      }
      return this.exactCache.snapshot;
    }
    if (this.snapshotCache?.generation !== generation) this.snapshotCache = new ProjectSnapshot(generation, this.index);
    return this.snapshotCache;
  }

  // ---- sources -----------------------------------------------------------------------------

  /** Whether `uri` is a source the project reads (and not a config). */
  isSource(uri: string): boolean {
    const path = pathOf(uri);
    return path !== undefined && isSourcePath(path);
  }

  /** The facts of an open source document at its current version (parsed once per version). */
  sourceState(uri: string): SourceState | undefined {
    const doc = this.host.documents.get(uri);
    const path = pathOf(uri);
    if (!doc || !path || !isSourcePath(path)) return undefined;
    const cached = this.sources.get(uri);
    if (cached?.version === doc.version) return cached;
    const text = doc.getText();
    const state: SourceState = { version: doc.version, facts: this.readOpenSource(uri, path, text), lines: positionsOf(doc, text) };
    this.sources.set(uri, state);
    this.index.setOpen(path, { source: state.facts });
    return state;
  }

  /**
   * The facts of an open source's text. A text over the index's per-file bound (512 KB) is not
   * parsed, as the index does not read such a file from disk: a parse of megabytes at every
   * keystroke would stall the server. It registers nothing, and the log says so once.
   */
  private readOpenSource(uri: string, path: string, text: string): SourceFacts {
    const max = this.index.limits.maxFileBytes;
    // UTF-16 units never outnumber UTF-8 bytes: the length settles most texts without counting bytes.
    if (text.length <= max && Buffer.byteLength(text, 'utf8') <= max) {
      this.tooLarge.delete(uri);
      return readSourceFacts(text);
    }
    if (!this.tooLarge.has(uri)) {
      this.tooLarge.add(uri);
      this.host.log(
        `10xgraph: ${path} is larger than ${formatBytes(max)} (the bound of a source the project index reads), so its handlers and nodes are not read while it is open.`,
      );
    }
    return { handlers: [], nodes: [] };
  }

  /** Whether `uri` is a Python module (`.py`): an open one's text is read as the disk's would be. */
  isPythonModule(uri: string): boolean {
    const path = pathOf(uri);
    return path !== undefined && isPythonPath(path);
  }

  /**
   * An open Python module changed: its graphs, read from the unsaved text, stand for the disk's
   * until it closes (read after this turn, once for the edits that arrive before it), so a node
   * renamed in the editor is judged in the config before the module is saved.
   */
  pythonChanged(uri: string): void {
    this.readAfterThisTurn(uri, () => {
      const doc = this.host.documents.get(uri);
      const path = pathOf(uri);
      // The reader keeps to its own bound, the one `10xgraph audit` reads a module within.
      if (doc && path) this.index.setOpen(path, { python: readPythonFacts(doc.getText()) });
    });
  }

  /** A source document changed: its facts join the project at once (the parse runs after this turn). */
  sourceChanged(uri: string): void {
    this.readAfterThisTurn(uri, () => this.sourceState(uri));
  }

  /** Runs `read` of an open document after this turn, once for all the edits that arrive before it. */
  private readAfterThisTurn(uri: string, read: () => void): void {
    if (this.parsing.has(uri)) return;
    this.parsing.add(uri);
    setImmediate(() => {
      this.parsing.delete(uri);
      try {
        read();
      } catch (error) {
        this.host.log(`10xgraph: reading ${uri} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  /** A config document changed: its declarations join the project. */
  configChanged(view: ConfigView): void {
    const path = pathOf(view.uri);
    if (path && this.index.covers(path)) this.index.setOpen(path, { config: view.facts });
  }

  /**
   * A config's new version, its facts read only when asked for (navigation needs positions,
   * typing only names): `names` is its key (`configNamesKey`).
   */
  configVersion(uri: string, names: string, facts: () => ConfigFacts): void {
    const path = pathOf(uri);
    if (!path || !this.index.covers(path)) return;
    this.index.setOpen(
      path,
      {
        get config() {
          return facts();
        },
      },
      names,
    );
  }

  /** A document closed: the disk is the truth again. */
  closed(uri: string): void {
    this.sources.delete(uri);
    this.tooLarge.delete(uri);
    const path = pathOf(uri);
    if (path) this.index.closeOpen(path);
  }

  /** The diagnostics of an open source document and the id they depend on. */
  sourceDiagnostics(uri: string): { version: number; resultId: string; items: Diagnostic[] } | undefined {
    const state = this.sourceState(uri);
    if (!state) return undefined;
    const items = undeclaredHandlerDiagnostics(state.facts, this.snapshot(), state.lines, state.version);
    // The id follows what is reported (the project changes more often than a source's diagnostics).
    const key = items.map((d) => `${d.range.start.line}:${d.range.start.character}:${d.message}`).join('\n');
    return { version: state.version, resultId: `src|${state.version}|${key}`, items };
  }

  /** The project diagnostics of a config (remote tools without a handler). */
  configDiagnostics(uri: string, facts: (only?: (name: string) => boolean) => ConfigFacts, toolNames?: () => ReadonlyArray<string | undefined>): Diagnostic[] {
    const path = pathOf(uri);
    const snapshot = this.snapshot();
    // Nothing to judge (still indexing, no handler anywhere, every tool handled): the config's positions are not even needed.
    if (path === undefined || !snapshot.complete || snapshot.handlers.size === 0) return [];
    const names = toolNames?.();
    const missing = names?.filter((name) => name !== undefined && name.trim() !== '' && !snapshot.handlers.has(name)).length;
    if (missing === 0) return [];
    // Only the tools without a handler are reported: when they are few, the facts of the others are not
    // built; when they are many, the document's facts (built once per version) serve.
    const few = names !== undefined && missing !== undefined && missing * 4 < names.length;
    return missingHandlerDiagnostics(few ? facts((name) => !snapshot.handlers.has(name)) : facts(), snapshot, this.index.covers(path));
  }

  /**
   * The errors of a config's `module:attribute` settings whose Python module beside it binds no
   * such name (`module-attribute-missing`): the module's names as the index holds them (open
   * documents as typed), or read once (never run) when it lies outside the index; a module still
   * being read is not judged yet, and `moduleReads` moves on when it lands.
   */
  importDiagnostics(uri: string, facts: ConfigFacts, version: number | undefined): Diagnostic[] {
    const path = pathOf(uri);
    if (path === undefined || !facts.summary.imports?.length) return [];
    const folder = dirname(path);
    const lookup = (module: string): PythonModuleNames | undefined => {
      for (const file of pythonModuleFiles(join(folder, ...module.split('.')))) {
        const read = this.pythonModuleOf(file);
        if (read === 'missing') continue;
        if (read === undefined) return undefined;
        if (basename(file) !== '__init__.py') return moduleNamesOf(read, relative(folder, file).split(sep).join('/'));
        // A package's submodules, listed from its folder as `audit` lists them (a folder the index leaves out included).
        const listed = this.packageListing(dirname(file));
        if (listed === undefined) return undefined;
        return moduleNamesOf(read, relative(folder, file).split(sep).join('/'), [...new Set([...listed, ...this.submodulesOf(dirname(file))])]);
      }
      return undefined;
    };
    // Judged again only when the settings or the modules changed, not on every keystroke elsewhere in the file
    // (the closest-name search runs over every name of a module).
    const key = `${this.index.generation}:${this.moduleReads}:${JSON.stringify(facts.summary.imports)}`;
    let judged = this.importProblems.get(uri);
    if (judged?.key !== key) this.importProblems.set(uri, (judged = { key, problems: moduleAttributeProblems(facts, lookup) }));
    return moduleAttributeDiagnostics(facts, judged.problems, version);
  }

  /** The last `module-attribute-missing` problems of each config, with what they were judged on. */
  private readonly importProblems = new Map<string, { key: string; problems: Problem[] }>();

  /** Bumped when a module read for `importDiagnostics` lands: the diagnostics computed before it may change. */
  moduleReads = 0;
  private readonly outsideModules = new Map<string, { generation: number; read?: PythonFacts | 'missing' }>();

  /** A Python module's facts: the index's, or read now in the background when it lies outside it (undefined until then). */
  private pythonModuleOf(file: string): PythonFacts | 'missing' | undefined {
    const known = this.index.known(file);
    if (known) return known.python;
    const generation = this.index.generation;
    const entry = this.outsideModules.get(file);
    if (entry && entry.generation === generation) return entry.read;
    const fresh: { generation: number; read?: PythonFacts | 'missing' } = { generation, read: entry?.read };
    this.outsideModules.set(file, fresh);
    void (async () => {
      const facts = await this.index.pythonFactsOf(file);
      const read =
        facts ??
        (await stat(file).then(
          () => undefined,
          () => 'missing' as const,
        ));
      if (JSON.stringify(read) === JSON.stringify(fresh.read)) return;
      fresh.read = read;
      this.moduleReads++;
      this.host.changed();
    })().catch(() => undefined);
    return fresh.read;
  }

  private readonly packageListings = new Map<string, { generation: number; names?: string[] }>();

  /** The entries of a package's folder (`packageEntries`), listed in the background once a generation; undefined until listed. */
  private packageListing(folder: string): string[] | undefined {
    const generation = this.index.generation;
    const entry = this.packageListings.get(folder);
    if (entry && entry.generation === generation) return entry.names;
    const fresh: { generation: number; names?: string[] } = { generation, names: entry?.names };
    this.packageListings.set(folder, fresh);
    void packageEntries(folder)
      .then((names) => {
        if (fresh.names && fresh.names.length === names.length && fresh.names.every((n, i) => n === names[i])) return;
        fresh.names = names;
        this.moduleReads++;
        this.host.changed();
      })
      .catch(() => undefined);
    return fresh.names;
  }

  /** The submodules the index knows in a package's folder (its `.py` files and its folders). */
  private submodulesOf(folder: string): string[] {
    const names = new Set<string>();
    const prefix = folder + sep;
    for (const file of this.index.all()) {
      if (!file.path.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      const slash = rest.indexOf(sep);
      names.add(slash >= 0 ? rest.slice(0, slash) : rest.replace(/\.py$/, ''));
    }
    return [...names];
  }

  // ---- the agent module ----------------------------------------------------------------------

  /**
   * The agent module `spec` names for the config at `configUri`, read from its source: answered
   * from memory once read (undefined when it does not exist), read again when the index changed.
   */
  agentSource(configUri: string, spec: string | undefined): AgentSource | undefined | Promise<AgentSource | undefined> {
    const configPath = pathOf(configUri);
    if (!configPath || !spec) return undefined;
    const key = `${configPath}\n${spec}`;
    const generation = this.index.generation;
    const entry = this.agents.get(key);
    if (entry && entry.generation === generation) return entry.settled === undefined ? entry.value : (entry.settled ?? undefined);
    const value = (async () => {
      const file = await resolveAgentFile(configPath, spec);
      if (!file) return undefined;
      let next: AgentSource;
      if (isPythonPath(file)) {
        const facts = (await this.index.pythonFactsOf(file)) ?? (await this.tooLargeModule(file));
        const exportName = splitAgentSpec(spec)?.exportName;
        if (!facts || exportName === undefined) return undefined;
        next = pythonAgentSourceOf(file, relative(dirname(configPath), file).split(sep).join('/'), facts, spec, exportName);
      } else {
        const facts = await this.index.sourceFactsOf(file);
        if (!facts) return undefined;
        next = agentSourceOf(file, facts);
      }
      // The same object while nothing changed, so states that compare by identity stay cached.
      const previous = entry?.settled;
      if (previous && JSON.stringify(previous) === JSON.stringify(next)) return previous;
      // Documents were answered with the previous module meanwhile: they are judged again.
      if (previous !== undefined) setImmediate(() => this.host.changed());
      return next;
    })().catch(() => undefined);
    const fresh: { generation: number; value: Promise<AgentSource | undefined>; settled?: AgentSource | null } = { generation, value };
    this.agents.set(key, fresh);
    void value.then((v) => (fresh.settled = v ?? null));
    // While the module is read again, the last answer holds (the keystroke does not wait for the disk).
    return entry?.settled !== undefined ? (entry.settled ?? undefined) : value;
  }

  /** A Python module over the reader's bound (1 MB), as facts that say so (its nodes are not read); undefined for any other file that was not read. */
  private async tooLargeModule(file: string): Promise<PythonFacts | undefined> {
    const unread = await pythonModuleNotRead(file);
    return unread !== undefined ? { unread, exports: [] } : undefined;
  }

  // ---- requests ------------------------------------------------------------------------------

  private targetAt(uri: string, position: Position, config: ConfigView | undefined): Target | undefined {
    if (config) return configTargetAt(config.facts, position);
    const state = this.sourceState(uri);
    return state ? sourceTargetAt(state.facts, position) : undefined;
  }

  /** Go to definition: a node to where the agent module adds it, a tool name to its handlers (from a config) or declarations (from a source), `agent` to the module. */
  async definition(uri: string, position: Position, config: ConfigView | undefined): Promise<Location[]> {
    const target = this.targetAt(uri, position, config);
    if (!target) return [];
    const snapshot = this.snapshot(true);
    if (target.kind === 'tool') {
      if (config) return (snapshot.handlers.get(target.name) ?? []).map((h) => ({ uri: h.uri, range: h.site.range }));
      return (snapshot.declared.get(target.name) ?? []).map((d) => ({ uri: d.uri, range: d.name.range }));
    }
    const source = await this.agentSource(uri, config?.facts.agent?.value);
    if (!source) return [];
    const moduleUri = pathToFileURL(source.file).href;
    // The module's current facts (it may be open and edited since the graph was read).
    const facts = (await this.index.sourceFactsOf(source.file)) ?? source.facts;
    if (target.kind === 'agent') return [{ uri: moduleUri, range: facts.nodes[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }];
    return nodeSitesNamed({ ...source, facts }, target.name).map((n) => ({ uri: moduleUri, range: n.range }));
  }

  /** Every declaration and handler of the tool name at `position`. */
  async references(uri: string, position: Position, config: ConfigView | undefined, includeDeclaration: boolean): Promise<Location[]> {
    const target = this.targetAt(uri, position, config);
    if (target?.kind === 'node' && config) return this.nodeReferences(config, target.name, includeDeclaration);
    if (target?.kind !== 'tool') return [];
    const snapshot = this.snapshot(true);
    const all = toolLocations(snapshot, target.name);
    return includeDeclaration ? all : all.filter((l) => !(snapshot.declared.get(target.name) ?? []).some((d) => d.uri === l.uri && d.name.range === l.range));
  }

  /** A node's uses in this config (the tools attached to it) and, as its declaration, where the agent module adds it. */
  private async nodeReferences(config: ConfigView, name: string, includeDeclaration: boolean): Promise<Location[]> {
    const uses = config.facts.tools.filter((t) => t.node?.value === name).map((t) => ({ uri: config.uri, range: t.node!.range }));
    if (!includeDeclaration) return uses;
    const source = await this.agentSource(config.uri, config.facts.agent?.value);
    if (!source) return uses;
    const facts = (await this.index.sourceFactsOf(source.file)) ?? source.facts;
    const moduleUri = pathToFileURL(source.file).href;
    return [...nodeSitesNamed({ ...source, facts }, name).map((n) => ({ uri: moduleUri, range: n.range })), ...uses];
  }

  /** Whether the document at `uri` belongs to the project (see `ProjectIndex.includes`): only those are edited. */
  async includesUri(uri: string): Promise<boolean> {
    const path = pathOf(uri);
    return path !== undefined && (await this.index.includes(path));
  }

  /** The refusal of a rename that starts in a document outside the project. */
  private outsideRefusal(uri: string): ResponseError<void> {
    return new ResponseError(
      ErrorCodes.InvalidRequest,
      `${pathOf(uri) ?? uri} is not part of the project (it is outside the workspace folders, in node_modules, or left out by .gitignore or 10xgraph.project.exclude), so a rename cannot start here.`,
    );
  }

  /** The range a rename of the tool name at `position` replaces; refuses (with a reason) where it cannot be exact. */
  async prepareRename(uri: string, position: Position, config: ConfigView | undefined): Promise<{ range: Range; placeholder: string } | null> {
    const inside = await this.includesUri(uri);
    const target = this.targetAt(uri, position, config);
    if (target?.kind !== 'tool') {
      if (config) throw new ResponseError(ErrorCodes.InvalidRequest, 'Only a remote tool\'s "name" can be renamed here.');
      return null;
    }
    if (!inside) throw this.outsideRefusal(uri);
    const refusal = renameRefusal(this.snapshot(true), target.name, target.site);
    if (refusal) throw new ResponseError(ErrorCodes.InvalidRequest, refusal);
    return { range: (target.site as { inner: Range }).inner, placeholder: target.name };
  }

  /**
   * One edit over every config that declares the tool and every source that registers a handler
   * for it, within the project: an open document outside it (a dependency in `node_modules`, an
   * ignored folder) is never edited.
   */
  async rename(uri: string, position: Position, config: ConfigView | undefined, newName: string): Promise<WorkspaceEdit | null> {
    // Which documents belong to the project is asked of the disk first; the edit is then built in
    // one synchronous pass, so that all its ranges are those of one state of the documents.
    const included = new Map<string, boolean>();
    const here = pathOf(uri);
    for (let pass = 0; ; pass++) {
      const target = this.targetAt(uri, position, config);
      if (target?.kind !== 'tool') return null;
      const paths = [...renameRanges(this.snapshot(true), target.name).values()].map((r) => r.path);
      const unknown = [...(here === undefined ? [] : [here]), ...paths].filter((p) => !included.has(p));
      // A document that joined meanwhile, after two passes, is left out (never edited unchecked).
      if (unknown.length === 0 || pass >= 2) return this.renameEdit(uri, target, newName, included);
      for (const path of unknown) included.set(path, await this.index.includes(path));
    }
  }

  /** The rename's edit over the documents of `included` that belong to the project. */
  private renameEdit(uri: string, target: Extract<Target, { kind: 'tool' }>, newName: string, included: ReadonlyMap<string, boolean>): WorkspaceEdit {
    const here = pathOf(uri);
    if (here === undefined || included.get(here) !== true) throw this.outsideRefusal(uri);
    const snapshot = this.snapshot(true);
    const refusal = renameRefusal(snapshot, target.name, target.site);
    if (refusal) throw new ResponseError(ErrorCodes.InvalidRequest, refusal);
    if (newName === target.name) return { changes: {} };
    const problem = toolNameProblem(newName);
    if (problem) throw new ResponseError(ErrorCodes.InvalidParams, problem);
    const changes: Record<string, TextEdit[]> = {};
    for (const [docUri, { path, ranges }] of renameRanges(snapshot, target.name)) {
      if (included.get(path) !== true) continue;
      changes[docUri] = ranges.map((range) => ({ range, newText: newName }));
      if (snapshot.declared.get(newName)?.some((d) => d.uri === docUri)) {
        throw new ResponseError(ErrorCodes.InvalidParams, `${path} already declares a remote tool named '${newName}'; pick another name.`);
      }
    }
    return { changes };
  }

  /** A lens above each tool of a config: its handlers and the node it is attached to. */
  codeLenses(config: ConfigView): CodeLens[] {
    const snapshot = this.snapshot(true);
    return config.facts.tools.map((tool) => {
      const line = tool.range.start.line;
      const range = { start: { line, character: tool.range.start.character }, end: { line, character: tool.range.start.character } };
      return { range, command: { title: toolLensTitle(snapshot, tool), command: '' } };
    });
  }

  /** `agent` as a link to its module. */
  async documentLinks(config: ConfigView): Promise<DocumentLink[]> {
    const agent = config.facts.agent;
    if (!agent) return [];
    const source = await this.agentSource(config.uri, agent.value);
    const configPath = pathOf(config.uri);
    const file = source?.file ?? (configPath ? await resolveAgentFile(configPath, agent.value) : undefined);
    return file ? [{ range: agent.inner, target: pathToFileURL(file).href, tooltip: 'Open the agent module' }] : [];
  }

  /** The declared tool names, inside `registerToolHandler('…` or a `registerTool({ name: '…` of a source. */
  completion(uri: string, position: Position): CompletionItem[] {
    const doc = this.host.documents.get(uri);
    if (!doc || !this.isSource(uri)) return [];
    // A `registerTool({` may open a few lines above the `name:` being typed.
    const line = doc.getText({ start: { line: Math.max(0, position.line - 8), character: 0 }, end: position });
    const typed = handlerNamePrefix(line);
    if (!typed) return [];
    const rest = doc.getText({ start: position, end: { line: position.line + 1, character: 0 } });
    const tail = /^[A-Za-z0-9_-]*/.exec(rest)![0];
    const range = {
      start: { line: position.line, character: position.character - typed.prefix.length },
      end: { line: position.line, character: position.character + tail.length },
    };
    const snapshot = this.snapshot();
    const state = this.sourceState(uri);
    const registered = new Set(state?.facts.handlers.map((h) => h.name));
    const items: CompletionItem[] = [];
    for (const [name, declarations] of snapshot.declared) {
      if (name.includes(typed.quote) || name.includes('\\')) continue;
      const declaration = declarations[0];
      items.push({
        label: name,
        kind: CompletionItemKind.Value,
        detail: `remote tool of ${declaration.path.split(/[\\/]/).pop()}${declaration.tool.node ? ` (node ${declaration.tool.node.value})` : ''}`,
        sortText: `${registered.has(name) ? '1' : '0'}${name}`,
        textEdit: { range, newText: name },
      });
    }
    return items;
  }
}
