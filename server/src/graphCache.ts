/**
 * The last good live graph of each server, kept on disk so that a server that is down when the
 * editor starts still leaves node names checked (marked stale, with the graph's age).
 *
 * Where: in a `graph-cache` folder of the client's storage path (`initializationOptions.storagePath`,
 * the extension's own storage in VS Code), else in the user's cache directory
 * (`$XDG_CACHE_HOME/10xgraph`, `~/.cache/10xgraph`, `%LOCALAPPDATA%\10xgraph` on Windows), never
 * in a shared folder. The folder is the user's alone (0700) and each file too (0600, created so).
 *
 * What: per server one file named by a hash of its origin and path, holding that URL without
 * credentials (no user name, password, query or fragment) and the graph. Never a token.
 *
 * Trust: a file is believed only when it is a regular file (not a link) of this user that no one
 * else may read or write, within the size bound, not nested deeper than a live answer may be,
 * well formed, and for the same URL; anything else is ignored with one line in the log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Graph, GraphEdge, GraphNode, GraphTool, NodeKind } from '10xgraph/rules';
import { MAX_ANSWER_DEPTH, nestsDeeperThan, urlWithoutCredentials } from '10xgraph/live';
import { checkOwnership } from '10xgraph/workspace';

/** What is kept for one server URL. */
export interface CachedGraph {
  url: string;
  fetchedAt: number;
  graph: Graph;
}

// The format of the files; a file of another format (or an older release) is not read.
const FORMAT = 2;
// A cached file larger than this is not read back: the live fetch has a size bound too.
const MAX_CACHE_BYTES = 32 * 1024 * 1024;
// A cached graph fetched "in the future" by more than this was not written by this cache.
const CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;
const KINDS: ReadonlySet<string> = new Set(['tool_node', 'model_node', 'function_node', 'unknown']);
const POSIX = process.platform !== 'win32';

/**
 * The folder the graph cache uses: `graph-cache` in the client's storage path when it gave one (absolute),
 * else `10xgraph` in the user's cache directory.
 */
export function graphCacheFolder(storagePath: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  // A relative path would depend on where the server happens to run: only an absolute one is used.
  if (storagePath !== undefined && isAbsolute(storagePath)) return join(storagePath, 'graph-cache');
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, '10xgraph');
  if (!POSIX && env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA)) return join(env.LOCALAPPDATA, '10xgraph');
  return join(homedir(), '.cache', '10xgraph');
}

/**
 * `url` as the cache keeps it: origin and path only. A user name, password, query or fragment
 * may carry a credential and is never written to disk.
 */
export const cacheUrlOf = urlWithoutCredentials;

/** The name of the file that holds the graph of `url` (a hash of its origin and path). */
export function cacheFileName(url: string): string {
  return `graph-${createHash('sha256').update(cacheUrlOf(url)).digest('hex').slice(0, 32)}.json`;
}

/** Reads and writes cached graphs in one folder. Failures are reported to `log`, never thrown. */
export class GraphCache {
  private ready?: Promise<boolean>;

  constructor(
    private readonly folder: string,
    private readonly log: (message: string) => void,
  ) {}

  private fileOf(key: string): string {
    return join(this.folder, cacheFileName(key));
  }

  /**
   * Creates the folder (0700) once and checks it: a directory, not a link, of this user. A
   * folder of ours that others may enter is made private; one of another user is not used.
   */
  private prepare(): Promise<boolean> {
    this.ready ??= (async () => {
      try {
        await mkdir(this.folder, { recursive: true, mode: 0o700 });
        const info = await lstat(this.folder);
        if (!info.isDirectory()) return this.refuse(`${this.folder} is not a folder`);
        if (POSIX) {
          if (info.uid !== process.getuid?.()) return this.refuse(`${this.folder} belongs to another user`);
          if ((info.mode & 0o077) !== 0) await chmod(this.folder, 0o700);
        }
        return true;
      } catch (error) {
        return this.refuse(`${this.folder} cannot be used (${describe(error)})`);
      }
    })();
    return this.ready;
  }

  private refuse(why: string): false {
    this.log(`10xgraph: the graph cache is off: ${why}. Node names are checked only while the server answers.`);
    return false;
  }

