/**
 * Loading the agent module a config names: TypeScript compiled with esbuild, JavaScript imported,
 * graphs recognised by their mark, and one clear error for each way it can go wrong.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentLoadError, loadAgentGraph } from '../../runtime/src/api/index';
import { CompiledGraph, isCompiledGraph } from '../../runtime/src/graph/index';
import { QUICKSTART_CONFIG, RUNTIME_DIST } from './serverHelpers';

const folder = mkdtempSync(join(tmpdir(), '10xgraph-agent-test-'));
const config = join(folder, '10xgraph.json');
writeFileSync(config, '{}');
const LIB = JSON.stringify(RUNTIME_DIST);

function write(name: string, text: string): void {
  mkdirSync(join(folder, name, '..'), { recursive: true });
  writeFileSync(join(folder, name), text);
}

async function loadError(spec: string): Promise<AgentLoadError> {
  try {
    await loadAgentGraph(config, spec);
  } catch (error) {
    assert.ok(error instanceof AgentLoadError, String(error));
    return error;
  }
  throw new Error(`${spec} loaded`);
}

describe('loadAgentGraph', () => {
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('loads the quick start (TypeScript importing 10xgraph) as a graph of another copy of the library', async () => {
    const graph = await loadAgentGraph(QUICKSTART_CONFIG, 'graph:app');
    assert.equal(isCompiledGraph(graph), true);
    // The module loaded runtime/dist, not these sources: recognised by mark, not by class.
    assert.equal(graph instanceof CompiledGraph, false);
    assert.deepEqual(
      graph.describe().nodes.map((n) => n.name),
      ['agent', 'TOOL'],
    );
  });

  test('bundles relative imports of a .ts module; import.meta.url and __dirname point at its folder', async () => {
    write('lib/names.ts', `export const TOOL_NODE: string = 'TOOLS';\n`);
    write(
      'agent.ts',
      `import { StateGraph, ToolNode } from ${LIB};
import { TOOL_NODE } from './lib/names';
const where = import.meta.url + ' ' + __dirname;
export const app = new StateGraph()
  .addNode(TOOL_NODE, new ToolNode([{ name: 'where', description: where, handler: () => where }]))
  .setEntryPoint(TOOL_NODE)
  .compile();
`,
    );
    const graph = await loadAgentGraph(config, 'agent:app');
    const [node] = graph.describe().nodes;
    assert.deepEqual([node!.name, node!.kind], ['TOOLS', 'tool_node']);
    assert.equal(node!.tools![0]!.description, `${pathToFileURL(join(folder, 'agent.ts')).href} ${folder}`);
  });

  test('finds graph.mjs when there is no graph.ts, and takes an explicit extension', async () => {
    write('only/graph.mjs', `import lib from ${LIB};\nexport const app = new lib.StateGraph().addNode('f', () => undefined).setEntryPoint('f').compile();\n`);
    write('only/10xgraph.json', '{}');
    const graph = await loadAgentGraph(join(folder, 'only', '10xgraph.json'), 'graph:app');
    assert.deepEqual(
      graph.describe().nodes.map((n) => n.kind),
      ['function_node'],
    );
    const explicit = await loadAgentGraph(config, 'only/graph.mjs:app');
    assert.equal(explicit.describe().nodes.length, 1);
  });

  test('a missing module names every file it looked for', async () => {
    const error = await loadError('nothing:app');
    assert.equal(error.code, 'agent-module-not-found');
    assert.match(error.message, /no nothing\.ts, nothing\.mts, nothing\.js, nothing\.mjs, nothing\/__init__\.py or nothing\.py in /);
  });

  test('a missing export lists the exports there are', async () => {
    write(
      'exports.ts',
      `import { StateGraph } from ${LIB};\nexport const graph = new StateGraph().addNode('a', () => undefined).setEntryPoint('a').compile();\nexport const other = 1;\n`,
    );
    const error = await loadError('exports:app');
    assert.equal(error.code, 'agent-export-not-found');
    assert.match(error.message, /has no export 'app' \(it exports 'graph', 'other'\)/);
  });

  test('an uncompiled StateGraph or another value is not a graph', async () => {
    write('uncompiled.ts', `import { StateGraph } from ${LIB};\nexport const app = new StateGraph();\nexport const n = 3;\n`);
    const uncompiled = await loadError('uncompiled:app');
    assert.equal(uncompiled.code, 'agent-export-not-graph');
    assert.match(uncompiled.message, /StateGraph that is not compiled: export graph\.compile\(\)/);
    const number = await loadError('uncompiled:n');
    assert.match(number.message, /is a number, not a compiled graph/);
  });

  test('a module that does not compile or throws says where', async () => {
    write('broken.ts', `export const app = ;\n`);
    const broken = await loadError('broken:app');
    assert.equal(broken.code, 'agent-module-failed');
    assert.match(broken.message, /does not compile: .*broken\.ts:1:\d+: /);
    write('throws.ts', `throw new Error('no model key');\nexport const app = 1;\n`);
    const throws = await loadError('throws:app');
    assert.equal(throws.code, 'agent-module-failed');
    assert.match(throws.message, /no model key/);
    write('missingdep.ts', `import 'no-such-package-anywhere';\nexport const app = 1;\n`);
    const missing = await loadError('missingdep:app');
    assert.match(missing.message, /Cannot resolve package 'no-such-package-anywhere'/);
  });
});
