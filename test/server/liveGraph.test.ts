/**
 * The live graph over stdio, against a loopback server answering docs/spec.md §3: the graph rules
 * cross-checked, the server going away and coming back, the disk cache, trust, the token,
 * version mismatch, and hostile servers. Requests are counted to prove that typing never
 * fetches.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DocumentSymbolRequest, ExecuteCommandRequest, MessageType, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { TrustNotification, type StatusParams } from '../../common/protocol';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH, type Hostility } from '../support/graphHttp';

const CONFIG = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "NOPE", "name": "lookup", "description": "Look up a record in the local database." },
    { "node": "agent", "name": "summarise", "description": "Summarise the conversation so far." },
    { "node": "TOOL", "name": "get_time", "description": "Get the time on the user's machine." },
    { "node": "TOOL", "name": "read_clipboard", "description": "Read text from the user's clipboard." },
    { "node": "TOOL", "name": "get_user_location", "description": "Get the user's current location." }
  ]
}
`;
const GRAPH_CODES = ['node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool', 'tool-not-attached'];

function graphCodes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => String(d.code)).filter((c) => GRAPH_CODES.includes(c));
}

/** A request the server answers only after handling every earlier message. */
async function roundTrip(client: TestClient, uri: string): Promise<void> {
  await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
}

function refresh(client: TestClient, uri?: string): Promise<StatusParams[]> {
  return client.connection.sendRequest(ExecuteCommandRequest.type, { command: '10xgraph.refreshGraph', arguments: uri ? [uri] : [] }) as Promise<StatusParams[]>;
}

