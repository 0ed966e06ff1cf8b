/**
 * The live graph: one client per server URL, shared by every document checked against it.
 * It fetches on start, on a timer, on save and on command (never per keystroke), keeps the
 * last good graph (in memory and on disk) for when the server goes away, and reports its
 * state as `10xgraph/status`. The fetching itself (time-out, size bound, same-origin
 * redirects and token) is the runtime's `fetchLiveGraph`.
 */
import type { Graph } from '10xgraph/rules';
import type { fetchLiveGraph } from '10xgraph/live';
import type { LiveGraphState, StatusParams } from '../../common/protocol';
import { urlWithoutCredentials } from '10xgraph/live';
import { describeAge } from './service/age';
import type { GraphCache } from './graphCache';

/** What an offline status without a graph says of node names; the server replaces it when a graph read from the agent module judges them. */
export const NOT_CHECKED = 'node names not checked';
/** The fetcher, injected so tests and benchmarks can count or replace it. */
export type FetchGraph = typeof fetchLiveGraph;

/** How one URL is fetched. */
export interface LiveGraphConfig {
  timeoutMs: number;
  refreshSeconds: number;
  token?: string;
}

/** What the clients need from the server around them. */
export interface LiveGraphDeps {
  fetchGraph: FetchGraph;
  cache: GraphCache;
  rulesetVersion: string;
  /** Sends `10xgraph/status`. */
  sendStatus(status: StatusParams): void;
  /** The graph that documents of `url` are judged against changed: refresh their diagnostics. */
  graphChanged(url: string): void;
  log(message: string): void;
  now?: () => number;
}

// A graph response larger than this is refused by the fetcher rather than parsed.
const MAX_GRAPH_BYTES = 16 * 1024 * 1024;

/**
 * A server URL as `10xgraph/status` reports it: origin and path, without the user name,
 * password, query or fragment, which may carry a credential and would be shown and logged.
 */
export function shownUrlOf(url: string): string {
  return urlWithoutCredentials(url) || url;
}

function signatureOf(graph: Graph | undefined): string {
  if (!graph) return '';
  return JSON.stringify([graph.nodes, graph.edges ?? [], graph.toolsKnown, graph.version ?? null, graph.stale === true]);
}

function statusKey(status: StatusParams): string {
  return JSON.stringify([status.state, status.nodeCount, status.error, status.version, status.versionMismatch, status.stale, status.fetchedAt]);
}

/** The live graph of one server URL. */
export class LiveGraphClient {
  /** Settles when the first fetch of this client has settled (successfully or not). */
  readonly ready: Promise<void>;
  /** Grows each time the graph documents are judged against changes. */
  generation = 0;
  private current?: Graph;
  private lastGood?: Graph;
  private signature = '';
  private status: StatusParams;
  private statusSent = '';
  private inFlight?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private disposed = false;
  private lastFetchStart = 0;
  private cacheWrittenSignature = '';
  private resolveReady!: () => void;
  /** The URL as statuses (and so hovers and status bars) show it: without credentials. */
  private readonly shownUrl: string;

