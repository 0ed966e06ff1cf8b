/**
 * Python projects in the editor: the runtime's Python reader (`readPythonModule`, @lezer/python),
 * the same reader parsing the whole module, its JS/TS reader (`analyzeSource`) and @babel/parser on agent modules of about the same size and the same
 * nodes, in-process; the reader on the real module shapes (test/fixtures/real-shapes) beside the reader as it was
 * at 87f0867 (issue 26's "today's reader") and the 2,000-line module; and the language server (the bundle, dist/server.js, over stdio) indexing a
 * mixed workspace of 1,000 TypeScript and 1,000 Python files beside one of 2,000 TypeScript files,
 * as the server logs it, with its resident memory once done.
 *
 *   node --import tsx bench/run.ts python      # after `node esbuild.mjs`; prints the Markdown section
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// The anchor: the language server's parser of TypeScript sources when the Python reader was asked for.
import { parse as parseTypeScript } from '@babel/parser';
import { analyzeSource } from '../runtime/src/workspace/sourceAnalysis';
import { pythonGraphOf, readPythonModule, readPythonModuleWhole } from '../runtime/src/workspace/pythonGraph';
import { realShapes } from '../test/support/realShapes';
import { median, ms, table, timeRuns } from './measure';
import { memoryMiB, startServer } from './project';

/** Nodes of the generated agent modules: each with a function of a few lines beside it (333 nodes: the 2,000-line module). */
const MODULE_NODES = [10, 100, 333, 1_000] as const;
const MIXED_FILES = 2_000;

/** A Python agent module of `nodes` nodes (a ToolNode and function nodes, each with its function). */
function pythonModule(nodes: number): string {
  const lines = ['from tenxgraph.core.graph import StateGraph, ToolNode', '', 'tool_node = ToolNode([])', ''];
  for (let i = 0; i < nodes; i++) lines.push(`def step_${i}(state):`, `    """Step ${i} of the graph."""`, `    return {"step": ${i}, "label": "step ${i}"}`, '', '');
  lines.push('graph = StateGraph()', 'graph.add_node("TOOL", tool_node)');
  for (let i = 0; i < nodes; i++) lines.push(`graph.add_node("STEP_${i}", step_${i})`);
  lines.push('', 'app = graph.compile()', '');
  return lines.join('\n');
}

/** The same graph built by chained calls, as the TypeScript module builds it (`(graph.add_node(...).add_node(...))`, a hundred calls a statement). */
function pythonChainedModule(nodes: number): string {
  const lines = ['from tenxgraph.core.graph import StateGraph, ToolNode', '', 'tool_node = ToolNode([])', ''];
  for (let i = 0; i < nodes; i++) lines.push(`def step_${i}(state):`, `    """Step ${i} of the graph."""`, `    return {"step": ${i}, "label": "step ${i}"}`, '', '');
  lines.push('graph = StateGraph()', '(', '    graph', '    .add_node("TOOL", tool_node)');
  for (let i = 0; i < nodes; i++) {
    if (i > 0 && i % 100 === 0) lines.push(')', '(', '    graph');
    lines.push(`    .add_node("STEP_${i}", step_${i})`);
  }
  lines.push(')', '', 'app = graph.compile()', '');
  return lines.join('\n');
}

/** The same graph as a TypeScript agent module. */
function typescriptModule(nodes: number): string {
  const lines = ["import { StateGraph, ToolNode } from '10xgraph';", '', 'const tools = new ToolNode([]);', ''];
  for (let i = 0; i < nodes; i++)
    lines.push(`/** Step ${i} of the graph. */`, `function step${i}(state: unknown) {`, `  return { step: ${i}, label: 'step ${i}', state };`, '}', '');
  lines.push('export const app = new StateGraph()', "  .addNode('TOOL', tools)");
  for (let i = 0; i < nodes; i++) lines.push(`  .addNode('STEP_${i}', step${i})`);
  lines.push('  .compile();', '');
  return lines.join('\n');
}

