/**
 * The language server against the project's real `10xgraph api` serving the quick start on
 * loopback: the four graph rules cross-checked (and equal to the rule set's own judgement on
 * the fetched graph), then the server stopped (offline, the cached graph used stale, no
 * crash) and started again on the same port (connected, diagnostics refreshed).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ExecuteCommandRequest, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { startApiServer, type RunningApiServer } from '../../runtime/src/api/index';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { auditConfig, LineIndex, type Graph } from '../../runtime/src/rules/index';
import type { StatusParams } from '../../common/protocol';
import { TestClient, fileUri, ROOT, tempFolder } from '../support/lspClient';

const QUICKSTART_CONFIG = join(ROOT, 'examples', 'quickstart', '10xgraph.json');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const CONFIG = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOLS", "name": "lookup", "description": "Look up a record in the local database." },
    { "node": "agent", "name": "summarise", "description": "Summarise the conversation so far." },
    { "node": "TOOL", "name": "get_time", "description": "Get the time on the user's machine." },
    { "node": "TOOL", "name": "open_camera", "description": "Open the user's camera and take a photo." },
    { "node": "TOOL", "name": "get_user_location", "description": "Get the user's current location." }
  ]
}
`;
const GRAPH_CODES = ['node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool', 'tool-not-attached'];

function graphCodes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => String(d.code)).filter((c) => GRAPH_CODES.includes(c));
}

/** What the test compares: code, severity, message and range. */
function judged(diagnostics: Diagnostic[]): unknown[] {
  return diagnostics.map((d) => [d.code, d.severity, d.message, d.range]);
}

/** The rule set's own judgement of CONFIG on `graph`, in the same shape. */
function expected(graph: Graph): unknown[] {
  const lines = new LineIndex(CONFIG);
  const severity = { error: 1, warning: 2, information: 3 };
  return auditConfig(CONFIG, { graph }).map((p) => [p.code, severity[p.severity], p.message, { start: lines.positionAt(p.offset), end: lines.positionAt(p.offset + p.length) }]);
}

function refresh(client: TestClient): Promise<StatusParams[]> {
  return client.connection.sendRequest(ExecuteCommandRequest.type, { command: '10xgraph.refreshGraph', arguments: [] }) as Promise<StatusParams[]>;
}

describe('against the real 10xgraph api (quick start)', () => {
  let api: RunningApiServer | undefined;
  let client: TestClient;
  let port: number;
  let fetchedGraph: Graph;
  const uri = fileUri(join(tempFolder(), '10xgraph.json'));

  before(async () => {
    api = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db: ':memory:', token: '', log: quiet });
    port = Number(new URL(api.url).port);
    client = await TestClient.start({ initializationOptions: { settings: { server: { url: api.url, refreshSeconds: 0, timeoutMs: 5000 } } } });
  });
  after(async () => {
    await client.stop();
    await api?.close();
  });

  test('the four graph rules, exactly as the rule set judges the fetched graph', async () => {
    await client.open(uri, CONFIG);
    const status = await client.waitStatus(api!.url, (s) => s.state === 'connected');
    assert.ok(status.nodeCount! >= 2);
    assert.equal(status.versionMismatch, undefined, 'the api and the rule set are the same version');
    const diagnostics = await client.pushed(uri, 1);
    assert.deepEqual(graphCodes(diagnostics), GRAPH_CODES);
    const fetched = await fetchLiveGraph(api!.url, { timeoutMs: 5000 });
    assert.ok(fetched.ok);
    fetchedGraph = fetched.graph;
    assert.deepEqual(judged(diagnostics), expected(fetchedGraph));
    const notFound = diagnostics.find((d) => d.code === 'node-not-found')!;
    assert.match(notFound.message, /'TOOLS'/);
  });

  test('the api stops: offline, the cached graph still checks node names, no crash', async () => {
    await api!.close();
    api = undefined;
    const published = client.published.length;
    const [status] = await refresh(client);
    assert.equal(status.state, 'offline');
    assert.equal(status.stale, true);
    assert.match(status.error!, /^graph: offline — node names checked against the graph fetched \d+ s ago/);
    const diagnostics = await client.pushed(uri, 1, () => client.published.length > published);
    assert.ok(graphCodes(diagnostics).includes('node-not-found'));
    assert.deepEqual(judged(diagnostics), expected({ ...fetchedGraph, stale: true }), 'judged as the rule set judges a stale graph');
    assert.ok(client.alive);
  });

  test('the api starts again on the same port: connected, diagnostics refreshed', async () => {
    api = await startApiServer({ configPath: QUICKSTART_CONFIG, port, db: ':memory:', token: '', log: quiet });
    const published = client.published.length;
    const [status] = await refresh(client);
    assert.equal(status.state, 'connected');
    await client.waitStatus(api.url, (s) => s.state === 'connected' && s.stale === undefined);
    const diagnostics = await client.pushed(uri, 1, () => client.published.length > published);
    assert.deepEqual(graphCodes(diagnostics), GRAPH_CODES);
  });
});
