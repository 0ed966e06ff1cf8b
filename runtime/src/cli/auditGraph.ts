import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { analyzeConfig, pythonAgentGraphOf, type Graph } from '../rules/index';
import { NONE, parseTree } from '../rules/tree';
import { agentOfConfig, loadConfigAgent, resolveAgentModule } from '../agent/loadAgent';
import { compiledGraphNames, MAX_PYTHON_MODULE_CHARS, pythonGraphOf, readPythonModule } from '../workspace/pythonGraph';

/** How the graph was known for one audit. */
export interface GraphSource {
  /** `read`: from a Python module's source, never run. */
  mode: 'loaded' | 'read' | 'url' | 'skipped';
  graph?: Graph;
  /** Why the graph rules were skipped, or where the graph came from. */
  note: string;
  /** The loader's sentence when `agent` names a missing module or export: reported as `agent-not-found` on the value. */
  agentUnresolved?: string;
}

/**
 * The graph for an audit without `--graph-url` or `--no-graph`. A Python agent module is read
 * from its source (./pythonGraph.ts), never run; when it cannot be read exactly the graph rules
 * are skipped and the note says why. Any other module is loaded, as `10xgraph api` does at
 * start-up. An `agent` whose module file or export is missing is a problem of the file: the
 * loader's sentence is returned as `agentUnresolved`, which the rule set reports as
 * `agent-not-found` on the value. When the module is found but cannot load (it throws, it does not
 * compile), a config that has errors of its own is still reported (without the graph rules), as
 * start-up reports it; a config with none cannot be judged, and the reason is returned as `error`
 * (exit 2, as `api` exits).
 */
export async function loadGraphForAudit(configPath: string, text: string): Promise<GraphSource | { error: string }> {
  const python = pythonAgentOf(configPath, text);
  if (python) return python;
  const loaded = await loadConfigAgent(configPath, text);
  if (loaded.ok) return { mode: 'loaded', graph: loaded.graph.toRuleGraph(), note: `from the agent module '${loaded.agent}'` };
  if (loaded.error === undefined) return { mode: 'skipped', note: `(${whyNoAgent(text)}): node names not checked` };
  // A typo in "agent" is a problem of the file, with its place; only a module that fails when run cannot be judged.
  if (loaded.code === 'agent-module-not-found' || loaded.code === 'agent-export-not-found')
    return { mode: 'skipped', note: '(the agent does not resolve, see agent-not-found): node names not checked', agentUnresolved: loaded.error };
  if (analyzeConfig(text).problems.some((p) => p.severity === 'error'))
    return { mode: 'skipped', note: `(the agent module did not load: ${loaded.error}): node names not checked` };
  return { error: loaded.error };
}

/** Why no agent module was loaded for `text`, in the words of the summary (`graph skipped (…)`). */
function whyNoAgent(text: string): string {
  const parsed = parseTree(text);
  if (!parsed.ok) return 'the file is not valid JSON, so `agent` was not read';
  const agent = parsed.tree.get(parsed.tree.root, 'agent');
  if (agent === NONE) return 'the file has no `agent`';
  return '`agent` is not a `module:export` string';
}

/** The graph read from the config's Python agent module; undefined when the agent is not a Python module. */
function pythonAgentOf(configPath: string, text: string): GraphSource | undefined {
  const agent = agentOfConfig(text);
  if (agent === undefined) return undefined;
  let module: ReturnType<typeof resolveAgentModule>;
  try {
    module = resolveAgentModule(configPath, agent);
  } catch {
    return undefined;
  }
  if (module.language !== 'python') return undefined;
  const shown = relative(dirname(resolve(configPath)), module.file)
    .split('\\')
    .join('/');
  const skipped = (why: string): GraphSource => ({ mode: 'skipped', note: `(${shown} not read: ${why}): node names not checked` });
  let source: string;
  try {
    // Checked before reading: a huge module costs a stat, not its whole text.
    if (statSync(module.file).size > MAX_PYTHON_MODULE_CHARS) return skipped(`the module is larger than ${MAX_PYTHON_MODULE_CHARS / (1024 * 1024)} MB and is not parsed`);
    source = readFileSync(module.file, 'utf8');
  } catch (error) {
    return skipped((error as Error).message);
  }
  const whole = readPythonModule(source);
  const read = pythonGraphOf(whole, module.exportName);
  // A name the module does not bind is the config's error, as the loader's for a TypeScript module.
  if (!read.ok && read.missing)
    return {
      mode: 'skipped',
      note: '(the agent does not resolve, see agent-not-found): node names not checked',
      agentUnresolved: pythonAgentGraphOf(module.file, shown, read, { spec: agent, graphs: compiledGraphNames(whole) }).missing,
    };
  if (!read.ok) return skipped(read.reason);
  return { mode: 'read', graph: read.graph, note: `from ${shown} (${read.graph.nodes.length} node${read.graph.nodes.length === 1 ? '' : 's'})` };
}