/** A workspace of `files` sources beside a config: half Python modules (one in ten an agent module) when `mixed`, else all TypeScript. */
function generateWorkspace(dir: string, files: number, mixed: boolean): void {
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `pkg${Math.floor(i / 100)}`);
    mkdirSync(folder, { recursive: true });
    const python = mixed && i % 2 === 1;
    if (python)
      writeFileSync(
        join(folder, `mod${i}.py`),
        i % 20 === 1
          ? pythonModule(5)
          : `"""Helpers of part ${i}."""\n\n\ndef format_${i}(row):\n    return f"{row['id']}: {row['label']}"\n\n\nROWS_${i} = [{"id": ${i}, "label": "row ${i}"}]\n`,
      );
    else
      writeFileSync(
        join(folder, `file${i}.ts`),
        i % 20 === 0
          ? typescriptModule(5)
          : `/** Helpers of part ${i}. */\nexport function format${i}(row: { id: number; label: string }): string {\n  return \`\${row.id}: \${row.label}\`;\n}\n\nexport const rows${i} = [{ id: ${i}, label: 'row ${i}' }];\n`,
      );
  }
  mkdirSync(join(dir, 'graph'), { recursive: true });
  writeFileSync(join(dir, 'graph', 'react.py'), pythonModule(5));
  writeFileSync(join(dir, '10xgraph.json'), JSON.stringify({ agent: mixed ? 'graph.react:app' : 'graph:app', remote_tools: [] }, null, 2));
  if (!mixed) writeFileSync(join(dir, 'graph.ts'), typescriptModule(5));
}

/** The reader issue 26 calls "today's reader" (the commit it was filed at): the real shapes are held within 1.2× of it. */
const BASELINE_COMMIT = '87f0867';

/** What both readers answer for one export, as far as this bench looks at it. */
type GraphRead = { ok: true; graph: { nodes: readonly unknown[] } } | { ok: false; reason: string };

/** `readPythonModule` then `pythonGraphOf`: what the editor and `audit` do with a module and the export `agent` names. */
type ReadExport = (source: string, exportName: string) => GraphRead;

/**
 * The reader as it was at BASELINE_COMMIT: runtime/src of that commit (`git archive`) in a folder of
 * bench/out (git-ignored; its imports of @lezer/python resolve from the repository's node_modules),
 * imported through tsx. The folder is removed by `remove`; `why` says what failed instead.
 */
