/**
 * The language server's project index: the runtime's one walk of the project (`ProjectIndex`
 * of `10xgraph/workspace`, the one `10xgraph audit --project` uses, with the same bounds) holding
 * each file's facts in LSP terms: a source's (`sourceFacts.ts`) or a config's (`configFacts.ts`).
 */
import { DEFAULT_INDEX_LIMITS, ProjectIndex as WorkspaceIndex, type IndexLimits, type IndexRoot, type ProjectIndexOptions } from '10xgraph/workspace';
import { LineIndex, readConfigSummary } from '10xgraph/rules';
import { type ConfigFacts, configFactsOf } from './configFacts';
import { type PythonFacts, pythonNamesKey, readPythonFacts } from './pythonFacts';
import { readSourceFacts, type SourceFacts } from './sourceFacts';

export { DEFAULT_INDEX_LIMITS, type IndexLimits, type IndexRoot };

/** What the index knows of one file: a source's facts or a config's. */
export interface FileFacts {
  source?: SourceFacts;
  /** A Python module's (its graphs, read by the runtime's Python reader). */
  python?: PythonFacts;
  config?: ConfigFacts;
}

/** One indexed file. */
export interface IndexedFile extends FileFacts {
  path: string;
}

/** The sources and configs of the workspace folders and what each says about the project. */
export class ProjectIndex extends WorkspaceIndex<FileFacts> {
  constructor(options: Omit<ProjectIndexOptions<FileFacts>, 'read' | 'names'>) {
    super({
      ...options,
      python: true,
      read: (_path, text, kind) =>
        kind === 'source'
          ? { source: readSourceFacts(text) }
          : kind === 'python'
            ? { python: readPythonFacts(text) }
            : { config: configFactsOf(readConfigSummary(text), new LineIndex(text)) },
      names: namesOfFacts,
    });
  }

  /** The facts of one source: indexed or open, or read now when it lies outside the index (an agent module anywhere). */
  async sourceFactsOf(path: string): Promise<SourceFacts | undefined> {
    return (await this.factsOf(path))?.source;
  }

  /** The facts of one Python module: indexed or open, or read now when it lies outside the index. */
  async pythonFactsOf(path: string): Promise<PythonFacts | undefined> {
    return (await this.factsOf(path))?.python;
  }
}

/**
 * The one layout of a names key: what a file's facts say that the project's diagnostics depend
 * on (handler names, nodes and their kinds, whether the source parses; `agent`, each tool's
 * `name` and `node`), positions left out.
 */
function namesKey(source: SourceFacts | undefined, agent: string | undefined, tools: ReadonlyArray<readonly [string | undefined, string | undefined]> | undefined): string {
  return JSON.stringify([source?.handlers.map((h) => h.name ?? null), source?.nodes.map((n) => [n.name ?? null, n.kind]), source?.syntaxError !== undefined, agent, tools]);
}

/** The names key of a config's agent and tools (`name`, `node`), as the index spells it for the config's facts. */
export function configNamesKey(agent: string | undefined, tools: ReadonlyArray<readonly [string | undefined, string | undefined]>): string {
  return namesKey(undefined, agent, tools);
}

function namesOfFacts(facts: FileFacts): string {
  if (facts.python) return JSON.stringify(pythonNamesKey(facts.python));
  return namesKey(
    facts.source,
    facts.config?.agent?.value,
    facts.config?.tools.map((t) => [t.name?.value, t.node?.value] as const),
  );
}
