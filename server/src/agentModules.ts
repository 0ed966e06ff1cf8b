/**
 * The agent modules beside each served document, for `agent` completion and hover and for the
 * specs the `agent-missing` fix offers. The folder is read (never run) by the runtime's scanner,
 * the one `10xgraph audit` uses, so the editor and the CLI offer the same specs. A keystroke
 * never waits for the disk: once a folder has been read its modules are served from memory and
 * read again in the background when they are older than the TTL; only the first request for a
 * folder waits for the read.
 */
import { type AgentModule, agentSpecs, readAgentModules } from '10xgraph/workspace';

export type { AgentModule };

/** The agent modules beside a document and the `module:export` specs of their compiled graphs. */
export interface AgentInfo {
  modules: AgentModule[];
  /** The specs `10xgraph audit` offers for `agent-missing`, likeliest first. */
  candidates: string[];
}

/** No folder, or nothing found in it. */
export const NO_AGENTS: AgentInfo = { modules: [], candidates: [] };

interface Entry {
  /** When the last read started. */
  at: number;
  current?: AgentInfo;
  /** The read under way, if any. */
  reading?: Promise<AgentInfo>;
}

/** The agent modules of each folder, read at most once per TTL. */
export class AgentModuleCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: {
      ttlMs: number;
      now: () => number;
      /** A background read found other specs than before: the diagnostics of `folder` may change. */
      candidatesChanged: (folder: string) => void;
      log: (message: string) => void;
    },
  ) {}

  /**
   * The agents of `folder`. Once read, they are answered at once (the same object until
   * something changes, so callers may compare by identity); a read older than the TTL is
   * renewed in the background.
   */
  agentsOf(folder: string): AgentInfo | Promise<AgentInfo> {
    let entry = this.entries.get(folder);
    if (!entry) {
      entry = { at: this.options.now() };
      this.entries.set(folder, entry);
      return this.read(folder, entry);
    }
    if (!entry.current) return entry.reading ?? this.read(folder, entry);
    if (!entry.reading && this.options.now() - entry.at >= this.options.ttlMs) {
      entry.at = this.options.now();
      void this.read(folder, entry);
    }
    return entry.current;
  }

  private read(folder: string, entry: Entry): Promise<AgentInfo> {
    const reading = readAgentModules(folder)
      .then((modules): AgentInfo => {
        const previous = entry.current;
        const next: AgentInfo = { modules, candidates: agentSpecs(modules) };
        if (previous && JSON.stringify(previous) === JSON.stringify(next)) return previous;
        entry.current = next;
        if (previous && previous.candidates.join('\n') !== next.candidates.join('\n')) this.options.candidatesChanged(folder);
        return next;
      })
      .catch((error: unknown): AgentInfo => {
        this.options.log(`10xgraph: agent modules in ${folder} not read (${error instanceof Error ? error.message : String(error)}).`);
        return (entry.current ??= NO_AGENTS);
      })
      .finally(() => {
        if (entry.reading === reading) entry.reading = undefined;
      });
    entry.reading = reading;
    return reading;
  }
}