async function baselineReader(): Promise<{ read?: ReadExport; why?: string; remove: () => void }> {
  const out = join(__dirname, 'out');
  let dir: string | undefined;
  const remove = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    try {
      rmdirSync(out); // bench/out itself, when nothing else is in it
    } catch {
      // not empty, or gone
    }
  };
  try {
    mkdirSync(out, { recursive: true });
    dir = mkdtempSync(join(out, `reader-${BASELINE_COMMIT}-`));
    const tar = join(dir, 'src.tar');
    const archive = spawnSync('git', ['archive', '--format=tar', '-o', tar, BASELINE_COMMIT, 'runtime/src'], { cwd: join(__dirname, '..'), encoding: 'utf8' });
    if (archive.status !== 0) return { why: `\`git archive ${BASELINE_COMMIT}\` failed: ${(archive.stderr || String(archive.error)).trim().split('\n')[0]}`, remove };
    const untar = spawnSync('tar', ['-xf', tar, '-C', dir], { encoding: 'utf8' });
    if (untar.status !== 0) return { why: `\`tar -xf\` failed: ${(untar.stderr || String(untar.error)).trim().split('\n')[0]}`, remove };
    type Module = { readPythonModule: (source: string) => unknown; pythonGraphOf: (module: unknown, exportName: string) => GraphRead };
    const imported = (await import(pathToFileURL(join(dir, 'runtime', 'src', 'workspace', 'pythonGraph.ts')).href)) as Partial<Module> & { default?: Partial<Module> };
    const mod = imported.readPythonModule ? imported : imported.default;
    const readModule = mod?.readPythonModule;
    const graphOf = mod?.pythonGraphOf;
    if (!readModule || !graphOf) return { why: `runtime/src/workspace/pythonGraph.ts at ${BASELINE_COMMIT} exports no readPythonModule and pythonGraphOf`, remove };
    return { read: (source, exportName) => graphOf(readModule(source), exportName), remove };
  } catch (error) {
    return { why: `the reader at ${BASELINE_COMMIT} could not be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, remove };
  }
}

/**
 * The median time of one call of each of `fns`, in ms, taken in turns: `rounds` rounds, in each
 * `runs` samples of every function in a row, a sample being a batch of calls long enough (about
 * half a millisecond) for the clock, so a slow spell of the machine weighs on all alike.
 */
function timeInTurns(fns: ReadonlyArray<() => unknown>, rounds = 5, runs = 20): number[] {
  const batches = fns.map((fn) => {
    const once = median(timeRuns(fn, 10, 5));
    return Math.max(1, Math.min(200, Math.ceil(0.5 / Math.max(once, 1e-4))));
  });
  const samples: number[][] = fns.map(() => []);
  for (let round = 0; round < rounds; round++)
    fns.forEach((fn, i) => {
      const batch = batches[i];
      const many = () => {
        for (let k = 0; k < batch; k++) fn();
      };
      for (const t of timeRuns(many, runs, 1)) samples[i].push(t / batch);
    });
  return samples.map((s) => median(s));
}

const reads = (read: GraphRead) => (read.ok ? `${read.graph.nodes.length} node${read.graph.nodes.length === 1 ? '' : 's'}` : 'not read');

/** The real module shapes through today's reader and the reader at BASELINE_COMMIT, beside the 2,000-line generated module: the table and its summary. */
export async function benchRealShapes(log: (line: string) => void = () => undefined): Promise<string> {
  const loadBefore = loadavg();
  const now: ReadExport = (source, exportName) => pythonGraphOf(readPythonModule(source), exportName);
  const baseline = await baselineReader();
  try {
    const generated = { file: 'generated, 333 nodes (the 2,000-line module)', source: pythonModule(333), exportName: 'app' };
    const modules = [generated, ...realShapes()];
    const times = modules.map((m) => {
      const t = timeInTurns(baseline.read ? [() => now(m.source, m.exportName), () => baseline.read!(m.source, m.exportName)] : [() => now(m.source, m.exportName)]);
      log(`python bench: ${m.file} read`);
      return { nowMs: t[0], baselineMs: t[1] as number | undefined };
    });
    const generatedMs = times[0].nowMs;
    const rows = modules.map((m, i) => {
      const { nowMs, baselineMs } = times[i];
      return [
        i === 0 ? m.file : `\`${m.file}\``,
        String(m.source.split('\n').length),
        reads(now(m.source, m.exportName)),
        baseline.read ? reads(baseline.read(m.source, m.exportName)) : 'n/a',
        ms(nowMs),
        baselineMs !== undefined ? ms(baselineMs) : 'n/a',
        baselineMs !== undefined ? `${(nowMs / baselineMs).toFixed(2)}×` : 'n/a',
        `${(nowMs / generatedMs).toFixed(2)}×`,
      ];
    });
    const shapes = modules.slice(1).map((m, i) => ({ file: m.file, ...times[i + 1] }));
    const worst = <T>(items: T[], by: (item: T) => number) => items.reduce((a, b) => (by(b) > by(a) ? b : a));
    const overGenerated = worst(shapes, (s) => s.nowMs);
    const ofGenerated = overGenerated.nowMs / generatedMs;
    let summary: string;
    if (baseline.read) {
      const ratios = shapes.map((s) => ({ file: s.file, r: s.nowMs / s.baselineMs! }));
      const top = worst(ratios, (s) => s.r);
      const geomean = Math.exp(ratios.reduce((sum, s) => sum + Math.log(s.r), 0) / ratios.length);
      const over = ratios.filter((s) => s.r > 1.2);
      summary =
        `Over the ${shapes.length} real shapes: the largest ratio to ${BASELINE_COMMIT} is ${top.r.toFixed(2)}× (\`${top.file}\`), the geometric mean ${geomean.toFixed(2)}×; ` +
        `the largest ratio to the 2,000-line module is ${ofGenerated.toFixed(2)}× (\`${overGenerated.file}\`).\n\n` +
        `Targets (issue 26): every shape within 1.2× of the reader at ${BASELINE_COMMIT}: ${over.length === 0 ? 'met' : `**not met** (${over.length} above: ${over.map((s) => `\`${s.file}\` ${s.r.toFixed(2)}×`).join(', ')})`}; ` +
        `none costing more than the 2,000-line module: ${ofGenerated <= 1 ? 'met' : '**not met**'}.`;
    } else
      summary =
        `The baseline (the reader at ${BASELINE_COMMIT}) is not available here: ${baseline.why ?? 'unknown'}. ` +
        `The largest ratio to the 2,000-line module is ${ofGenerated.toFixed(2)}× (\`${overGenerated.file}\`): ${ofGenerated <= 1 ? 'met' : '**not met**'} (none costing more than it).`;
    const loadAfter = loadavg();
    const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(', ');
    return `The real module shapes (test/fixtures/real-shapes, issue 26): \`readPythonModule\` then \`pythonGraphOf\` on the export
\`agent\` names, as the editor and \`audit\` read a module, now and with the reader as it was at ${BASELINE_COMMIT} (the issue's
"today's reader": runtime/src of that commit taken by \`git archive\` into a folder of bench/out for the run, then removed),
and each against the 2,000-line generated module read the same way in the same run (its first row). The two readers
take turns on each module (5 rounds of 20 samples each, a sample a batch of calls of about half a millisecond); medians
of one call, in ms. "reads" is what each reader answers for the export (its nodes, or not read). Load average
${load(loadBefore)} before and ${load(loadAfter)} after (1, 5, 15 minutes).

${table(['module', 'lines', 'reads', `${BASELINE_COMMIT} reads`, 'now', BASELINE_COMMIT, `now / ${BASELINE_COMMIT}`, 'now / 2,000-line module'], rows)}

${summary}
`;
  } finally {
    baseline.remove();
  }
}

