/**
 * Hostile live-graph servers (raw TCP on loopback) against `fetchLiveGraph` and the language
 * server's `10xgraph/status`: a server that accepts and never answers, one that trickles a byte
 * a second (in the head or in the body), one that streams a gigabyte (with and without a
 * Content-Length; the bytes it managed to write are counted), redirects of every 3xx kind to
 * another origin (a second loopback server must see nothing, so no token can reach it), 401,
 * 403 and 500, bytes that are not UTF-8, `nodes` that is not a list, and 100,000 nodes. Each
 * fetch ends within its bound with one sentence saying why; the language server shows that
 * sentence as an offline status and never crashes; the token never leaves its origin.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DidChangeConfigurationNotification, HoverRequest } from 'vscode-languageserver-protocol/node';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { fileUri, tempFolder, TestClient } from '../support/lspClient';
import { pollUntil } from './netSupport/apiProcess';
import { bigGraph, envelope, HostileServer, validAnswer, type Behaviour } from './netSupport/hostileServers';

const TOKEN = 'hostile-test-token';
const GIGABYTE = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;

/** One hostile server, how each path misbehaves, and what the fetch must say. */
interface HostileCase {
  name: string;
  behave: (path: string, other: HostileServer) => Behaviour;
  error: RegExp;
  /** The fetch's time-out, and how long the whole fetch may take. */
  timeoutMs?: number;
  withinMs?: number;
  /** Bound on the bytes the server could write before the client stopped reading. */
  maxWritten?: number;
  /** The byte limit of the direct fetch (the language server's own is 16 MiB). */
  maxBytes?: number;
}

const REDIRECTS = [301, 302, 303, 307, 308] as const;

