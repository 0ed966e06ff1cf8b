/**
 * Python projects in the editor: the runtime's Python reader (`readPythonModule`, @lezer/python),
 * the same reader parsing the whole module, its JS/TS reader (`analyzeSource`) and @babel/parser on agent modules of about the same size and the same
 * nodes, in-process; and the language server (the bundle, dist/server.js, over stdio) indexing a
 * mixed workspace of 1,000 TypeScript and 1,000 Python files beside one of 2,000 TypeScript files,
 * as the server logs it, with its resident memory once done.
 *
 *   node --import tsx bench/run.ts python      # after `node esbuild.mjs`; prints the Markdown section
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The anchor: the language server's parser of TypeScript sources when the Python reader was asked for.
import { parse as parseTypeScript } from '@babel/parser';
import { analyzeSource } from '../runtime/src/workspace/sourceAnalysis';
import { pythonGraphOf, readPythonModule, readPythonModuleWhole } from '../runtime/src/workspace/pythonGraph';
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

The language server over stdio (dist/server.js, server checks off) indexing a generated workspace of ${MIXED_FILES.toLocaleString('en-US')} files,
as it logs it (\`indexed N source files in T ms\`, which gives way to the event loop after every file), and its
resident memory once done. Every Python module is read (what it binds at its top level is kept, for whichever \`agent\` names it).

${table(['workspace', 'files indexed', 'index time', 'RSS after'], indexRows)}
`;
}
