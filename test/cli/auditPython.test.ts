import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, ROOT } from '../support/run';
import { GraphHttpServer } from '../support/graphHttp';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-python-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A copy of examples/python in a fresh folder, as a user's checkout. */
function copyExample(name: string): string {
  const dir = join(temp, name);
  cpSync(join(ROOT, 'examples', 'python'), dir, { recursive: true });
  return dir;
}

function edit(dir: string, file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  assert.ok(text.includes(from), `${file} has ${from}`);
  writeFileSync(path, text.split(from).join(to));
}

describe('10xgraph audit on a Python project (examples/python)', () => {
  test('the example as it is: exit 0, the summary names graph/react.py', async () => {
    const result = await runCli(['audit'], { cwd: copyExample('fixed') });
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, '10xgraph.json: no problems; graph read from graph/react.py (2 nodes)\n');
    assert.equal(result.code, 0);
  });

  test('a wrong node name: exit 1 with its node-not-found line', async () => {
    const dir = copyExample('wrong-node');
    edit(dir, '10xgraph.json', '"node": "TOOL",\n      "name": "read_clipboard"', '"node": "TOOLS",\n      "name": "read_clipboard"');
    const result = await runCli(['audit'], { cwd: dir });
    assert.match(result.stdout, /^10xgraph\.json:17:15: error \[node-not-found\] The graph has no node named 'TOOLS'/m);
    assert.match(result.stdout, /^10xgraph\.json: 1 error; graph read from graph\/react\.py \(2 nodes\)$/m);
    assert.equal(result.code, 1);
  });

  test('a node that is not a ToolNode: node-not-tool-node', async () => {
    const dir = copyExample('not-tool-node');
    edit(dir, '10xgraph.json', '"node": "TOOL",\n      "name": "read_clipboard"', '"node": "MAIN",\n      "name": "read_clipboard"');
    const result = await runCli(['audit'], { cwd: dir });
    assert.match(result.stdout, /^10xgraph\.json:17:15: error \[node-not-tool-node\] /m);
    assert.equal(result.code, 1);
  });

  test('a graph it cannot read exactly: said with the reason, the graph rules skipped, exit from the other problems', async () => {
    const dir = copyExample('unread');
    edit(dir, 'graph/react.py', 'graph.add_node("TOOL", tool_node)', 'for name in ["TOOL"]:\n    graph.add_node(name, tool_node)');
    edit(dir, '10xgraph.json', '"node": "TOOL",\n      "name": "read_clipboard"', '"node": "TOOLS",\n      "name": "read_clipboard"');
    const result = await runCli(['audit'], { cwd: dir });
    assert.equal(
      result.stdout,
      '10xgraph.json: no problems; graph skipped (graph/react.py not read: add_node() at 42:5 is in a loop; its nodes cannot be read exactly): node names not checked\n',
    );
    assert.equal(result.code, 0);
  });

  test('audit --project: node names judged on the graph read from graph/react.py, graph-not-read when it cannot be read exactly', async () => {
    const dir = copyExample('project');
    edit(dir, '10xgraph.json', '"node": "TOOL",\n      "name": "read_clipboard"', '"node": "TOOLS",\n      "name": "read_clipboard"');
    const judged = await runCli(['audit', '--project', dir, '--format', 'json']);
    const files = (JSON.parse(judged.stdout) as { files: Array<{ file: string; problems: Array<{ code: string; message: string }> }> }).files;
    const config = files.find((f) => f.file.endsWith('10xgraph.json'))!;
    assert.deepEqual(
      config.problems.map((p) => p.code),
      ['node-not-found'],
    );
    assert.match(config.problems[0].message, /\(Judged on the graph read from graph\/react\.py; no server graph is in use\.\)$/);
    // Python modules are read for the agent only: the project's files are the config and the client.
    assert.deepEqual(
      files.map((f) => f.file.split(/[\\/]/).pop()),
      ['10xgraph.json', 'client.ts'],
    );
    assert.equal(judged.code, 1);
    edit(dir, 'graph/react.py', 'graph.add_node("TOOL", tool_node)', 'for name in ["TOOL"]:\n    graph.add_node(name, tool_node)');
    const unread = await runCli(['audit', '--project', dir]);
    assert.match(
      unread.stdout,
      /^.*10xgraph\.json:2:12: information \[graph-not-read\] graph\/react\.py not read \(add_node\(\) at 42:5 is in a loop; its nodes cannot be read exactly\), so node names are not checked without a running server\.$/m,
    );
    assert.doesNotMatch(unread.stdout, /node-not-found/);
    assert.equal(unread.code, 0);
    // Over the index's bound of a file (512 KB), within the Python reader's (1 MB): judged; over it: said, as the editor says it.
    const module = join(dir, 'graph', 'react.py');
    const text = readFileSync(module, 'utf8').replace('for name in ["TOOL"]:\n    graph.add_node(name, tool_node)', 'graph.add_node("TOOL", tool_node)');
    writeFileSync(module, text + '#'.repeat(600 * 1024) + '\n');
    const large = await runCli(['audit', '--project', dir]);
    assert.match(large.stdout, /10xgraph\.json:\d+:\d+: error \[node-not-found\]/);
    assert.equal(large.code, 1);
    writeFileSync(module, text + '#'.repeat(1100 * 1024) + '\n');
    const tooLarge = await runCli(['audit', '--project', dir]);
    assert.match(
      tooLarge.stdout,
      /^.*10xgraph\.json:2:12: information \[graph-not-read\] graph\/react\.py not read \(the module is larger than 1 MB and is not parsed\), so node names are not checked without a running server\.$/m,
    );
    assert.equal(tooLarge.code, 0);
  });

  test('--graph-url against a stand-in of the Python server: mcp tools are server tools', async () => {
    const server = await new GraphHttpServer({
      nodes: [
        { name: 'MAIN' },
        {
          name: 'TOOL',
          tools: [
            { name: 'get_weather', source: 'local' },
            { name: 'read_clipboard', source: 'mcp' },
            { name: 'get_user_location', source: 'remote' },
          ],
        },
      ],
    }).start();
    try {
      const result = await runCli(['audit', '--graph-url', server.url], { cwd: copyExample('live') });
      assert.match(result.stdout, /^10xgraph\.json:\d+:\d+: error \[name-conflicts-with-server-tool\] .*'read_clipboard'/m);
      assert.doesNotMatch(result.stdout, /node-not-found|node-not-tool-node/);
      assert.equal(result.code, 1);
    } finally {
      await server.stop();
    }
  });

  test('--graph-url against an older Python server without /v1/graph/tools: node names judged, node kinds and server tools not', async () => {
    const server = await new GraphHttpServer({ nodes: [{ name: 'MAIN' }, { name: 'TOOL' }], toolsRoute: false }).start();
    try {
      const fine = await runCli(['audit', '--graph-url', server.url, '--format', 'json'], { cwd: copyExample('older') });
      assert.deepEqual(JSON.parse(fine.stdout).problems, []);
      assert.equal(fine.code, 0);
      const dir = copyExample('older-wrong');
      edit(dir, '10xgraph.json', '"node": "TOOL",\n      "name": "read_clipboard"', '"node": "TOOLS",\n      "name": "read_clipboard"');
      edit(dir, '10xgraph.json', '"node": "TOOL"', '"node": "MAIN"');
      const wrong = await runCli(['audit', '--graph-url', server.url], { cwd: dir });
      assert.match(wrong.stdout, /^10xgraph\.json:\d+:\d+: error \[node-not-found\] .*'TOOLS'/m);
      // MAIN's kind is not known without /v1/graph/tools: it is not called a wrong node.
      assert.doesNotMatch(wrong.stdout, /node-not-tool-node/);
      assert.equal(wrong.code, 1);
    } finally {
      await server.stop();
    }
  });

  test('10xgraph api refuses the Python agent in one line, exit 2', async () => {
    const result = await runCli(['api'], { cwd: copyExample('api') });
    assert.equal(
      result.stderr,
      "10xgraph api: Agent 'graph.react:app' is the Python module graph/react.py: 10xgraph api runs TypeScript graphs; run the Python project with 10xgraph-api.\n",
    );
    assert.equal(result.code, 2);
  });
});