/** Runs the section and returns its Markdown. */
export async function benchPython(log: (line: string) => void = () => undefined): Promise<string> {
  const readers: string[][] = [];
  for (const nodes of MODULE_NODES) {
    const py = pythonModule(nodes);
    const ts = typescriptModule(nodes);
    const runs = nodes >= 1_000 ? 30 : 100;
    const pyMs = median(timeRuns(() => readPythonModule(py), runs, 3));
    const wholeMs = median(timeRuns(() => readPythonModuleWhole(py), runs, 3));
    const chained = pythonChainedModule(nodes);
    // Each module reads as the graph it is, or the figures would be of a reader giving up.
    for (const module of [py, chained]) {
      const read = pythonGraphOf(readPythonModule(module), 'app');
      if (!read.ok || read.graph.nodes.length !== nodes + 1)
        throw new Error(`python bench: a ${nodes}-node module is not read: ${read.ok ? read.graph.nodes.length : read.reason}`);
    }
    const chainedMs = median(timeRuns(() => readPythonModule(chained), runs, 3));
    const tsMs = median(timeRuns(() => analyzeSource(ts), runs, 3));
    const babelMs = median(timeRuns(() => parseTypeScript(ts, { sourceType: 'module', plugins: ['typescript'], errorRecovery: true }), runs, 3));
    readers.push([
      String(nodes),
      `${py.split('\n').length} lines, ${(py.length / 1024).toFixed(0)} KB`,
      ms(pyMs),
      ms(wholeMs),
      ms(chainedMs),
      `${(ts.length / 1024).toFixed(0)} KB`,
      ms(tsMs),
      ms(babelMs),
      `${(pyMs / tsMs).toFixed(1)}×`,
      `${(pyMs / babelMs).toFixed(1)}×`,
      `${(chainedMs / tsMs).toFixed(1)}×`,
    ]);
    log(`python bench: ${nodes} nodes read`);
  }
  const shapes = await benchRealShapes(log);
  const dir = mkdtempSync(join(tmpdir(), '10xgraph-python-bench-'));
  const indexRows: string[][] = [];
  try {
    for (const mixed of [false, true]) {
      const ws = join(dir, mixed ? 'mixed' : 'typescript');
      generateWorkspace(ws, MIXED_FILES, mixed);
      const server = await startServer(join(dir, 'cache'), ws);
      const r = await server.indexed;
      const memory = memoryMiB(server.pid);
      await server.stop();
      indexRows.push([
        mixed ? `${MIXED_FILES / 2} .ts + ${MIXED_FILES / 2} .py (one in ten an agent module)` : `${MIXED_FILES} .ts (one in ten an agent module)`,
        String(r.files),
        `${r.ms} ms`,
        memory.rss !== undefined ? `${memory.rss.toFixed(0)} MiB` : 'n/a',
      ]);
      log(`python bench: ${mixed ? 'mixed' : 'typescript'} workspace indexed in ${r.ms} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return `## Python projects: the Python reader and a mixed workspace (python)

The runtime's two readers of an agent module, in-process, on generated modules of the same graph (a ToolNode and
N function nodes, each function of three lines beside it, then one \`add_node\` line a node): \`readPythonModule\`
(runtime/src/workspace/pythonGraph.ts: the module cut into its top-level statements in one lexical pass, the
definitions that never name the graph read by their names alone, the plainest \`add_node\` calls (alone or chained)
read without a parse, the rest parsed by @lezer/python and read),
the same reader parsing the whole module (\`readPythonModuleWhole\`, the reader as it was first written, and the
reference its tests hold it to), \`analyzeSource\` (runtime/src/workspace/sourceAnalysis.ts, one pass of its
tokenizer) and, as the anchor, a parse of the TypeScript module by @babel/parser (the language server's parser
of TypeScript sources when the Python reader was asked for). "chained" is \`readPythonModule\` on the same graph added by
chained calls, as the TypeScript module adds it (\`(graph.add_node(...).add_node(...)...)\`, a hundred calls a statement).
Medians of 30 to 100 runs after a warm-up.

${table(['nodes', 'Python module', 'readPythonModule', 'whole parse', 'chained', 'TypeScript module', 'analyzeSource', '@babel/parser', 'Python / analyzeSource', 'Python / @babel/parser', 'chained / analyzeSource'], readers)}

${shapes}
The language server over stdio (dist/server.js, server checks off) indexing a generated workspace of ${MIXED_FILES.toLocaleString('en-US')} files,
as it logs it (\`indexed N source files in T ms\`, which gives way to the event loop after every file), and its
resident memory once done. Every Python module is read (what it binds at its top level is kept, for whichever \`agent\` names it).

${table(['workspace', 'files indexed', 'index time', 'RSS after'], indexRows)}
`;
}