const CASES: HostileCase[] = [
  { name: 'accepts and never answers', behave: () => ({ kind: 'silent' }), error: /no answer from http:\/\/127\.0\.0\.1:\d+ within 400 ms/, timeoutMs: 400, withinMs: 2500 },
  {
    name: 'trickles its head, one byte a second',
    behave: () => ({ kind: 'trickle-head' }),
    error: /no answer from http:\/\/127\.0\.0\.1:\d+ within 400 ms/,
    timeoutMs: 400,
    withinMs: 2500,
  },
  {
    name: 'trickles its body, one byte a second',
    behave: () => ({ kind: 'trickle-body' }),
    error: /no answer from http:\/\/127\.0\.0\.1:\d+ within 1500 ms/,
    timeoutMs: 1500,
    withinMs: 4000,
  },
  {
    name: 'streams 1 GB without a Content-Length',
    behave: () => ({ kind: 'flood', totalBytes: GIGABYTE, declareLength: false }),
    error: /\/v1\/graph(\/tools)? is larger than \d+ bytes/,
    withinMs: 8000,
    maxWritten: 96 * MIB,
  },
  {
    name: 'declares and streams 1 GB',
    behave: () => ({ kind: 'flood', totalBytes: GIGABYTE, declareLength: true }),
    error: /\/v1\/graph(\/tools)? is larger than \d+ bytes/,
    withinMs: 8000,
    maxWritten: 64 * MIB,
  },
  ...REDIRECTS.flatMap((status): HostileCase[] => [
    {
      name: `answers ${status} to another port`,
      behave: (path, other) => ({ kind: 'redirect', status, location: `${other.url}${path}` }),
      error: new RegExp(`/v1/graph(/tools)? redirects to another origin \\(http://127\\.0\\.0\\.1:\\d+\\); not followed`),
    },
    {
      name: `answers ${status} to another host name`,
      behave: (path, other) => ({ kind: 'redirect', status, location: `http://localhost:${other.port}${path}` }),
      error: /redirects to another origin \(http:\/\/localhost:\d+\); not followed/,
    },
  ]),
  { name: 'answers 401', behave: () => ({ kind: 'status', status: 401 }), error: /\/v1\/graph(\/tools)? answered 401: the token was refused/ },
  { name: 'answers 403', behave: () => ({ kind: 'status', status: 403 }), error: /\/v1\/graph(\/tools)? answered 403: the token was refused/ },
  { name: 'answers 500', behave: () => ({ kind: 'status', status: 500 }), error: /\/v1\/graph(\/tools)? answered 500 Internal Server Error/ },
  {
    name: 'answers bytes that are not UTF-8',
    behave: () => ({ kind: 'body', body: Buffer.concat([Buffer.from('{"data": {"nodes": [{"name": "'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}]}}')]) }),
    error: /\/v1\/graph(\/tools)? is not valid UTF-8/,
  },
  ...([{}, null, 'nodes', 42, { 0: { name: 'a' } }] as unknown[]).map((nodes): HostileCase => ({
    name: `answers "nodes": ${JSON.stringify(nodes)}`,
    behave: (path) => (path === '/v1/graph' ? { kind: 'body', body: envelope({ info: { node_count: 1 }, nodes, edges: [] }) } : validAnswer(path)),
    error: /\/v1\/graph did not answer \{"data": \{"nodes": \[\.\.\.\]\}\}/,
  })),
  {
    name: 'answers a tools "nodes" that is not a list',
    behave: (path) => (path === '/v1/graph/tools' ? { kind: 'body', body: envelope({ nodes: 'TOOL' }) } : validAnswer(path)),
    error: /\/v1\/graph\/tools did not answer \{"data": \{"nodes": \[\.\.\.\]\}\}/,
  },
  {
    name: 'answers nodes that are not objects',
    behave: (path) => (path === '/v1/graph' ? { kind: 'body', body: envelope({ nodes: [1, 'TOOL', null] }) } : validAnswer(path)),
    error: /\/v1\/graph lists a node that is not an object/,
  },
  { name: 'answers an empty body', behave: () => ({ kind: 'body', body: '' }), error: /\/v1\/graph(\/tools)? did not answer JSON/ },
];

/**
 * Stops the server (closing what the client left open) and returns every byte it wrote: what
 * the client read before giving up, plus at most what the kernel buffered since.
 */
async function stopAndCount(server: HostileServer): Promise<number> {
  await server.stop();
  return server.bytesWritten;
}

describe('fetchLiveGraph against hostile servers', () => {
  const other = new HostileServer(validAnswer);
  before(() => other.start());
  after(() => other.stop());

  for (const c of CASES) {
    test(`${c.name}: a clear failure within its bound, no token leaves the origin`, async () => {
      const server = await new HostileServer((path) => c.behave(path, other)).start();
      try {
        const started = Date.now();
        const result = await fetchLiveGraph(server.url, { token: TOKEN, timeoutMs: c.timeoutMs ?? 10_000, maxBytes: c.maxBytes ?? MIB });
        const elapsed = Date.now() - started;
        assert.equal(result.ok, false, `a hostile server was accepted: ${JSON.stringify(result).slice(0, 200)}`);
        assert.match(result.ok ? '' : result.error, c.error);
        assert.ok(elapsed < (c.withinMs ?? 3000), `the fetch took ${elapsed} ms`);
        if (c.timeoutMs) assert.ok(elapsed >= c.timeoutMs - 50, `gave up after ${elapsed} ms, before its ${c.timeoutMs} ms`);
        if (c.maxWritten !== undefined) {
          const written = await stopAndCount(server);
          assert.ok(written < c.maxWritten, `the server wrote ${written} bytes before the client stopped reading`);
          console.log(`hostileGraph: '${c.name}': fetchLiveGraph stopped after ${(written / MIB).toFixed(1)} MiB of 1024 MiB`);
        }
        assert.ok(server.requests.length > 0 && server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`), 'the token went to its own origin');
        assert.deepEqual(other.requests, [], 'the other origin saw a request');
      } finally {
        await server.stop();
      }
    });
  }

  test('one path fails at once, the other never answers: the fetch leaves no request behind (runtime/src/live/fetchGraph.ts)', async () => {
    // Known failure: when one of the two requests fails, fetchLiveGraph returns without aborting
    // the other (its time-out is cleared in `finally`), so that request and its connection stay
    // open for as long as the server holds them; each refresh of the language server leaks one.
    const server = await new HostileServer((path) => (path === '/v1/graph' ? { kind: 'status', status: 500 } : { kind: 'silent' })).start();
    try {
      const result = await fetchLiveGraph(server.url, { token: TOKEN, timeoutMs: 500 });
      assert.ok(!result.ok);
      assert.match(result.error, /\/v1\/graph answered 500/);
      await pollUntil(() => server.openConnections === 0, 'the unanswered /v1/graph/tools request to be given up', 3000, 10).catch(() => {
        assert.fail(`${server.openConnections} request(s) of the fetch still open 3 s after it returned (its time-out was 500 ms)`);
      });
    } finally {
      await server.stop();
    }
  });

  test('a redirect within the origin is followed, with the token', async () => {
    const server = await new HostileServer((path) =>
      path.startsWith('/moved/') ? validAnswer(path.slice('/moved'.length)) : { kind: 'redirect', status: 307, location: `/moved${path}` },
    ).start();
    try {
      const result = await fetchLiveGraph(server.url, { token: TOKEN, timeoutMs: 5000 });
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(
        result.graph.nodes.map((n) => n.name),
        ['TOOL'],
      );
      assert.deepEqual(server.requests.map((r) => r.path).sort(), ['/moved/v1/graph', '/moved/v1/graph/tools', '/v1/graph', '/v1/graph/tools']);
      assert.ok(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
    } finally {
      await server.stop();
    }
  });

  test('401 without a token says the server needs one', async () => {
    const server = await new HostileServer(() => ({ kind: 'status', status: 401 })).start();
    try {
      const result = await fetchLiveGraph(server.url, { timeoutMs: 5000 });
      assert.ok(!result.ok);
      assert.match(result.error, /answered 401: the server needs a token/);
      assert.equal(result.status, 401);
      assert.ok(server.requests.every((r) => r.authorization === undefined));
    } finally {
      await server.stop();
    }
  });

  test('100,000 nodes: read within the bound when the limit allows, refused as too large by the default limit', async () => {
    const { graph, tools } = bigGraph(100_000, 2);
    const server = await new HostileServer((path) => ({ kind: 'body', body: path === '/v1/graph/tools' ? tools : graph })).start();
    try {
      const started = Date.now();
      const result = await fetchLiveGraph(server.url, { timeoutMs: 10_000, maxBytes: 32 * MIB });
      const elapsed = Date.now() - started;
      assert.ok(result.ok, JSON.stringify(result).slice(0, 300));
      assert.equal(result.graph.nodes.length, 100_000);
      assert.equal(result.graph.nodes.filter((n) => n.kind === 'tool_node').length, 50_000);
      assert.ok(elapsed < 5000, `100,000 nodes took ${elapsed} ms`);
      const refused = await fetchLiveGraph(server.url, { timeoutMs: 10_000 });
      assert.ok(!refused.ok);
      assert.match(refused.error, /is larger than 5242880 bytes/);
    } finally {
      await server.stop();
    }
  });
});

describe("the language server's status against hostile servers", () => {
  const other = new HostileServer(validAnswer);
  const folder = tempFolder('10xgraph-ls-hostile-');
  const uri = fileUri(join(folder, '10xgraph.json'));
  const CONFIG = '{\n  "agent": "graph:app",\n  "remote_tools": [\n    { "node": "NOPE", "name": "lookup", "description": "Look up a record in the local database." }\n  ]\n}\n';
  let settings: Record<string, unknown> = { server: { enabled: false } };
  let client: TestClient;
  let largeGraphDiagnostics: { size: number; fixes: number } | undefined;

  before(async () => {
    await other.start();
    client = await TestClient.start({ configuration: () => settings, workspaceFolders: [{ uri: fileUri(folder), name: 'hostile' }] });
    await client.open(uri, CONFIG);
    await client.pushed(uri, 1);
  });
  after(async () => {
    await client?.stop();
    await other.stop();
  });

  /** Points the language server at `url` and waits for a status of it that satisfies `accept`. */
  async function pointAt(url: string, timeoutMs: number, accept: (s: { state: string }) => boolean) {
    settings = { server: { enabled: true, url, token: TOKEN, timeoutMs, refreshSeconds: 0 } };
    await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    return client.waitStatus(url, accept, 'a status');
  }

  for (const c of CASES) {
    test(`${c.name}: status offline with the reason, no crash, no token elsewhere`, async () => {
      const server = await new HostileServer((path) => c.behave(path, other)).start();
      try {
        const status = await pointAt(server.url, c.timeoutMs ?? 10_000, (s) => s.state === 'offline');
        assert.match(status.error ?? '', /^graph: offline — node names not checked \(/);
        assert.match(status.error ?? '', c.error);
        assert.equal(status.nodeCount, undefined);
        if (c.maxWritten !== undefined) {
          const written = await stopAndCount(server);
          assert.ok(written < c.maxWritten, `the server wrote ${written} bytes before the language server stopped reading`);
          console.log(`hostileGraph: '${c.name}': the language server stopped after ${(written / MIB).toFixed(1)} MiB of 1024 MiB`);
        }
        assert.ok(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
        assert.deepEqual(other.requests, [], 'the other origin saw a request');
        // Still answering, and the file still judged (without the graph rules).
        await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 3, character: 10 } });
        assert.ok(client.alive, client.stderr.slice(-1000));
      } finally {
        await server.stop();
      }
    });
  }

  test('100,000 nodes: connected, and the file judged against them within a bound', async () => {
    const { graph, tools } = bigGraph(100_000, 2);
    const server = await new HostileServer((path) => ({ kind: 'body', body: path === '/v1/graph/tools' ? tools : graph })).start();
    try {
      const status = await pointAt(server.url, 10_000, (s) => s.state === 'connected');
      assert.equal(status.nodeCount, 100_000);
      const started = Date.now();
      const version = await client.change(uri, CONFIG.replace('Look up', 'Find'));
      const diagnostics = await client.pushed(uri, version);
      const elapsed = Date.now() - started;
      const notFound = diagnostics.find((d) => d.code === 'node-not-found');
      assert.ok(notFound, 'node-not-found judged against the live graph');
      assert.match(notFound.message, /ToolNodes: 'node_0', .*, …\./);
      const size = Buffer.byteLength(JSON.stringify(diagnostics));
      const fixes = (notFound.data as { fixes?: unknown[] } | undefined)?.fixes?.length ?? 0;
      console.log(`hostileGraph: 100,000 nodes: diagnostics in ${elapsed} ms, ${(size / 1024).toFixed(0)} KiB of diagnostics, ${fixes} quick fixes on one node-not-found`);
      assert.ok(elapsed < 5000, `diagnostics took ${elapsed} ms against 100,000 nodes`);
      assert.ok(client.alive);
      largeGraphDiagnostics = { size, fixes };
    } finally {
      await server.stop();
    }
  });

  test('100,000 nodes: one diagnostic carries a bounded number of quick fixes, not one per ToolNode (runtime/src/rules/rules/node-not-found.ts)', () => {
    // Known failure: node-not-found offers "Change to '<name>'" for every ToolNode of the graph,
    // so against 50,000 ToolNodes each diagnostic carries 50,000 fixes and every validation
    // pushes megabytes: the flood of diagnostics docs/spec.md §3 rules out.
    assert.ok(largeGraphDiagnostics, 'the 100,000-node test ran');
    assert.ok(largeGraphDiagnostics.fixes <= 100, `one node-not-found diagnostic carries ${largeGraphDiagnostics.fixes} quick fixes`);
    assert.ok(largeGraphDiagnostics.size < MIB, `one validation pushes ${(largeGraphDiagnostics.size / MIB).toFixed(1)} MiB of diagnostics`);
  });

  test('after all of it: alive, still judging the file, the other origin never contacted', async () => {
    settings = { server: { enabled: false, url: 'http://127.0.0.1:9' } };
    await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    await client.waitStatus('http://127.0.0.1:9', (s) => s.state === 'disabled');
    assert.ok(client.alive);
    assert.deepEqual(other.requests, []);
    const version = await client.change(uri, CONFIG);
    await client.pushed(uri, version);
  });
});
