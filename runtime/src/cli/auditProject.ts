/**
 * `10xgraph audit --project [DIR]`: every config of the project in DIR checked by the rule set,
 * and the project rules (`handler-missing`, `handler-undeclared`, `graph-not-read`) run over the
 * configs and the JS/TS sources together, as the editor runs them. The project is read through
 * the language server's own walk (`ProjectIndex`: regular files only, no link followed,
 * `node_modules` and `.gitignore` left out, the same size bounds), and nothing is run: without
 * `--graph-url`, node names are judged on the graph read from the agent module's source, as the
 * editor does without a server (a Python module, `graph.react:app`, by the workspace's Python reader,
 * ../workspace/pythonGraph.ts). Problems carry the ranges the editor shows.
 */
import { stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import {
  agentGraphOf,
  analyzeConfig,
  auditProjectConfig,
  auditProjectSource,
  configSummaryOf,
  LineIndex,
  pythonAgentGraphOf,
  readConfigSummary,
  splitAgentSpec,
  type AgentGraph,
  type AuditOptions,
  type Graph,
  type Problem,
  type ProjectFacts,
} from '../rules/index';
import { findAgentCandidates } from '../workspace/agentCandidates';
import { resolveAgentFile } from '../workspace/agentFile';
import { displayPath } from '../workspace/configFile';
import { CONFIG_FILE, configFilesOf, LEGACY_CONFIG_FILE } from '../workspace/configFiles';
import { isPythonPath, ProjectIndex, pythonModuleNotRead } from '../workspace/projectIndex';
import { compiledGraphNames, pythonGraphOf, readPythonModule } from '../workspace/pythonGraph';
import { pythonModulesOf } from '../workspace/pythonModules';
import { analyzeSource, isSourcePath, type SourceAnalysis } from '../workspace/sourceAnalysis';
import { countProblems, formatProblemLine, problemRange } from '../rules/problemText';
import { parseTree } from '../rules/tree';
import { escapeControl, jsonForLog } from '../text/escapeControl';
import { sarifUri, toSarif } from './sarif';

/** The configs of a project, as the editor's `10xgraph.files` default finds them. */
const CONFIG_GLOBS = [`**/${CONFIG_FILE}`, `**/${LEGACY_CONFIG_FILE}`];

/** What `audit --project` is asked. */
export interface ProjectAuditArgs {
  /** The project's folder (default: the working folder). */
  dir: string;
  graphUrl?: string;
  noGraph: boolean;
  format: 'text' | 'json' | 'sarif';
  timeoutMs: number;
}

/** One file of the project and the problems found in it. */
export interface ProjectFileReport {
  path: string;
  text: string;
  problems: Problem[];
}

interface FileFacts {
  text: string;
  source?: SourceAnalysis;
}

/**
 * The problems of a project: each config (the rule set, then the project rules) and each source
 * (the project rules), files in path order. Reads and runs nothing beyond the project's files and,
 * with `graph`, nothing of the agent module either.
 */
export async function auditProject(dir: string, options: { graph?: Graph; noGraph?: boolean } = {}): Promise<{ files: ProjectFileReport[]; note?: string }> {
  const root = resolve(dir);
  const index = new ProjectIndex<FileFacts>({
    read: (_path, text, kind) => (kind === 'source' ? { text, source: analyzeSource(text) } : { text }),
    names: () => '',
    log: () => undefined,
    changed: () => undefined,
    pause: () => Promise.resolve(),
  });
  await index.setRoots([{ path: root, files: CONFIG_GLOBS, exclude: [] }]);
  const files = [...index.all()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const configs = files.filter((f) => !f.source);
  const sources = files.filter((f) => f.source);
  const handled = new Set<string>();
  let computedHandlers = 0;
  for (const file of sources) for (const h of file.source!.handlers) h.name === undefined ? computedHandlers++ : handled.add(h.name);
  const declared = new Set<string>();
  for (const file of configs) for (const tool of readConfigSummary(file.text).tools) if (tool.name) declared.add(tool.name.value);
  const project: ProjectFacts = { complete: index.complete && index.truncated === undefined, handled, computedHandlers, declared };

  const reports: ProjectFileReport[] = [];
  for (const file of files) {
    if (file.source) {
      reports.push({ path: file.path, text: file.text, problems: auditProjectSource({ handlers: file.source.handlers, project }) });
      continue;
    }
    reports.push({ path: file.path, text: file.text, problems: await auditConfigOfProject(file.path, file.text, index, project, options) });
  }
  return { files: reports, ...(index.truncated ? { note: `the project was read in part (${index.truncated})` } : {}) };
}

/** One config of the project, judged as the editor judges it. */
async function auditConfigOfProject(
  path: string,
  text: string,
  index: ProjectIndex<FileFacts>,
  project: ProjectFacts,
  options: { graph?: Graph; noGraph?: boolean },
): Promise<Problem[]> {
  let graph = options.graph;
  let fromSource: AgentGraph | undefined;
  let unread: AgentGraph | undefined;
  // One parse of the text: its summary names the agent, and every analysis below reuses the tree.
  const parsed = parseTree(text);
  const tree = parsed.ok ? parsed.tree : undefined;
  const summary = tree ? configSummaryOf(tree) : undefined;
  const spec = summary?.agent?.value;
  if (!graph && !options.noGraph && spec !== undefined) {
    const file = await resolveAgentFile(path, spec);
    const facts = file ? await index.factsOf(file) : undefined;
    const exportName = splitAgentSpec(spec)?.exportName;
    // A Python module over the reader's bound is said to be so, as the editor says it.
    const notRead = file && !facts && isPythonPath(file) ? await pythonModuleNotRead(file) : undefined;
    const shown = file ? relative(dirname(path), file).split('\\').join('/') : '';
    const agent =
      file && notRead !== undefined
        ? pythonAgentGraphOf(file, shown, { ok: false, reason: notRead })
        : file && facts && isPythonPath(file) && exportName !== undefined
          ? pythonAgentOfText(file, shown, facts.text, spec, exportName)
          : file && facts?.source
            ? agentGraphOf(file, facts.source)
            : undefined;
    if (agent) {
      if (agent.graph) {
        graph = agent.graph;
        fromSource = agent;
      } else unread = agent;
    }
  }
  const judged: AuditOptions = {
    ...(graph ? { graph } : {}),
    ...(fromSource ? { graphReadFrom: fromSource } : {}),
    files: configFilesOf(path),
    ...(tree ? { previous: { flatTree: tree } } : {}),
    // A Python agent module that binds no such name: the server cannot import it.
    ...(unread?.missing ? { agentUnresolved: unread.missing } : {}),
  };
  let analysis = analyzeConfig(text, judged);
  if (analysis.problems.some((p) => p.code === 'agent-missing')) analysis = analyzeConfig(text, { ...judged, agentCandidates: findAgentCandidates(dirname(path)) });
  // A text that is not JSON gets its syntax errors first: the project is judged once it parses (as in the editor).
  if (!summary) return analysis.problems;
  // The modules the settings import, read through the index as the agent module is (not with --no-graph).
  const modules = options.noGraph
    ? undefined
    : await pythonModulesOf(
        path,
        (summary.imports ?? []).map((i) => i.module),
        async (file) => {
          const facts = await index.factsOf(file);
          if (facts) return readPythonModule(facts.text);
          // Not read: no such file, or one the index does not read (too large, not a regular file).
          return stat(file).then(
            () => undefined,
            () => 'missing' as const,
          );
        },
      );
  return [...analysis.problems, ...auditProjectConfig({ config: summary, project, covered: true, ...(unread ? { agent: unread } : {}), ...(modules ? { modules } : {}) })];
}

/** The graph `exportName` of a Python agent module's text, or why none is read, or that the module binds no such name. */
function pythonAgentOfText(file: string, shown: string, text: string, spec: string, exportName: string): AgentGraph {
  const module = readPythonModule(text);
  return pythonAgentGraphOf(file, shown, pythonGraphOf(module, exportName), { spec, graphs: compiledGraphNames(module) });
}

/** Runs `10xgraph audit --project`; resolves to the exit code (0 no error, 1 errors, 2 could not run). */
export async function runProjectAudit(args: ProjectAuditArgs, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let graph: Graph | undefined;
  let mode = args.noGraph ? 'skipped' : 'read';
  if (args.graphUrl !== undefined) {
    const { fetchLiveGraph } = await import('../live/fetchGraph');
    const result = await fetchLiveGraph(args.graphUrl, { timeoutMs: args.timeoutMs, token: process.env.TENXGRAPH_TOKEN || undefined });
    if (!result.ok) {
      err.write(escapeControl(`10xgraph audit: could not read the graph from ${args.graphUrl}: ${result.error}.`) + '\n');
      return 2;
    }
    graph = result.graph;
    mode = 'url';
  }
  const { files, note } = await auditProject(args.dir || '.', { graph, noGraph: args.noGraph });
  const all = files.flatMap((f) => f.problems);
  if (args.format === 'json') {
    const report = {
      project: displayPath(resolve(args.dir || '.')),
      graph: mode,
      files: files.map((f) => {
        const lines = new LineIndex(f.text);
        return {
          file: displayPath(f.path),
          problems: f.problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message, range: problemRange(lines, p) })),
        };
      }),
    };
    out.write(jsonForLog(report) + '\n');
  } else if (args.format === 'sarif') {
    out.write(jsonForLog(toSarif(files.map((f) => ({ uri: sarifUri(f.path), text: f.text, problems: f.problems })))) + '\n');
  } else {
    for (const f of files) {
      const lines = new LineIndex(f.text);
      for (const p of f.problems) out.write(formatProblemLine(displayPath(f.path), lines, p) + '\n');
    }
    const configs = files.filter((f) => !isSourcePath(f.path)).length;
    out.write(
      escapeControl(
        `${displayPath(resolve(args.dir || '.'))}: ${configs} config${configs === 1 ? '' : 's'}, ${files.length - configs} sources; ${countProblems(all)}${note ? `; ${note}` : ''}`,
      ) + '\n',
    );
  }
  return all.some((p) => p.severity === 'error') ? 1 : 0;
}
