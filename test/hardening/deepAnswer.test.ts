/**
 * A live-graph answer nested thousands of levels deep (a tool's `parameters`, or the whole
 * body) is judged before anything walks it: `fetchLiveGraph` refuses it with one sentence,
 * and the language server reports that sentence as an offline status, keeps the last good graph,
 * keeps answering, and connects again once the server answers sanely. Before, such an answer
 * overflowed the stack after parsing and the update died without a status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ExecuteCommandRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from '../../runtime/src/live/jsonDepth';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

/** `/v1/graph/tools` with one tool whose `parameters` nest `depth` objects deep. */
function toolsAnswer(depth: number): string {
  const parameters = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `{"data": {"node_count": 1, "tool_count": 1, "nodes": [{"node_name": "TOOL", "tool_count": 1, "tools": [{"name": "get_time", "source": "local", "parameters": ${parameters}}]}]}, "metadata": {}}`;
}

describe('nestsDeeperThan', () => {
  test('counts objects and arrays, not brackets inside strings', () => {
    assert.equal(nestsDeeperThan('[[[]]]', 3), false);
    assert.equal(nestsDeeperThan('[[[[]]]]', 3), true);
    assert.equal(nestsDeeperThan('{"a": "[[[[[[[[", "b": "\\"[[[[[["}', 1), false);
    assert.equal(nestsDeeperThan('[{}, {}, [], [], {}]', 2), false);
    assert.equal(nestsDeeperThan('['.repeat(1_000_000), 64), true, 'a million levels: no recursion to overflow');
  });
});

describe('fetchLiveGraph', () => {
  let server: GraphHttpServer;
  before(async () => {
    server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
  });
  after(() => server.stop());

  for (const depth of [5_000, 100_000]) {
    test(`parameters ${depth} levels deep: refused with a sentence`, async () => {
      server.hostility = { kind: 'body', path: '/v1/graph/tools', body: toolsAnswer(depth) };
      const result = await fetchLiveGraph(server.url, { timeoutMs: 10_000 });
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.error, `/v1/graph/tools nests deeper than ${MAX_ANSWER_DEPTH} levels`);
    });
  }

  test('a whole body of brackets: refused the same way', async () => {
    server.hostility = { kind: 'body', path: '/v1/graph', body: `${'['.repeat(5000)}${']'.repeat(5000)}` };
    const result = await fetchLiveGraph(server.url, { timeoutMs: 10_000 });
    assert.equal(!result.ok && result.error, `/v1/graph nests deeper than ${MAX_ANSWER_DEPTH} levels`);
  });

  test('parameters a schema really uses (20 levels) are kept', async () => {
    server.hostility = { kind: 'body', path: '/v1/graph/tools', body: toolsAnswer(20) };
    const result = await fetchLiveGraph(server.url, { timeoutMs: 10_000 });
    assert.ok(result.ok, !result.ok ? result.error : '');
    let parameters = result.graph.nodes.find((n) => n.name === 'TOOL')?.tools?.[0].parameters as Record<string, unknown> | number;
    let depth = 0;
    while (typeof parameters === 'object') {
      parameters = parameters.a as Record<string, unknown> | number;
      depth++;
    }
    assert.equal(depth, 20);
  });
});

describe('the language server', () => {
  let root: string;
  let server: GraphHttpServer;
  let client: TestClient;
  let uri: string;
  const CONFIG = '{"agent": "graph:app", "remote_tools": [{"node": "NOPE", "name": "lookup", "description": "Look up a record by id."}]}';

  before(async () => {
    root = tempFolder('10xgraph-ls-deep-');
    mkdirSync(join(root, 'project'));
    uri = fileUri(join(root, 'project', '10xgraph.json'));
    server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    client = await TestClient.start({ initializationOptions: { storagePath: join(root, 'storage'), settings: { server: { url: server.url, refreshSeconds: 0 } } } });
  });
  after(async () => {
    await client.stop();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const refresh = () => client.connection.sendRequest(ExecuteCommandRequest.type, { command: '10xgraph.refreshGraph', arguments: [] });

  test('a deep answer after a good one: offline with the reason, the last good graph kept, still answering', async () => {
    await client.open(uri, CONFIG);
    await client.waitStatus(server.url, (s) => s.state === 'connected');
    await client.pushed(uri, 1, (d) => d.some((x) => x.code === 'node-not-found'));
    server.hostility = { kind: 'body', path: '/v1/graph/tools', body: toolsAnswer(5000) };
    await refresh();
    const status = await client.waitStatus(server.url, (s) => s.state === 'offline');
    assert.equal(status.stale, true);
    assert.equal(status.nodeCount, 3);
    assert.match(status.error!, new RegExp(`\\(/v1/graph/tools nests deeper than ${MAX_ANSWER_DEPTH} levels\\)$`));
    const version = await client.change(uri, CONFIG.replace('Look up', 'Find'));
    const diagnostics = await client.pushed(uri, version);
    assert.ok(
      diagnostics.some((d) => d.code === 'node-not-found'),
      'still judged against the last good graph',
    );
    await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } });
    assert.ok(client.alive, client.stderr.slice(-1000));
  });

  test('the server answers sanely again: connected', async () => {
    server.hostility = { kind: 'none' };
    await refresh();
    const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
    assert.equal(status.nodeCount, 3);
    assert.ok(client.alive);
  });
});
