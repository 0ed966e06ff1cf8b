/**
 * The live graphs: one client per server URL that an open document or a workspace folder is
 * checked against, kept in line with the settings, and the status notifications that say which
 * graph judges (the live one, or the one read from the agent module's source).
 */
import { basename } from 'node:path';
import { type Connection, MessageType, ShowMessageNotification, type TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { RULESET_VERSION } from '10xgraph/rules';
import { fetchLiveGraph } from '10xgraph/live';
import { StatusNotification, type StatusParams } from '../../../common/protocol';
import type { Settings } from '../../../common/settings';
import { GraphCache, graphCacheFolder } from '../graphCache';
import { type FetchGraph, type LiveGraphClient, LiveGraphHub, NOT_CHECKED, passiveStatus, type WantedGraph } from '../liveGraph';
import type { AgentSource } from '../project';
import { type Logger, plainMessage } from './logger';
import type { SettingsStore } from './settings';

/** What the live graphs need of the server around them. */
export interface LiveGraphsHost {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  settings: SettingsStore;
  logger: Logger;
  now: () => number;
  /** A graph changed: diagnostics of open documents may change. */
  graphChanged: () => void;
}

function configOf(settings: Settings) {
  return { timeoutMs: settings.server.timeoutMs, refreshSeconds: settings.server.refreshSeconds, token: settings.server.token };
}

/** The live graphs of one server. */
export class LiveGraphs {
  private hub: LiveGraphHub | undefined;
  private syncChain: Promise<void> = Promise.resolve();
  private readonly lastStatus = new Map<string, StatusParams>();
  /** Per server URL, the last state told with window/showMessage (offline, or back from it). */
  private readonly shownState = new Map<string, StatusParams['state']>();
  /** Per server URL, the open configs judged on a graph read from their agent module. */
  private readonly sourceGraphs = new Map<string, Map<string, AgentSource>>();

  constructor(private readonly host: LiveGraphsHost) {}

  /** Whether the client shows `10xgraph/status` itself: then no window/showMessage for the graph's state. */
  private statusShown = false;

  /** Starts the hub, its cache in `storagePath` (the client's storage folder, from the initialization options). */
  start(storagePath: string | undefined, fetchGraph: FetchGraph = fetchLiveGraph, statusShown = false): void {
    this.statusShown = statusShown;
    const cache = new GraphCache(graphCacheFolder(storagePath), (m) => this.host.logger.log(m));
    this.hub = new LiveGraphHub({
      fetchGraph,
      cache,
      rulesetVersion: RULESET_VERSION,
      now: this.host.now,
      log: (m) => this.host.logger.log(m),
      sendStatus: (status) => this.sendStatus(status),
      graphChanged: () => this.host.graphChanged(),
    });
  }

  private started(): LiveGraphHub {
    if (!this.hub) throw new Error('the live graphs are used before initialize');
    return this.hub;
  }

  /** Brings the set of live graphs in line with the folders and open documents (one at a time). */
  sync(): Promise<void> {
    const { settings, documents } = this.host;
    this.syncChain = this.syncChain.then(async () => {
      try {
        const rank = { live: 2, untrusted: 1, disabled: 0 } as const;
        const wanted = new Map<string, WantedGraph>();
        const scopes = [...settings.folders.map((uri) => ({ uri, document: false })), ...documents.all().map((d) => ({ uri: d.uri, document: true }))];
        for (const { uri, document } of scopes) {
          const scoped = await settings.settingsFor(uri);
          if (document && !settings.isServed(uri, scoped)) continue;
          const mode = settings.modeOf(scoped);
          const previous = wanted.get(scoped.server.url);
          if (!previous || rank[mode] > rank[previous.mode]) wanted.set(scoped.server.url, { mode, config: configOf(scoped) });
        }
        this.started().sync(wanted);
      } catch (error) {
        this.host.logger.logError('syncing the live graphs', error);
      }
    });
    return this.syncChain;
  }

  /** The live graph a scope with `settings` is checked against, once its first fetch (or cache read) is done; undefined when it is not checked against one. */
  async clientFor(settings: Settings): Promise<LiveGraphClient | undefined> {
    if (this.host.settings.modeOf(settings) !== 'live') return undefined;
    const client = this.started().client(settings.server.url, configOf(settings));
    await client.ready;
    return client;
  }

  /** The live graph of `url` when there is one already. */
  existing(url: string): LiveGraphClient | undefined {
    return this.hub?.existing(url);
  }

  /** Fetches the graph of `url` (every graph when absent) again now; resolves to the statuses after the fetch. */
  refresh(url?: string): Promise<StatusParams[]> {
    return this.started().refresh(url);
  }

  /** The status of a scope: its live graph's, or the passive one when it is not checked against one (undefined: live, but no client). */
  statusOf(settings: Settings, live: LiveGraphClient | undefined): StatusParams | undefined {
    if (live) return live.currentStatus();
    const mode = this.host.settings.modeOf(settings);
    return mode === 'live' ? undefined : passiveStatus(settings.server.url, mode, RULESET_VERSION);
  }

  /**
   * Sends a live graph's status, saying when node names are judged on the graph read from the agent
   * module instead. Editors that drop the custom notification learn the same through standard LSP:
   * a log line for every status, and a message when the graph goes offline or comes back.
   */
  private sendStatus(status: StatusParams): void {
    this.lastStatus.set(status.url, status);
    const sources = this.sourceGraphs.get(status.url);
    const source = sources && sources.size > 0 ? [...sources.values()][0] : undefined;
    const read = source?.graph ? { file: source.shown ?? basename(source.file), nodeCount: source.graph.nodes.length } : undefined;
    // Offline without a graph fetched earlier, node names are still judged when the agent module's graph was read.
    const error = read && status.error?.includes(NOT_CHECKED) ? status.error.replace(NOT_CHECKED, `node names checked against the graph read from ${read.file}`) : status.error;
    const sent: StatusParams = read ? { ...status, ...(error !== undefined ? { error } : {}), sourceGraph: read } : status;
    void this.host.connection.sendNotification(StatusNotification.type, sent).catch((e: unknown) => this.host.logger.logError('status', e));
    this.host.logger.log(`10xgraph: graph of ${sent.url}: ${describeStatus(sent)}`);
    const shown = this.shownState.get(sent.url);
    if (sent.state === 'offline' && shown !== 'offline') this.showMessage(MessageType.Warning, `10xgraph: the graph of ${sent.url} is ${describeStatus(sent)}`);
    else if (sent.state === 'connected' && shown === 'offline') this.showMessage(MessageType.Info, `10xgraph: the graph of ${sent.url} is back: ${describeStatus(sent)}.`);
    if (sent.state === 'offline' || shown === 'offline') this.shownState.set(sent.url, sent.state);
  }

  private showMessage(type: MessageType, message: string): void {
    if (this.statusShown) return;
    void this.host.connection
      .sendNotification(ShowMessageNotification.type, { type, message: plainMessage(message) })
      .catch((e: unknown) => this.host.logger.logError('window/showMessage', e));
  }

  /** Notes which graph judged `uri` (for the status of its server URL), and tells the client when that changed. */
  noteSourceGraph(url: string, uri: string, source: AgentSource | undefined): void {
    let sources = this.sourceGraphs.get(url);
    if (!sources) this.sourceGraphs.set(url, (sources = new Map()));
    const before = sources.get(uri);
    if (source) sources.set(uri, source);
    else sources.delete(uri);
    if (before?.file === source?.file && before?.graph?.nodes.length === source?.graph?.nodes.length) return;
    const status = this.lastStatus.get(url);
    if (status) this.sendStatus(status);
  }

  /** A document closed: it no longer says which graph judges. */
  closed(uri: string): void {
    for (const [url, sources] of this.sourceGraphs) if (sources.has(uri)) this.noteSourceGraph(url, uri, undefined);
  }

  dispose(): void {
    this.hub?.dispose();
  }
}

/** One line for people: what the graph's state means for the file. */
export function describeStatus(status: StatusParams): string {
  if (status.state === 'connected') return `connected, ${status.nodeCount ?? 0} node${status.nodeCount === 1 ? '' : 's'}`;
  // `graph: offline — node names …`: the state, then what it means for the file.
  return status.error ? status.error.replace(/^graph: /, '') : status.state;
}
