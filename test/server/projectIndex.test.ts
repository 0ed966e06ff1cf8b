/**
 * The project index on its own (real files in a temporary folder): its bounds, `.gitignore`
 * (negation, folders, anchored patterns), the exclude setting, and what it reads from sources.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitIgnore } from '../../runtime/src/workspace/gitignore';
import { ProjectIndex } from '../../server/src/projectIndex';
import { readSourceFacts } from '../../server/src/sourceFacts';
import { tempFolder } from '../support/lspClient';

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

const HANDLER = (name: string) => `client.registerToolHandler('${name}', () => 1);\n`;

function handlerNames(index: ProjectIndex): string[] {
  return [...index.all()].flatMap((f) => f.source?.handlers.map((h) => h.name ?? '(computed)') ?? []).sort();
}

describe('the project index', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const fresh = () => {
    const dir = tempFolder('10xgraph-index-');
    dirs.push(dir);
    return dir;
  };

  test('stops at its bounds and says so', async () => {
    const dir = fresh();
    for (let i = 0; i < 5; i++) write(dir, `src/f${i}.ts`, HANDLER(`t${i}`));
    write(dir, 'big.js', `${HANDLER('big')}${'// padding\n'.repeat(200)}`);
    const index = new ProjectIndex({ limits: { maxFiles: 3, maxFileBytes: 1000, maxTotalBytes: 1 << 20 }, log: () => undefined, changed: () => undefined });
    await index.setRoots([{ path: dir, files: [], exclude: [] }]);
    assert.equal(index.complete, true);
    assert.equal(index.size, 3);
    assert.equal(index.truncated, 'stopped at 3 files');
    // The file over maxFileBytes was skipped, not counted.
    assert.ok(!handlerNames(index).includes('big'));
    const bytes = new ProjectIndex({ limits: { maxFiles: 100, maxFileBytes: 1000, maxTotalBytes: 100 }, log: () => undefined, changed: () => undefined });
    await bytes.setRoots([{ path: dir, files: [], exclude: [] }]);
    assert.match(bytes.truncated ?? '', /^stopped at 0 MB of sources$/);
    assert.ok(bytes.size < 5);
  });

  test('skips node_modules, what .gitignore ignores (with re-includes) and the exclude globs', async () => {
    const dir = fresh();
    write(dir, '.gitignore', '# outputs\ndist/\n*.gen.ts\n!keep.gen.ts\n/root-only.ts\n');
    write(dir, 'dist/a.ts', HANDLER('dist'));
    write(dir, 'x.gen.ts', HANDLER('generated'));
    write(dir, 'keep.gen.ts', HANDLER('kept'));
    write(dir, 'root-only.ts', HANDLER('root-only'));
    write(dir, 'sub/root-only.ts', HANDLER('nested-root-only'));
    write(dir, 'sub/.gitignore', 'local.ts\n');
    write(dir, 'sub/local.ts', HANDLER('sub-local'));
    write(dir, 'node_modules/pkg/index.js', HANDLER('dependency'));
    write(dir, 'fixtures/skip.ts', HANDLER('excluded'));
    write(dir, 'types.d.ts', HANDLER('declaration'));
    write(dir, 'app.tsx', `export const App = () => <div>{client.registerToolHandler(\`jsx\`, () => 1) && null}</div>;\n`);
    const index = new ProjectIndex({ log: () => undefined, changed: () => undefined });
    await index.setRoots([{ path: dir, files: ['**/10xgraph.json'], exclude: ['fixtures/**'] }]);
    assert.deepEqual(handlerNames(index), ['jsx', 'kept', 'nested-root-only']);
  });

  test('reads Python modules within the same bounds: .gitignore, exclude globs, node_modules, Python environments, the size cap', async () => {
    const dir = fresh();
    const MODULE = (node: string) =>
      `from tenxgraph.core.graph import StateGraph, ToolNode\ngraph = StateGraph()\ngraph.add_node("${node}", ToolNode([]))\napp = graph.compile()\n`;
    write(dir, '.gitignore', 'build/\n');
    write(dir, 'graph/react.py', MODULE('TOOL'));
    write(dir, 'build/react.py', MODULE('BUILT'));
    write(dir, 'fixtures/react.py', MODULE('EXCLUDED'));
    write(dir, 'node_modules/pkg/react.py', MODULE('DEPENDENCY'));
    // Python environments (venv, conda) and byte-code folders, whatever their names, are installed code.
    write(dir, 'env/pyvenv.cfg', 'home = /usr/bin\n');
    write(dir, 'env/lib/python3.12/site-packages/pkg/react.py', MODULE('VENV'));
    write(dir, 'tools/conda/conda-meta/history', '');
    write(dir, 'tools/conda/lib/react.py', MODULE('CONDA'));
    write(dir, 'graph/__pycache__/react.py', MODULE('CACHE'));
    write(dir, 'big.py', `${MODULE('BIG')}${'# padding\n'.repeat(200)}`);
    write(dir, 'loop.py', 'from tenxgraph.core.graph import StateGraph\ngraph = StateGraph()\nfor n in ["A"]:\n    graph.add_node(n, lambda s: s)\napp = graph.compile()\n');
    const index = new ProjectIndex({ limits: { maxFiles: 100, maxFileBytes: 1000, maxTotalBytes: 1 << 20 }, log: () => undefined, changed: () => undefined });
    await index.setRoots([{ path: dir, files: ['**/10xgraph.json'], exclude: ['fixtures/**'] }]);
    const read = [...index.all()]
      .filter((f) => f.python)
      .map((f) => {
        const app = f.python!.exports.find(([name]) => name === 'app')![1];
        return [
          f.path
            .slice(dir.length + 1)
            .split(/[\\/]/)
            .join('/'),
          app.ok ? app.graph.nodes.map((n) => `${n.name}:${n.kind}`) : app.reason,
        ] as const;
      })
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(read, [
      ['graph/react.py', ['TOOL:tool_node']],
      ['loop.py', 'add_node() at 4:5 is in a loop; its nodes cannot be read exactly'],
    ]);
    // A file event inside an environment is left out as well.
    write(dir, 'env/lib/python3.12/site-packages/pkg/new.py', MODULE('VENV_NEW'));
    await index.fileEvent(join(dir, 'env', 'lib', 'python3.12', 'site-packages', 'pkg', 'new.py'), false);
    assert.equal([...index.all()].filter((f) => f.path.includes(`${join('site-packages', 'pkg')}`)).length, 0);
    // The add_node name's range, for go to definition.
    const react = [...index.all()].find((f) => f.path.endsWith('react.py'))!.python!.exports.find(([name]) => name === 'app')![1];
    assert.ok(react.ok);
    assert.deepEqual(react.nodes[0].range, { start: { line: 2, character: 15 }, end: { line: 2, character: 21 } });
  });

  test('.gitignore rules, one by one', () => {
    const ignore = new GitIgnore('build/\n*.log\n!important.log\n/top.ts\nnotes/**/draft-*.md\n\\#hash.ts\n');
    assert.equal(ignore.verdict('build', true), true);
    assert.equal(ignore.verdict('build', false), undefined);
    assert.equal(ignore.verdict('a/b/debug.log', false), true);
    assert.equal(ignore.verdict('important.log', false), false);
    assert.equal(ignore.verdict('top.ts', false), true);
    assert.equal(ignore.verdict('sub/top.ts', false), undefined);
    assert.equal(ignore.verdict('notes/x/y/draft-1.md', false), true);
    assert.equal(ignore.verdict('notes/draft-1.md', false), true);
    assert.equal(ignore.verdict('#hash.ts', false), true);
  });

  test('reads literal names, computed names and node kinds from sources', () => {
    const facts = readSourceFacts(
      [
        'const tools = new ToolNode([]);',
        'const model = new ModelNode(m) as ModelNode;',
        'function route(s: State) { return s; }',
        'const g = new StateGraph<State>()',
        "  .addNode('TOOL', tools)",
        "  .addNode('agent', model!)",
        "  .addNode('route', route)",
        "  .addNode('inline', async (s) => s)",
        '  .addNode(NAME, other);',
        'executor.registerToolHandler(name, handler);',
        "executor?.registerToolHandler('a\\u0062', handler);",
      ].join('\n'),
    );
    assert.deepEqual(
      facts.nodes.map((n) => [n.name ?? null, n.kind]),
      [
        ['TOOL', 'tool_node'],
        ['agent', 'model_node'],
        ['route', 'function_node'],
        ['inline', 'function_node'],
        [null, 'unknown'],
      ],
    );
    assert.deepEqual(
      facts.handlers.map((h) => [h.name ?? null, h.exact]),
      [
        [null, false],
        ['ab', false],
      ],
    );
    assert.equal(facts.syntaxError, undefined);
  });
});