describe('cross-checks against a live graph, the server going away and coming back', () => {
  let server: GraphHttpServer;
  let client: TestClient;
  const dir = tempFolder();
  const storagePath = tempFolder('10xgraph-ls-store-');
  const uri = fileUri(join(dir, '10xgraph.json'));
  before(async () => {
    server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    client = await TestClient.start({ initializationOptions: { storagePath, settings: { server: { url: server.url, refreshSeconds: 0 } } } });
  });
  after(async () => {
    await client.stop();
    await server.stop();
  });

  test('node-not-found, node-not-tool-node, name-conflicts-with-server-tool and tool-not-attached', async () => {
    await client.open(uri, CONFIG);
    const diagnostics = await client.pushed(uri, 1);
    assert.deepEqual(graphCodes(diagnostics), GRAPH_CODES);
    const byCode = new Map(diagnostics.map((d) => [d.code, d]));
    assert.equal(byCode.get('node-not-found')!.range.start.line, 3);
    assert.equal(byCode.get('node-not-tool-node')!.range.start.line, 4);
    assert.equal(byCode.get('name-conflicts-with-server-tool')!.range.start.line, 5);
    assert.equal(byCode.get('tool-not-attached')!.range.start.line, 6);
    const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
    assert.equal(status.nodeCount, 3);
    assert.equal(status.version, '0.1.0');
    assert.equal(status.versionMismatch, undefined);
    assert.equal(status.error, undefined);
  });

  test('typing never fetches; saving does, at most once per burst of saves', async () => {
    const before = server.graphRequests;
    let text = CONFIG;
    for (let i = 0; i < 40; i++) {
      text = text.replace('Look up', i % 2 ? 'Look up' : 'Find');
      await client.change(uri, text);
    }
    await roundTrip(client, uri);
    await client.pushed(uri, 41);
    assert.equal(server.graphRequests, before, 'no request per keystroke');
    let saves = 0;
    await waitFor(async () => {
      await client.save(uri);
      saves++;
      await roundTrip(client, uri);
      return server.graphRequests > before;
    }, 'a fetch on save');
    await roundTrip(client, uri);
    assert.equal(server.graphRequests, before + 1, `one fetch for ${saves} saves`);
  });

  test('the server stops: status offline, the last good graph used stale, no crash', async () => {
    await server.stop();
    const statuses = await refresh(client, uri);
    assert.equal(statuses[0].state, 'offline');
    const status = await client.waitStatus(server.url, (s) => s.state === 'offline');
    assert.equal(status.stale, true);
    assert.equal(status.nodeCount, 3);
    assert.match(status.error!, /^graph: offline — node names checked against the graph fetched \d+ s ago \(nothing is listening at http:\/\/127\.0\.0\.1:\d+\)$/);
    const diagnostics = await client.pushed(uri, undefined, (d) => graphCodes(d).includes('node-not-found'));
    assert.ok(graphCodes(diagnostics).includes('node-not-found'), 'node names still checked against the cached graph');
    assert.ok(client.alive);
    // More refreshes while offline send no new status (no flood).
    const count = client.statuses.length;
    await refresh(client, uri);
    await refresh(client);
    assert.equal(client.statuses.length, count);
    // Editors that drop the custom notification: one standard message when it went offline, and a log line per refetch.
    const offline = client.messages.filter((m) => m.message.includes(server.url));
    assert.equal(offline.length, 1, JSON.stringify(client.messages));
    assert.equal(offline[0]!.type, MessageType.Warning);
    assert.match(
      offline[0]!.message,
      /^10xgraph: the graph of http:\/\/127\.0\.0\.1:\d+ is offline — node names checked against the graph fetched \d+ s ago \(nothing is listening/,
    );
    await waitFor(() => client.logs.filter((line) => line.startsWith(`10xgraph: refetched the graph of ${server.url}: offline — `)).length >= 3, 'a log line for each refetch');
  });

  test('the server comes back with another config: connected, diagnostics refreshed', async () => {
    server.graph.nodes[1].tools!.push({ name: 'read_clipboard', description: 'Read text from the clipboard.', source: 'remote' });
    await server.start();
    await refresh(client);
    const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
    assert.equal(status.stale, undefined);
    const diagnostics = await client.pushed(uri, undefined, (d) => !graphCodes(d).includes('tool-not-attached'));
    assert.deepEqual(graphCodes(diagnostics), ['node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool']);
    assert.deepEqual(
      client.statuses.filter((s) => s.url === server.url).map((s) => s.state),
      ['connected', 'offline', 'connected'],
      'one status per change of state',
    );
    const shown = client.messages.filter((m) => m.message.includes(server.url));
    assert.deepEqual(
      shown.map((m) => m.type),
      [MessageType.Warning, MessageType.Info],
    );
    assert.match(shown[1]!.message, /^10xgraph: the graph of http:\/\/127\.0\.0\.1:\d+ is back: connected, 3 nodes\.$/);
  });

  test('a new server start with the server down uses the disk cache, with its age (a client that shows the status gets no pop-up)', async () => {
    await server.stop();
    const second = await TestClient.start({ initializationOptions: { storagePath, statusNotification: true, settings: { server: { url: server.url, refreshSeconds: 0 } } } });
    try {
      const other = fileUri(join(dir, 'again', '10xgraph.json'));
      await second.open(other, CONFIG);
      const status = await second.waitStatus(server.url, (s) => s.state === 'offline');
      assert.equal(status.stale, true);
      assert.equal(status.nodeCount, 3);
      assert.ok(status.fetchedAt! <= Date.now());
      assert.match(status.error!, /graph fetched \d+ (s|min) ago/);
      const diagnostics = await second.pushed(other, 1);
      assert.deepEqual(graphCodes(diagnostics), ['node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool'], 'judged on the cached graph');
      await roundTrip(second, other);
      assert.deepEqual(second.messages, [], 'statusNotification: the client shows the state itself');
      assert.ok(second.logs.some((line) => line.startsWith(`10xgraph: graph of ${server.url}: offline — `)));
    } finally {
      await second.stop();
    }
  });
});

describe('an older Python server, without /v1/graph/tools', () => {
  test('node names are judged on its graph; node kinds and its tools are not known, so nothing is judged of them', async () => {
    const server = await new GraphHttpServer({ nodes: [{ name: 'agent' }, { name: 'TOOL' }], toolsRoute: false }).start();
    const client = await TestClient.start({
      initializationOptions: { storagePath: tempFolder('10xgraph-ls-store-'), settings: { server: { url: server.url, refreshSeconds: 0 } } },
    });
    try {
      const uri = fileUri(join(tempFolder(), '10xgraph.json'));
      await client.open(uri, CONFIG);
      const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
      assert.equal(status.nodeCount, 2);
      assert.equal(status.version, undefined);
      const diagnostics = await client.pushed(uri, 1, (d) => graphCodes(d).length > 0);
      assert.deepEqual(graphCodes(diagnostics), ['node-not-found']);
      assert.equal(diagnostics.find((d) => d.code === 'node-not-found')!.range.start.line, 3);
    } finally {
      await client.stop();
      await server.stop();
    }
  });
});

describe('refreshing on a timer', () => {
  test('refreshSeconds refetches without any edit, and a changed graph refreshes pull clients', async () => {
    const server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    const client = await TestClient.start({ pull: true, initializationOptions: { settings: { server: { url: server.url, refreshSeconds: 5 } } } });
    try {
      const uri = fileUri(join(tempFolder(), '10xgraph.json'));
      await client.open(uri, CONFIG);
      await client.waitStatus(server.url, (s) => s.state === 'connected');
      const first = await client.pull(uri);
      assert.equal(first.kind, 'full');
      const refreshes = client.refreshRequests;
      const fetches = server.graphRequests;
      server.graph.nodes.push({ name: 'NOPE', type: 'tool_node', tools: [] });
      await waitFor(() => server.graphRequests > fetches, 'a timed refetch', 8000);
      await waitFor(() => client.refreshRequests > refreshes, 'workspace/diagnostic/refresh after the graph changed');
      const second = await client.pull(uri, (first as { resultId?: string }).resultId);
      assert.equal(second.kind, 'full');
      assert.ok(!graphCodes((second as { items: Diagnostic[] }).items).includes('node-not-found'));
      assert.deepEqual(client.published, []);
    } finally {
      await client.stop();
      await server.stop();
    }
  });
});

describe('trust, token and version', () => {
  test('nothing is fetched in an untrusted workspace until it is trusted', async () => {
    const server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    const client = await TestClient.start({ initializationOptions: { trusted: false, settings: { server: { url: server.url, refreshSeconds: 0 } } } });
    try {
      const uri = fileUri(join(tempFolder(), '10xgraph.json'));
      await client.open(uri, CONFIG);
      const diagnostics = await client.pushed(uri, 1);
      assert.deepEqual(graphCodes(diagnostics), [], 'graph rules skipped, not guessed');
      const status = await client.waitStatus(server.url, (s) => s.state === 'untrusted');
      assert.match(status.error!, /not trusted/);
      await refresh(client, uri);
      assert.equal(server.requests.length, 0);
      await client.connection.sendNotification(TrustNotification.type, { trusted: true });
      await client.waitStatus(server.url, (s) => s.state === 'connected');
      await client.pushed(uri, 1, (d) => graphCodes(d).length === 4);
    } finally {
      await client.stop();
      await server.stop();
    }
  });

  test('the token goes to the server; a server of another version is flagged', async () => {
    const server = await new GraphHttpServer({ ...structuredClone(QUICKSTART_LIKE_GRAPH), version: '9.9.9' }).start();
    const client = await TestClient.start({ initializationOptions: { settings: { server: { url: server.url, refreshSeconds: 0, token: 's3cret' } } } });
    try {
      await client.open(fileUri(join(tempFolder(), '10xgraph.json')), CONFIG);
      const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
      assert.equal(status.version, '9.9.9');
      assert.equal(status.versionMismatch, true);
      assert.equal(status.rulesetVersion, '0.1.0');
      assert.ok(server.requests.length > 0 && server.requests.every((r) => r.authorization === 'Bearer s3cret'));
    } finally {
      await client.stop();
      await server.stop();
    }
  });
});

describe('hostile graph servers', () => {
  let elsewhere: GraphHttpServer;
  before(async () => {
    elsewhere = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
  });
  after(() => elsewhere.stop());

  const cases: Array<{ name: string; hostility: () => Hostility; error: RegExp; timeoutMs?: number }> = [
    { name: 'slow', hostility: () => ({ kind: 'slow', ms: 3000 }), error: /no answer from http:\/\/127\.0\.0\.1:\d+ within 300 ms/, timeoutMs: 300 },
    { name: '500', hostility: () => ({ kind: 'status', status: 500 }), error: /answered 500/ },
    { name: '401', hostility: () => ({ kind: 'status', status: 401 }), error: /answered 401: the token was refused/ },
    { name: 'malformed', hostility: () => ({ kind: 'malformed' }), error: /did not answer JSON/ },
    { name: 'huge', hostility: () => ({ kind: 'huge', bytes: 40 * 1024 * 1024 }), error: /larger than \d+ bytes/, timeoutMs: 10_000 },
    { name: 'redirect to another port', hostility: () => ({ kind: 'redirect', to: elsewhere.url }), error: /redirects to another origin .*not followed/ },
  ];

  for (const c of cases) {
    test(`${c.name}: the status explains, nothing crashes, typing fetches nothing`, async () => {
      const server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
      server.hostility = c.hostility();
      // A short time-out only where it is what the case is about: an answer that is merely slow to
      // come on a loaded machine must not turn a 500 or a redirect into "no answer".
      const client = await TestClient.start({
        initializationOptions: { settings: { server: { url: server.url, refreshSeconds: 0, timeoutMs: c.timeoutMs ?? 10_000, token: 'tok' } } },
      });
      try {
        const uri = fileUri(join(tempFolder(), '10xgraph.json'));
        await client.open(uri, CONFIG);
        const status = await client.waitStatus(server.url, (s) => s.state === 'offline');
        assert.match(status.error!, /^graph: offline — node names not checked \(/);
        assert.match(status.error!, c.error);
        const diagnostics = await client.pushed(uri, 1);
        assert.deepEqual(graphCodes(diagnostics), [], 'graph rules skipped');
        const requests = server.requests.length;
        for (let i = 0; i < 30; i++) await client.change(uri, CONFIG.replace('Look up', `Look up ${i}`));
        await client.pushed(uri, 31);
        assert.equal(server.requests.length, requests, 'no request per keystroke');
        assert.equal(elsewhere.requests.length, 0, 'no request to another origin, so the token never left');
        assert.ok(client.alive);
      } finally {
        await client.stop();
        await server.stop();
      }
    });
  }
});
