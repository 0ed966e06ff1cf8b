import type { ProblemCode, Severity } from './catalog';
import type { Tree } from './tree';

/**
 * The shapes the rule set speaks in. Offsets and lengths count UTF-16 code units
 * (as JavaScript strings and LSP do); only front ends turn them into lines and columns.
 */

export type { ProblemCode, Severity } from './catalog';

/** Replace `length` code units at `offset` with `newText`. Offsets refer to the original text. */
export interface TextEdit {
  offset: number;
  length: number;
  newText: string;
}

/** One quick fix: a title for people and the edits that carry it out. */
export interface Fix {
  title: string;
  edits: TextEdit[];
  /** The most likely fix among the candidates of one problem. */
  isPreferred?: boolean;
  /** Safe fixes are applied by `source.fixAll.10xgraph` and `10xgraph audit --fix`. */
  safe?: boolean;
  /**
   * A fix that is an action rather than an edit (the edits are then empty):
   * `refetch-graph` asks the front end to fetch the live graph again.
   */
  command?: 'refetch-graph';
}

/** A place elsewhere in the text that explains a problem (the first use of a duplicate name). */
export interface RelatedLocation {
  offset: number;
  length: number;
  message: string;
}

/** One problem found in a `10xgraph.json` text. */
export interface Problem {
  code: ProblemCode;
  severity: Severity;
  message: string;
  offset: number;
  length: number;
  related?: RelatedLocation[];
  /** Quick-fix candidates, computed by the rule set; front ends only apply them. */
  fixes?: Fix[];
}

/** What a node is in a compiled graph. `unknown` when an older server omits the type. */
export type NodeKind = 'tool_node' | 'model_node' | 'function_node' | 'unknown';

/** A tool a ToolNode carries: a server tool (`local`) or an attached remote tool (`remote`). */
export interface GraphTool {
  name: string;
  description?: string;
  parameters?: unknown;
  source: 'local' | 'remote';
}

/** A node of the graph, as the runtime knows it or a server's `/v1/graph` reports it. */
export interface GraphNode {
  name: string;
  kind: NodeKind;
  /** Tools the node carries, when known (ToolNodes only). */
  tools?: GraphTool[];
}

/** An edge of the graph. */
export interface GraphEdge {
  source: string;
  target: string;
}

/**
 * The graph a config is judged against. `origin` says how it is known:
 * `loaded` in-process (start-up, `audit` loading the agent module), `live` from a running
 * server (`audit --graph-url`, the language server). `tool-not-attached` is judged only on
 * a live graph; `name-conflicts-with-server-tool` only when `toolsKnown`.
 */
export interface Graph {
  origin: 'loaded' | 'live';
  nodes: GraphNode[];
  edges?: GraphEdge[];
  /** Whether `tools` of each ToolNode is known. */
  toolsKnown: boolean;
  /** The server's 10xgraph version (`info.version`), when it said. */
  version?: string;
  /** When a live graph was fetched (ms since the epoch). */
  fetchedAt?: number;
  /** True when a live graph came from an earlier fetch (a cache), not from the server just now. */
  stale?: boolean;
}

/**
 * What a front end can tell the rule set of the place the config lives and the server runs,
 * without the rule set reading a file: the settings rules that depend on files or the
 * environment use it, and are skipped without it.
 */
export interface ConfigFiles {
  /** Whether a file exists, by a path relative to the config's folder. */
  fileExists?(path: string): boolean;
  /** What a path that exists but is no regular file is ("a FIFO", "a folder"), by a path relative to the config's folder; undefined otherwise. */
  notRegular?(path: string): string | undefined;
  /** The names (never the values) of the variables a dotenv file sets, by its path relative to the config's folder; undefined when it cannot be read. */
  envNames?(path: string): ReadonlySet<string> | undefined;
  /** The names of the variables set in the environment the server runs in, when known (the start-up of `10xgraph api`). */
  environment?: ReadonlySet<string>;
}

/** Options of one audit. */
export interface AuditOptions {
  /** The files beside the config and the environment, as far as the front end knows them. */
  files?: ConfigFiles;
  /** The graph, when known; without it the graph rules are skipped. */
  graph?: Graph;
  /**
   * The agent module's file `graph` was read from (its source, not run), and the name messages
   * give it (else its base name): `node-not-found` and `node-not-tool-node` then say which graph
   * judged (`readFromSourceNote`).
   */
  graphReadFrom?: { file: string; shown?: string };
  /**
   * Agent modules found beside the file (`graph:app` style specs), for the `agent-missing` fix.
   * Front ends that can read the folder pass them; the rule set never touches files.
   */
  agentCandidates?: string[];
  /**
   * Why the `agent` of the file names nothing, as the front end that looked for it found: its
   * module file is missing, or the module has no such export (the loader's sentence, with what it
   * looked for and what there is). The rule set never loads a module; `agent-not-found` reports
   * this on the `agent` value.
   */
  agentUnresolved?: string;
  /** At most this many `invalid-json` problems are reported (default 100). */
  maxSyntaxErrors?: number;
  /**
   * The analysis of an earlier text of the same document (an editor's previous version). When
   * the new text differs from it by one edit inside a string value, its tree is reused instead
   * of parsing again; the problems are the same either way.
   */
  previous?: { readonly flatTree?: Tree };
}
