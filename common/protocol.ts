/**
 * The messages the 10xgraph language server adds to LSP, declared once for both sides:
 * the server imports this file, and so does the VS Code extension. Each message is a
 * namespace with its `method` and `type`, so neither side spells a method name by hand.
 */
import type { DeclaredTool, Graph } from '10xgraph/rules';
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

/**
 * The state of the live graph of one server URL:
 * `connected` (the last fetch succeeded), `offline` (it failed; a cached graph may still be
 * in use, then `stale` is true), `disabled` (`10xgraph.server.enabled` is false) or
 * `untrusted` (the workspace is not trusted, so nothing is fetched).
 */
export type LiveGraphState = 'connected' | 'offline' | 'disabled' | 'untrusted';

/** What the server tells the client about one live graph; the extension shows it in the status bar. */
export interface StatusParams {
  /** The server URL the graph is fetched from (`10xgraph.server.url`), without user name, password, query or fragment. */
  url: string;
  state: LiveGraphState;
  /** How many nodes the graph in use has (also when it is a cached, stale one). */
  nodeCount?: number;
  /** One sentence for people: why the graph is not live, and what is checked meanwhile. */
  error?: string;
  /** When the graph in use was fetched, in milliseconds since the epoch. */
  fetchedAt?: number;
  /** The server's 10xgraph version (`info.version` of `GET /v1/graph`), when it said. */
  version?: string;
  /** True when `version` differs from the rule set's: the server may judge the file differently. */
  versionMismatch?: boolean;
  /** The rule set's own version, to show beside `version`. */
  rulesetVersion?: string;
  /** True when the graph in use is the last good one (from memory or the disk cache), not a fresh fetch. */
  stale?: boolean;
  /**
   * Set while no live graph is in use and node names are judged on the graph read (not run) from the
   * agent module's source instead: the module's file name and how many nodes were read.
   */
  sourceGraph?: { file: string; nodeCount: number };
}

/**
 * `10xgraph/status` (server → client): sent on every change of a live graph's state, and
 * once for each URL when it is first used.
 */
export namespace StatusNotification {
  export const method = '10xgraph/status';
  export const type = new NotificationType<StatusParams>(method);
}

/** Parameters of `10xgraph/graphView`. */
export interface GraphViewParams {
  /**
   * The `10xgraph.json` the view compares against, or a workspace folder when no such file is
   * open; omitted, the first workspace folder. Its settings choose the server, exactly as for
   * the diagnostics of that document.
   */
  uri?: string;
}

/** What the graph view draws, from the language server's state of that document or folder. */
export interface GraphViewResult {
  /** The state of the live graph in use (as `10xgraph/status` reports it). */
  status: StatusParams;
  /** The graph the document is judged against: fresh, or the last good one; absent when there is none. */
  graph?: Graph;
  /**
   * The remote tools the document declares, each with the rule set's verdict on whether its node
   * has it attached; absent when `uri` is not an open, checked `10xgraph.json` or its text is not JSON.
   */
  tools?: DeclaredTool[];
}

/**
 * `10xgraph/graphView` (client → server): what the graph view of one document draws, answered
 * from the server's cached state, so that the drawing and the diagnostics of a document always
 * come from the same server and the same graph. Answers null only when the server failed (it
 * logs why to its console).
 */
export namespace GraphViewRequest {
  export const method = '10xgraph/graphView';
  export const type = new RequestType<GraphViewParams, GraphViewResult | null, void>(method);
}

/** Parameters of `10xgraph/setTrusted`. */
export interface TrustParams {
  trusted: boolean;
}

/**
 * `10xgraph/setTrusted` (client → server): the workspace's trust changed (VS Code's
 * `workspace.onDidGrantWorkspaceTrust`). Until it is trusted nothing is fetched.
 */
export namespace TrustNotification {
  export const method = '10xgraph/setTrusted';
  export const type = new NotificationType<TrustParams>(method);
}

export { RefreshGraphCommand } from './commands';

/** The `10xgraph` settings section as a client sends it (every field optional; the server fills in defaults). */
export interface RawSettings {
  server?: {
    /** The running server whose graph files are checked against. Default `http://localhost:8000`. */
    url?: string;
    /** Live graph checks on or off. Default `true`. */
    enabled?: boolean;
    /** Time-out of one graph fetch. Default `2000`. */
    timeoutMs?: number;
    /** How often the graph is refetched; `0` turns the timer off. Default `30`. */
    refreshSeconds?: number;
    /**
     * A bearer token, bound to the origin of the `url` it is given with and sent nowhere else (a
     * folder naming another origin does not inherit it). Default: `TENXGRAPH_TOKEN`, bound to the
     * URL of the initialisation settings.
     */
    token?: string;
  };
  /** Globs of the files the server checks, whatever their language id. Default `["**\/10xgraph.json", "**\/agentflow.json"]`. */
  files?: string[];
  project?: {
    /** Globs (relative to the workspace folder) of files and folders the project index skips. Default `[]`. */
    exclude?: string[];
  };
}

/**
 * `initializationOptions` of `initialize`. Every field is optional: `settings` is the fallback
 * for clients that do not answer `workspace/configuration` (a `10xgraph` key shaped like the
 * section is accepted too); `trusted` defaults to true; `storagePath` is where the last good
 * graph is cached, in a private `graph-cache` folder (default: the user cache directory,
 * `$XDG_CACHE_HOME/10xgraph` or `~/.cache/10xgraph`); `statusNotification: true` says the client
 * shows `10xgraph/status` itself (the VS Code extension's status bar), so the graph going offline
 * or coming back is not also sent as a `window/showMessage`.
 */
export interface InitializationOptions {
  settings?: RawSettings;
  trusted?: boolean;
  storagePath?: string;
  statusNotification?: boolean;
}
