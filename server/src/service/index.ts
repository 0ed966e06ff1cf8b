/**
 * The 10xgraph language service: plain functions over one config document (its URI, version and
 * text), the project facts it is judged with (the graph, the agent modules beside it) and the
 * client's options, in the manner of `vscode-json-languageservice`'s `getLanguageService`. It
 * holds no state, talks to no connection and imports no `node:` module: what it needs of the
 * files beside a config and of the workspace's sources comes through `LanguageServiceHost`, so
 * the same service runs in the language server, in a browser and in-process in the tests.
 *
 * Every judgement is the rule set's (`analyzeConfig`), every edit a rule-set fix; the modules
 * beside this file only convert offsets and trees into LSP shapes.
 */
import type {
  CodeAction,
  CodeActionContext,
  CodeLens,
  CompletionItem,
  Diagnostic,
  DocumentLink,
  DocumentSymbol,
  FoldingRange,
  FormattingOptions,
  Hover,
  Location,
  Position,
  Range,
  SelectionRange,
  SymbolInformation,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver';
import { CodeActionKind } from 'vscode-languageserver-types';
import { type Analysis, analyzeConfig, applySafeFixes, type AuditOptions, type ConfigFiles, configSummaryOfNode, type Graph, type JsonNode, LineIndex } from '10xgraph/rules';
import type { AgentInfo } from '../agentModules';
import type { StatusParams } from '../../../common/protocol';
import { type ConfigFacts, configFactsOf, summarizeTree } from '../configFacts';
import { MAX_DOCUMENT_LENGTH, toDiagnostic, tooLargeDiagnostic } from '../diagnostics';
import { featureTree } from '../jsonPaths';
import type { Positions } from '../positions';
import type { ConfigView } from '../projectService';
import { fixAllAction, FIX_ALL_KIND, kindRequested, quickFixActions, type EditTarget } from './codeActions';
import { completeAt } from './completion';
import { formatText } from './formatting';
import { hoverAt } from './hover';
import { foldingRanges, selectionRanges } from './structure';
import { documentSymbols, flattenSymbols } from './symbols';

export { FIX_ALL_KIND } from './codeActions';
export { readAgentSpec, guessAgentSpec } from './agentSpec';
export type { ConfigView };

/** One version of a config document: what the client sent. */
export interface ConfigDocument {
  uri: string;
  version: number;
  text: string;
  /** Offsets ↔ positions of `text`; a `LineIndex` of it when absent. */
  lines?: Positions;
}

/** What the config is judged with besides its text. */
export interface ProjectFacts {
  /** The graph node names are checked against: the live graph, or the one read from the agent module's source. */
  graph?: Graph;
  /** The agent modules beside the config (completion, hover, the specs `agent-missing` offers). */
  agents?: AgentInfo;
  /** Set when `graph` was read from the agent module's source: its file name and the sentence its node diagnostics end with. */
  sourceGraph?: { fileName: string; note: string };
  /** Why `agent` names nothing: its Python module binds no such name (`agent-not-found`, with this sentence). */
  agentUnresolved?: string;
}

/** A config too large to check while typing: it gets one diagnostic and no other feature. */
export interface TooLargeConfig {
  uri: string;
  version: number;
  text: string;
  lines: Positions;
  facts: ProjectFacts;
  analysis: undefined;
}

/** A config the rule set checked, with what its features read computed on first use. */
export interface CheckedConfig extends Omit<TooLargeConfig, 'analysis'> {
  analysis: Analysis;
  /** The tree completion, hover and symbols read (tolerant when the text is not valid JSON). */
  tree(): JsonNode | undefined;
  /** The text with every safe fix applied (the fix-all action). */
  safeFixes(): { text: string; applied: number };
  /** Agent, tool names and nodes with their ranges. */
  config(): ConfigFacts;
}

/** The result of checking a config. */
export type ConfigState = TooLargeConfig | CheckedConfig;

/** What a workspace's project answers: navigation, rename, code lenses, links and the diagnostics that span files. */
export interface ProjectFeatures {
  /** The project's diagnostics of a checked config (remote tools without a handler, an agent module whose graph is not read). */
  configDiagnostics(config: CheckedConfig): Diagnostic[];
  definition(uri: string, position: Position, config: ConfigView | undefined): Promise<Location[]>;
  references(uri: string, position: Position, config: ConfigView | undefined, includeDeclaration: boolean): Promise<Location[]>;
  prepareRename(uri: string, position: Position, config: ConfigView | undefined): Promise<{ range: Range; placeholder: string } | null>;
  rename(uri: string, position: Position, config: ConfigView | undefined, newName: string): Promise<WorkspaceEdit | null>;
  codeLenses(config: ConfigView): CodeLens[];
  documentLinks(config: ConfigView): Promise<DocumentLink[]>;
  /** Completion in a source (the tool names of `registerToolHandler`). */
  completion(uri: string, position: Position): CompletionItem[];
}

/** What the service takes from its surroundings. */
export interface LanguageServiceHost {
  /** The files beside the config at `uri` (the env file, Python modules) for the rules that read them; undefined skips those rules. */
  configFiles?(uri: string): ConfigFiles | undefined;
  /** The workspace's project; without one, its features answer nothing. */
  project?: ProjectFeatures;
  /** The clock hover's "fetched … ago" reads. */
  now?(): number;
}

/** How the client wants answers shaped (from its capabilities). */
export interface ClientOptions {
  snippets?: boolean;
  hierarchicalSymbols?: boolean;
  /** Edits as versioned `documentChanges`. */
  documentChanges?: boolean;
}

/** A source document (`.ts`, `.js`…) at one version, for its quick fixes. */
export interface SourceDocument {
  uri: string;
  version: number;
  lines: Positions;
}

/** The language service's functions. */
export interface LanguageService {
  /** Checks a config with the rule set; `previous` (the last check of the same document) lets a keystroke inside a string reuse its tree. */
  checkConfig(document: ConfigDocument, facts: ProjectFacts, previous?: ConfigState): ConfigState;
  /** Every diagnostic of a config: the rule set's problems, then the project's. */
  doValidation(config: ConfigState): Diagnostic[];
  /** The project's diagnostics of a config only (what a pulled report's id follows besides the check). */
  doProjectValidation(config: ConfigState): Diagnostic[];
  doComplete(config: CheckedConfig, position: Position, options?: ClientOptions): CompletionItem[];
  /** Completion in a source document. */
  doSourceComplete(uri: string, position: Position): CompletionItem[];
  /** Hover; `status` is the live graph's, when the config is checked against one. */
  doHover(config: CheckedConfig, position: Position, status?: StatusParams): Hover | null;
  findDocumentSymbols(config: CheckedConfig, options?: ClientOptions): DocumentSymbol[] | SymbolInformation[];
  getFoldingRanges(config: CheckedConfig): FoldingRange[];
  getSelectionRanges(config: CheckedConfig, positions: Position[]): SelectionRange[];
  format(config: CheckedConfig, options: FormattingOptions, range?: Range): TextEdit[];
  /** The quick fixes of the given diagnostics and the fix-all action, as `context.only` asks. */
  doCodeActions(config: CheckedConfig, context: CodeActionContext, options?: ClientOptions): CodeAction[];
  /** The quick fixes of a source document's diagnostics. */
  doSourceCodeActions(source: SourceDocument, context: CodeActionContext, options?: ClientOptions): CodeAction[];
  /** What the project features see of a config. */
  configView(config: CheckedConfig): ConfigView;
  findDefinition(uri: string, position: Position, config?: CheckedConfig): Promise<Location[]>;
  findReferences(uri: string, position: Position, includeDeclaration: boolean, config?: CheckedConfig): Promise<Location[]>;
  prepareRename(uri: string, position: Position, config?: CheckedConfig): Promise<{ range: Range; placeholder: string } | null>;
  doRename(uri: string, position: Position, newName: string, config?: CheckedConfig): Promise<WorkspaceEdit | null>;
  getCodeLenses(config: CheckedConfig): CodeLens[];
  findDocumentLinks(config: CheckedConfig): Promise<DocumentLink[]>;
}

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

/** Creates the language service over `host`. */
export function getLanguageService(host: LanguageServiceHost = {}): LanguageService {
  const now = host.now ?? Date.now;

  const doProjectValidation = (config: ConfigState): Diagnostic[] => {
    // A text that is not JSON gets its syntax errors first, as from the rule set: the project is judged once it parses.
    if (!config.analysis?.flatTree || !host.project) return [];
    return host.project.configDiagnostics(config);
  };

  const configView = (config: CheckedConfig): ConfigView => ({ uri: config.uri, text: config.text, lines: config.lines, facts: config.config() });
  const viewOf = (config: CheckedConfig | undefined) => (config ? configView(config) : undefined);

  const editTarget = (document: { uri: string; version: number; lines: Positions }, options: ClientOptions | undefined): EditTarget => ({
    uri: document.uri,
    version: document.version,
    lines: document.lines,
    documentChanges: options?.documentChanges === true,
  });

  return {
    checkConfig(document, facts, previous) {
      const { uri, version, text } = document;
      const lines = document.lines ?? new LineIndex(text);
      if (text.length > MAX_DOCUMENT_LENGTH) return { uri, version, text, lines, facts, analysis: undefined };
      // The files beside the config, read by the rules that need them during this analysis.
      const files = host.configFiles?.(uri);
      const candidates = facts.agents?.candidates ?? [];
      const options: AuditOptions = {
        ...(facts.graph ? { graph: facts.graph } : {}),
        ...(candidates.length ? { agentCandidates: candidates } : {}),
        ...(files ? { files } : {}),
        ...(facts.agentUnresolved !== undefined ? { agentUnresolved: facts.agentUnresolved } : {}),
      };
      // A keystroke inside a string reuses the previous version's tree (not kept by this state: no chain of versions).
      const previousTree = previous?.analysis?.flatTree;
      const analysis = analyzeConfig(text, previousTree ? { ...options, previous: { flatTree: previousTree } } : options);
      const tree = once(() => featureTree(text, analysis.tree));
      return {
        uri,
        version,
        text,
        lines,
        facts,
        analysis,
        tree,
        safeFixes: once(() => applySafeFixes(text, options)),
        config: once(() => configFactsOf(analysis.flatTree ? summarizeTree(analysis.flatTree) : configSummaryOfNode(tree(), text), lines)),
      };
    },

    doValidation(config) {
      if (!config.analysis) return [tooLargeDiagnostic(config.text.length)];
      const note = config.facts.sourceGraph?.note;
      const diagnostics = config.analysis.problems.map((p) => {
        const diagnostic = toDiagnostic(p, config.lines, config.uri, config.version);
        // The user must know which graph judged: the one read from the agent module's source.
        if (note && (p.code === 'node-not-found' || p.code === 'node-not-tool-node')) diagnostic.message += note;
        return diagnostic;
      });
      return [...diagnostics, ...doProjectValidation(config)];
    },

    doProjectValidation,

    doComplete(config, position, options) {
      return completeAt({
        text: config.text,
        offset: config.lines.offsetAt(position),
        lines: config.lines,
        tree: config.tree(),
        graph: config.facts.graph,
        agentModules: config.facts.agents?.modules ?? [],
        agentCandidates: config.facts.agents?.candidates ?? [],
        snippets: options?.snippets === true,
      });
    },

    doSourceComplete(uri, position) {
      return host.project?.completion(uri, position) ?? [];
    },

    doHover(config, position, status) {
      const source = config.facts.sourceGraph;
      return hoverAt({
        offset: config.lines.offsetAt(position),
        lines: config.lines,
        tree: config.tree(),
        problems: config.analysis.problems,
        graph: config.facts.graph,
        status,
        agentModules: config.facts.agents?.modules ?? [],
        now: now(),
        ...(source ? { sourceFile: source.fileName } : {}),
      });
    },

    findDocumentSymbols(config, options) {
      const symbols = documentSymbols(config.tree(), config.lines);
      return options?.hierarchicalSymbols ? symbols : flattenSymbols(symbols, config.uri);
    },

    getFoldingRanges: (config) => foldingRanges(config.tree(), config.lines),
    getSelectionRanges: (config, positions) => selectionRanges(config.tree(), config.lines, positions),
    format: (config, options, range) => formatText(config.text, config.lines, options, range),

    doCodeActions(config, context, options) {
      const only = context.only;
      const target = editTarget(config, options);
      const actions: CodeAction[] = [];
      if (kindRequested(only, CodeActionKind.QuickFix)) actions.push(...quickFixActions(target, context.diagnostics));
      const fixAllWanted = only?.length ? kindRequested(only, FIX_ALL_KIND) : true;
      if (fixAllWanted && config.analysis.problems.some((p) => p.fixes?.some((f) => f.safe && f.edits.length > 0))) {
        const fixed = config.safeFixes();
        const action = fixAllAction(target, config.text, fixed.text, fixed.applied);
        if (action) actions.push(action);
      }
      return actions;
    },

    doSourceCodeActions(source, context, options) {
      return kindRequested(context.only, CodeActionKind.QuickFix) ? quickFixActions(editTarget(source, options), context.diagnostics) : [];
    },

    configView,
    findDefinition: async (uri, position, config) => (await host.project?.definition(uri, position, viewOf(config))) ?? [],
    findReferences: async (uri, position, includeDeclaration, config) => (await host.project?.references(uri, position, viewOf(config), includeDeclaration)) ?? [],
    prepareRename: async (uri, position, config) => (await host.project?.prepareRename(uri, position, viewOf(config))) ?? null,
    doRename: async (uri, position, newName, config) => (await host.project?.rename(uri, position, viewOf(config), newName)) ?? null,
    getCodeLenses: (config) => host.project?.codeLenses(configView(config)) ?? [],
    findDocumentLinks: async (config) => (await host.project?.documentLinks(configView(config))) ?? [],
  };
}