  constructor(
    readonly url: string,
    private config: LiveGraphConfig,
    private readonly deps: LiveGraphDeps,
  ) {
    this.shownUrl = shownUrlOf(url);
    this.status = { url: this.shownUrl, state: 'offline', rulesetVersion: deps.rulesetVersion };
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  private now(): number {
    return this.deps.now ? this.deps.now() : Date.now();
  }

  /** Loads the disk cache, fetches once and starts the timer. */
  start(): void {
    void (async () => {
      try {
        const cached = await this.deps.cache.read(this.url, this.now());
        if (cached && !this.lastGood) {
          this.lastGood = { ...cached.graph, origin: 'live', fetchedAt: cached.fetchedAt };
          this.cacheWrittenSignature = signatureOf({ ...this.lastGood, stale: false });
        }
        await this.refresh();
      } catch (error) {
        this.deps.log(`10xgraph: live graph ${urlWithoutCredentials(this.url)}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.resolveReady();
      }
    })();
    this.armTimer();
  }

  /** Applies new settings for this URL; the timer restarts when its period changed. */
  configure(config: LiveGraphConfig): void {
    const periodChanged = config.refreshSeconds !== this.config.refreshSeconds;
    this.config = config;
    if (periodChanged) this.armTimer();
  }

  private armTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.disposed || this.config.refreshSeconds <= 0) return;
    this.timer = setInterval(() => void this.refresh(), this.config.refreshSeconds * 1000);
    this.timer.unref();
  }

  /** The graph documents are judged against now: fresh, stale (the last good one) or none. */
  graph(): Graph | undefined {
    return this.current;
  }

  /** The state last reported for this URL. */
  currentStatus(): StatusParams {
    return this.status;
  }

  /** Milliseconds since the last fetch started (a save right after a fetch need not fetch again). */
  sinceLastFetch(): number {
    return this.now() - this.lastFetchStart;
  }

  /** Fetches the graph now; a fetch already under way is joined rather than doubled. */
  refresh(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (!this.inFlight) {
      this.inFlight = this.fetchOnce()
        // A refresh never rejects: the timer and the save handler do not wait for it.
        .catch((error: unknown) => this.deps.log(`10xgraph: live graph ${urlWithoutCredentials(this.url)} not updated: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          this.inFlight = undefined;
        });
    }
    return this.inFlight;
  }

  private async fetchOnce(): Promise<void> {
    this.lastFetchStart = this.now();
    // The token was bound to this URL's origin by the settings (the environment's included).
    const token = this.config.token;
    let result: Awaited<ReturnType<FetchGraph>>;
    try {
      result = await this.deps.fetchGraph(this.url, { timeoutMs: this.config.timeoutMs, maxBytes: MAX_GRAPH_BYTES, token });
    } catch (error) {
      result = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (this.disposed) return;
    const now = this.now();
    if (result.ok) {
      const version = result.version ?? result.graph.version;
      const graph: Graph = { ...result.graph, origin: 'live', version, fetchedAt: result.graph.fetchedAt ?? now, stale: false };
      try {
        // `update` judges the graph before it changes anything: a graph that cannot be used
        // (whatever the fetcher let through) leaves the last good one in place and is reported.
        const signature = this.update(graph, {
          url: this.shownUrl,
          state: 'connected',
          nodeCount: graph.nodes.length,
          fetchedAt: graph.fetchedAt,
          version,
          versionMismatch: version !== undefined && version !== this.deps.rulesetVersion ? true : undefined,
          rulesetVersion: this.deps.rulesetVersion,
        });
        this.lastGood = graph;
        this.writeCache(graph, signature);
        return;
      } catch (error) {
        result = { ok: false, error: `its graph could not be used (${error instanceof Error ? error.message : String(error)})` };
      }
    }
    const reason = result.error.replace(/\.$/, '');
    if (this.lastGood) {
      const stale: Graph = { ...this.lastGood, stale: true };
      const fetchedAt = stale.fetchedAt ?? now;
      this.update(
        stale,
        {
          url: this.shownUrl,
          state: 'offline',
          nodeCount: stale.nodes.length,
          fetchedAt,
          version: stale.version,
          stale: true,
          error: `graph: offline — node names checked against the graph fetched ${describeAge(fetchedAt, now)} ago (${reason})`,
          rulesetVersion: this.deps.rulesetVersion,
        },
        reason,
      );
    } else {
      this.update(undefined, {
        url: this.shownUrl,
        state: 'offline',
        error: `graph: offline — ${NOT_CHECKED} (${reason})`,
        rulesetVersion: this.deps.rulesetVersion,
      });
    }
  }

  /** Makes `graph` current and reports `status`; answers the graph's signature. */
  private update(graph: Graph | undefined, status: StatusParams, reason?: string): string {
    const signature = signatureOf(graph);
    const changed = signature !== this.signature;
    this.current = graph;
    this.signature = signature;
    this.status = status;
    if (changed) this.generation++;
    // The age inside an offline message grows with every attempt; only the reason is a change of state.
    const key = statusKey({ ...status, error: reason ?? status.error, fetchedAt: undefined });
    if (changed || key !== this.statusSent) {
      this.statusSent = key;
      this.deps.sendStatus(status);
    }
    if (changed) this.deps.graphChanged(this.url);
    return signature;
  }

  private writeCache(graph: Graph, signature: string): void {
    if (signature === this.cacheWrittenSignature) return;
    this.cacheWrittenSignature = signature;
    void this.deps.cache.write({ url: this.url, fetchedAt: graph.fetchedAt ?? this.now(), graph });
  }

  /** Stops the timer; a fetch under way is ignored when it ends. */
  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.resolveReady();
  }
}

/** How a URL is wanted: fetched live, or only reported as disabled or untrusted. */
export interface WantedGraph {
  mode: 'live' | Exclude<LiveGraphState, 'connected' | 'offline'>;
  config: LiveGraphConfig;
}

/** The status of a URL that is not fetched: disabled by settings, or in an untrusted workspace. */
export function passiveStatus(url: string, mode: 'disabled' | 'untrusted', rulesetVersion: string): StatusParams {
  return {
    url: shownUrlOf(url),
    state: mode,
    rulesetVersion,
    error:
      mode === 'disabled'
        ? 'graph: disabled — node names not checked (10xgraph.server.enabled is false)'
        : 'graph: not fetched, this workspace is not trusted — node names not checked',
  };
}

/** Every live graph in use, by URL. */
export class LiveGraphHub {
  private readonly clients = new Map<string, LiveGraphClient>();
  private readonly passive = new Map<string, string>();

  constructor(private readonly deps: LiveGraphDeps) {}

  /** The client of `url`, created and started when it is first asked for. */
  client(url: string, config: LiveGraphConfig): LiveGraphClient {
    let client = this.clients.get(url);
    if (!client) {
      this.passive.delete(url);
      client = new LiveGraphClient(url, config, this.deps);
      this.clients.set(url, client);
      client.start();
    }
    return client;
  }

  /** The client of `url` when one exists. */
  existing(url: string): LiveGraphClient | undefined {
    return this.clients.get(url);
  }

  /** Makes the URLs in use exactly those of `wanted`, starting, reconfiguring and stopping clients. */
  sync(wanted: Map<string, WantedGraph>): void {
    for (const [url, client] of this.clients) {
      if (wanted.get(url)?.mode !== 'live') {
        client.dispose();
        this.clients.delete(url);
        // The documents of this URL lose their graph.
        this.deps.graphChanged(url);
      }
    }
    for (const url of this.passive.keys()) if (!wanted.has(url) || wanted.get(url)?.mode === 'live') this.passive.delete(url);
    for (const [url, { mode, config }] of wanted) {
      if (mode === 'live') {
        const existing = this.clients.get(url);
        if (existing) existing.configure(config);
        else this.client(url, config);
        continue;
      }
      if (this.passive.get(url) === mode) continue;
      this.passive.set(url, mode);
      this.deps.sendStatus(passiveStatus(url, mode, this.deps.rulesetVersion));
    }
  }

  /** Refetches every live graph (or the one of `url`) and resolves when the fetches settle. */
  async refresh(url?: string): Promise<StatusParams[]> {
    const targets = [...this.clients.values()].filter((c) => url === undefined || c.url === url);
    await Promise.all(targets.map((c) => c.refresh()));
    return targets.map((c) => c.currentStatus());
  }

  /** Stops every client. */
  dispose(): void {
    for (const client of this.clients.values()) client.dispose();
    this.clients.clear();
  }
}
