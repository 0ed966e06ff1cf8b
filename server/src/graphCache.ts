/**
 * The last good live graph of each server URL, kept on disk so that a server that is down
 * when the editor starts still leaves node names checked (marked stale, with the graph's age).
 * One small JSON file per URL, named by a hash of the URL; written atomically (temp + rename).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Graph } from '10xgraph/rules';

/** What is kept for one URL. */
export interface CachedGraph {
  url: string;
  fetchedAt: number;
  graph: Graph;
}

/** The folder used when the client gives no `storagePath`. */
export function defaultCacheFolder(): string {
  return join(tmpdir(), '10xgraph-ls-cache');
}

// A cached file larger than this is not read back: the live fetch has a size bound too.
const MAX_CACHE_BYTES = 32 * 1024 * 1024;

/** Reads and writes cached graphs in one folder. Failures are reported to `log`, never thrown. */
export class GraphCache {
  constructor(
    private readonly folder: string,
    private readonly log: (message: string) => void,
  ) {}

  private fileOf(url: string): string {
    return join(this.folder, `graph-${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  }

  /** The cached graph of `url`, or undefined when there is none or it is unreadable. */
  async read(url: string): Promise<CachedGraph | undefined> {
    try {
      const text = await readFile(this.fileOf(url), 'utf8');
      if (text.length > MAX_CACHE_BYTES) return undefined;
      const value: unknown = JSON.parse(text);
      return isCachedGraph(value) && value.url === url ? value : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`graph cache: cannot read the cached graph of ${url}: ${String(error)}`);
      return undefined;
    }
  }

  /** Stores the graph of `url`; a failure only costs the cache. */
  async write(entry: CachedGraph): Promise<void> {
    const file = this.fileOf(entry.url);
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await mkdir(this.folder, { recursive: true });
      await writeFile(temp, JSON.stringify(entry), 'utf8');
      await rename(temp, file);
    } catch (error) {
      this.log(`graph cache: cannot write ${file}: ${String(error)}`);
    }
  }
}

function isCachedGraph(value: unknown): value is CachedGraph {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CachedGraph>;
  return (
    typeof v.url === 'string' &&
    typeof v.fetchedAt === 'number' &&
    typeof v.graph === 'object' &&
    v.graph !== null &&
    Array.isArray(v.graph.nodes) &&
    v.graph.nodes.every((n) => typeof n === 'object' && n !== null && typeof n.name === 'string' && typeof n.kind === 'string')
  );
}
