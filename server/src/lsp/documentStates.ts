/**
 * The state of each open config: its settings, the facts it is judged with (the live graph, the
 * agent modules beside it, the graph read from its agent module's source) and the language
 * service's check of its text. The rule set runs at most once per document version, graph,
 * agent modules and settings; a request of any feature reads the state of the version it sees.
 */
import { basename } from 'node:path';
import type { TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Settings } from '../../../common/settings';
import { type AgentInfo, AgentModuleCache, NO_AGENTS } from '../agentModules';
import { MAX_DOCUMENT_LENGTH } from '../diagnostics';
import type { LiveGraphClient } from '../liveGraph';
import { folderOf } from '../paths';
import { positionsOf } from '../positions';
import { readFromSourceNote } from '10xgraph/rules';
import type { AgentSource } from '../project';
import { type CheckedConfig, type ConfigState, guessAgentSpec, type LanguageService, readAgentSpec } from '../service';
import { flatNamesKey } from './configNames';
import type { Logger } from './logger';
import type { LiveGraphs } from './liveGraphs';
import type { ServerProject } from './project';
import type { SettingsStore } from './settings';

// Agent modules older than this are read again (in the background) when next asked for.
const AGENT_MODULES_TTL_MS = 10_000;

/** What the server keeps of a served config version beside the language service's check. */
interface Served {
  settings: Settings;
  /** Identifies what the diagnostics depend on; equal ids mean equal diagnostics. */
  resultId: string;
  live: LiveGraphClient | undefined;
  /** The agent modules beside the file and their specs, as `10xgraph audit` finds them. */
  agents: AgentInfo;
  /** The `agent` value the analysis saw (the hint for the next version's static graph). */
  agentSpec: string | undefined;
  /** The agent module read from its source, when the graph judged was read from it (no live graph). */
  fromSource: AgentSource | undefined;
  /** The agent module read from its source when no graph could be read from it exactly (no live graph either). */
  unreadSource: AgentSource | undefined;
}

/** A served config version. */
export type DocumentState = ConfigState & Served;
/** A served config version the rule set checked. */
export type CheckedState = CheckedConfig & Served;

/** What the document states need of the server around them. */
export interface DocumentStatesHost {
  documents: TextDocuments<TextDocument>;
  settings: SettingsStore;
  live: LiveGraphs;
  project: ServerProject;
  service: LanguageService;
  logger: Logger;
  now: () => number;
  /** The agent modules beside a document changed: its diagnostics may change. */
  agentsChanged: () => void;
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

/** The states of the open configs of one server. */
export class DocumentStates {
  private readonly states = new Map<string, CheckedState>();
  /** The `agent` of a document whose value changed, for the next read of its state. */
  private readonly agentHints = new Map<string, string | undefined>();
  private readonly agentCache: AgentModuleCache;

  constructor(private readonly host: DocumentStatesHost) {
    this.agentCache = new AgentModuleCache({
      ttlMs: AGENT_MODULES_TTL_MS,
      now: host.now,
      candidatesChanged: () => host.agentsChanged(),
      log: (m) => host.logger.log(m),
    });
  }

  /** The unread agent module of a config this server checked (for the project's diagnostics of it). */
  unreadSourceOf(config: CheckedConfig): AgentSource | undefined {
    return 'unreadSource' in config ? (config as CheckedState).unreadSource : undefined;
  }

  /** The agent modules beside a document (read from the folder, never run): from memory once the folder was read. */
  private agentsOf(uri: string): AgentInfo | Promise<AgentInfo> {
    const folder = folderOf(uri);
    return folder ? this.agentCache.agentsOf(folder) : NO_AGENTS;
  }

  /** The state of an open document, or undefined when it is not open or not served. */
  async stateOf(uri: string, attempt = 0): Promise<DocumentState | undefined> {
    const { documents, settings: store, live: graphs, project, service } = this.host;
    if (!documents.get(uri)) return undefined;
    const epoch = store.epoch;
    const settings = await store.settingsFor(uri);
    if (!store.isServed(uri, settings)) return undefined;
    const opened = documents.get(uri);
    if (!opened) return undefined;
    let live: LiveGraphClient | undefined;
    let agents = NO_AGENTS;
    let fromSource: AgentSource | undefined;
    const agentHint = this.agentHints.has(uri) ? this.agentHints.get(uri) : (this.states.get(uri)?.agentSpec ?? guessAgentSpec(opened.getText()));
    // A file too large to check needs neither the graph nor the agent modules: it is answered without waiting for them.
    if (opened.getText().length <= MAX_DOCUMENT_LENGTH) {
      [live, agents, fromSource] = await Promise.all([graphs.clientFor(settings), this.agentsOf(uri), project.service.agentSource(uri, agentHint)]);
    }
    // The text and its version are read together, after every wait: they always belong together.
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const version = doc.version;
    const text = doc.getText();
    if (text.length > MAX_DOCUMENT_LENGTH) {
      const large = service.checkConfig({ uri, version, text, lines: positionsOf(doc, text) }, {});
      return { ...large, settings, resultId: `${epoch}|${version}|large`, live: undefined, agents, agentSpec: undefined, fromSource: undefined, unreadSource: undefined };
    }
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
    const checked = service.checkConfig(
      { uri, version, text, lines: positionsOf(doc, text) },
      {
        ...(graph ? { graph } : {}),
        agents,
        ...(fromSource ? { sourceGraph: { fileName: fromSource.shown ?? basename(fromSource.file), note: readFromSourceNote(fromSource.file, fromSource.shown) } } : {}),
        // The Python agent module binds no such name: the config's error, as `10xgraph audit` reports it.
        ...(unreadSource?.missing !== undefined ? { agentUnresolved: unreadSource.missing } : {}),
      },
      cached,
    );
    if (!checked.analysis) return undefined;
    const analysis = checked.analysis;
    // A text that is not JSON keeps the last `agent` read; a JSON text without one has none.
    const agentSpec = analysis.flatTree ? readAgentSpec(analysis) : agentHint;
    // The graph read from the source was the one of another `agent` (the value just changed): read the right one.
    if (agentSpec !== agentHint && attempt < 2) {
      this.agentHints.set(uri, agentSpec);
      return this.stateOf(uri, attempt + 1);
    }
    const state: CheckedState = Object.assign(checked, { settings, resultId, live, agents, agentSpec, fromSource, unreadSource });
    this.states.set(uri, state);
    this.agentHints.delete(uri);
    graphs.noteSourceGraph(settings.server.url, uri, fromSource);
    // The config's declarations join the project after this version's diagnostics are out.
    const previousTree = cached?.analysis?.flatTree;
    setImmediate(() => {
      if (this.states.get(uri) !== state) return;
      const names = analysis.flatTree ? flatNamesKey(analysis.flatTree, previousTree) : undefined;
      if (names === undefined) project.service.configChanged({ uri, text, lines: state.lines, facts: state.config() });
      else project.service.configVersion(uri, names, state.config);
    });
    return state;
  }

  /** The state of a document the rule set checked, or undefined (not open, not served, or too large). */
  async checkedStateOf(uri: string): Promise<CheckedState | undefined> {
    const state = await this.stateOf(uri);
    return state?.analysis ? state : undefined;
  }

  /** A document closed: its state goes. */
  closed(uri: string): void {
    this.agentHints.delete(uri);
    this.states.delete(uri);
  }
}