  /** The cached graph of `url`, or undefined when there is none or it is not to be believed. */
  async read(url: string, now: number = Date.now()): Promise<CachedGraph | undefined> {
    const key = cacheUrlOf(url);
    if (key === '' || !(await this.prepare())) return undefined;
    const file = this.fileOf(key);
    let handle;
    try {
      // No link is followed: a planted link to another file is refused by the open itself.
      handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.ignore(file, `it cannot be opened (${describe(error)})`);
      return undefined;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return this.ignore(file, 'it is not a regular file');
      const distrust = checkOwnership(info, { othersMayRead: false });
      if (distrust !== undefined) return this.ignore(file, distrust);
      if (info.size > MAX_CACHE_BYTES) return this.ignore(file, `it is larger than ${MAX_CACHE_BYTES} bytes`);
      const text = await handle.readFile('utf8');
      if (nestsDeeperThan(text, MAX_ANSWER_DEPTH + 4)) return this.ignore(file, `it nests deeper than ${MAX_ANSWER_DEPTH + 4} levels`);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return this.ignore(file, 'it is not JSON');
      }
      const entry = cachedGraphOf(value, now);
      if (!entry) return this.ignore(file, 'it is not a cached graph of this release');
      if (entry.url !== key) return this.ignore(file, 'it holds the graph of another server');
      return entry;
    } catch (error) {
      return this.ignore(file, `it cannot be read (${describe(error)})`);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private ignore(file: string, why: string): undefined {
    this.log(`10xgraph: the cached graph ${file} is ignored: ${why}.`);
    return undefined;
  }

  /** Stores the graph of `entry.url` (without credentials); a failure only costs the cache. */
  async write(entry: CachedGraph): Promise<void> {
    const key = cacheUrlOf(entry.url);
    if (key === '' || !(await this.prepare())) return;
    const file = this.fileOf(key);
    // An unpredictable name, created exclusively and private from the start, then renamed over the old file.
    const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ format: FORMAT, url: key, fetchedAt: entry.fetchedAt, graph: plainGraph(entry.graph) }), 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      // The folder was removed meanwhile: it is made (and checked) again next time.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.ready = undefined;
      this.log(`10xgraph: the graph cache cannot write ${file} (${describe(error)}).`);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What of a graph is worth keeping: nodes, tools, edges and the server's version. */
function plainGraph(graph: Graph): Graph {
  return { origin: 'live', nodes: graph.nodes, edges: graph.edges ?? [], toolsKnown: graph.toolsKnown, ...(graph.version !== undefined ? { version: graph.version } : {}) };
}

/** A cached file's content as a `CachedGraph`, rebuilt field by field, or undefined when anything is off. */
function cachedGraphOf(value: unknown, now: number): CachedGraph | undefined {
  if (!isRecord(value) || value.format !== FORMAT || typeof value.url !== 'string') return undefined;
  const fetchedAt = value.fetchedAt;
  if (typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt) || fetchedAt < 0 || fetchedAt > now + CLOCK_SKEW_MS) return undefined;
  const graph = value.graph;
  if (!isRecord(graph) || !Array.isArray(graph.nodes) || typeof graph.toolsKnown !== 'boolean') return undefined;
  if (graph.version !== undefined && typeof graph.version !== 'string') return undefined;
  const nodes: GraphNode[] = [];
  for (const node of graph.nodes) {
    if (!isRecord(node) || typeof node.name !== 'string' || typeof node.kind !== 'string' || !KINDS.has(node.kind)) return undefined;
    let tools: GraphTool[] | undefined;
    if (node.tools !== undefined) {
      if (!Array.isArray(node.tools)) return undefined;
      tools = [];
      for (const tool of node.tools) {
        if (!isRecord(tool) || typeof tool.name !== 'string' || (tool.source !== 'local' && tool.source !== 'remote')) return undefined;
        if (tool.description !== undefined && typeof tool.description !== 'string') return undefined;
        tools.push({
          name: tool.name,
          source: tool.source,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
        });
      }
    }
    nodes.push({ name: node.name, kind: node.kind as NodeKind, ...(tools ? { tools } : {}) });
  }
  const edges: GraphEdge[] = [];
  if (graph.edges !== undefined) {
    if (!Array.isArray(graph.edges)) return undefined;
    for (const edge of graph.edges) {
      if (!isRecord(edge) || typeof edge.source !== 'string' || typeof edge.target !== 'string') return undefined;
      edges.push({ source: edge.source, target: edge.target });
    }
  }
  return {
    url: value.url,
    fetchedAt,
    graph: { origin: 'live', nodes, edges, toolsKnown: graph.toolsKnown, ...(typeof graph.version === 'string' ? { version: graph.version } : {}), fetchedAt },
  };
}
