/**
 * `10xgraph/graphView` over stdio: what the extension's graph view draws comes from the state the
 * diagnostics were computed from — per document, so each folder of a multi-root workspace shows
 * its own server's graph — and asking never fetches the graph again.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { GraphViewRequest, type GraphViewResult } from '../../common/protocol';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';

const CONFIG = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOL", "name": "get_user_location", "description": "Get the user's current location." },
    { "node": "TOOL", "name": "read_clipboard", "description": "Read text from the user's clipboard." },
    { "node": "NOPE", "name": "lookup", "description": "Look up a record in the local database." }
  ]
}
`;

/** The tools the diagnostics say are not attached (by name), to compare with the view's verdicts. */
function flaggedNames(diagnostics: Diagnostic[], text: string): string[] {
  const lines = text.split('\n');
  const graphCodes = new Set(['tool-not-attached', 'node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool']);
  return diagnostics
    .filter((d) => graphCodes.has(String(d.code)))
    .map((d) => /"name": "([^"]+)"/.exec(lines[d.range.start.line])![1])
    .sort();
}

async function ask(client: TestClient, uri?: unknown): Promise<GraphViewResult> {
  const answer = await client.connection.sendRequest(GraphViewRequest.type, uri === undefined ? {} : ({ uri } as { uri: string }));
  assert.ok(answer, 'the server answers');
  return answer;
}

describe('the graph view asks the language server', () => {
  const one = tempFolder();
  const two = tempFolder();
  const three = tempFolder();
  const inOne = fileUri(join(one, '10xgraph.json'));
  const inTwo = fileUri(join(two, '10xgraph.json'));
  const inThree = fileUri(join(three, '10xgraph.json'));
  let first: GraphHttpServer;
  let second: GraphHttpServer;
  let client: TestClient;

  before(async () => {
    first = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    // The second folder's server has read_clipboard attached too, and no function node.
    second = await new GraphHttpServer({
      version: '0.1.0',
      nodes: [
        { name: 'agent', type: 'model_node' },
        {
          name: 'TOOL',
          type: 'tool_node',
          tools: [
            { name: 'get_user_location', source: 'remote' },
            { name: 'read_clipboard', source: 'remote' },
          ],
        },
      ],
      edges: [{ source: 'agent', target: 'TOOL' }],
    }).start();
    const perFolder: Record<string, unknown> = {
      [fileUri(one)]: { server: { url: first.url, refreshSeconds: 0 } },
      [fileUri(two)]: { server: { url: second.url, refreshSeconds: 0 } },
      [fileUri(three)]: { server: { url: second.url, enabled: false } },
    };
    const sectionFor = (scope?: string) => Object.entries(perFolder).find(([folder]) => scope === folder || scope?.startsWith(`${folder}/`))?.[1] ?? null;
    client = await TestClient.start({
      configuration: (item) => sectionFor(item.scopeUri),
      workspaceFolders: [
        { uri: fileUri(one), name: 'one' },
        { uri: fileUri(two), name: 'two' },
        { uri: fileUri(three), name: 'three' },
      ],
    });
  });
  after(async () => {
    await client.stop();
    await first.stop();
    await second.stop();
    for (const dir of [one, two, three]) rmSync(dir, { recursive: true, force: true });
  });

  test('multi-root: each document gets the graph of its own folder, with the verdicts of its diagnostics', async () => {
    await client.open(inOne, CONFIG);
    await client.open(inTwo, CONFIG);
    const diagnosticsOne = await client.pushed(inOne, 1, (d) => d.some((x) => x.code === 'tool-not-attached'));
    const diagnosticsTwo = await client.pushed(inTwo, 1, (d) => d.some((x) => x.code === 'node-not-found'));

    const viewOne = await ask(client, inOne);
    assert.equal(viewOne.status.url, first.url);
    assert.equal(viewOne.status.state, 'connected');
    assert.deepEqual(
      viewOne.graph?.nodes.map((n) => n.name),
      ['agent', 'TOOL', 'format_answer'],
    );
    assert.deepEqual(viewOne.tools, [
      { node: 'TOOL', name: 'get_user_location', attached: true },
      { node: 'TOOL', name: 'read_clipboard', attached: false },
      { node: 'NOPE', name: 'lookup', attached: false },
    ]);
    assert.deepEqual(
      viewOne
        .tools!.filter((t) => !t.attached)
        .map((t) => t.name)
        .sort(),
      flaggedNames(diagnosticsOne, CONFIG),
    );

    const viewTwo = await ask(client, inTwo);
    assert.equal(viewTwo.status.url, second.url);
    assert.deepEqual(
      viewTwo.graph?.nodes.map((n) => n.name),
      ['agent', 'TOOL'],
    );
    assert.deepEqual(
      viewTwo.tools!.filter((t) => !t.attached).map((t) => t.name),
      ['lookup'],
    );
    assert.deepEqual(
      viewTwo
        .tools!.filter((t) => !t.attached)
        .map((t) => t.name)
        .sort(),
      flaggedNames(diagnosticsTwo, CONFIG),
    );
  });

  test('an edit is drawn from the new text without fetching the graph again', async () => {
    const fetches = first.graphRequests;
    const edited = CONFIG.replace('"name": "read_clipboard"', '"name": "get_time"');
    await client.change(inOne, edited);
    const view = await ask(client, inOne);
    assert.deepEqual(
      view.tools?.map((t) => [t.name, t.attached]),
      [
        ['get_user_location', true],
        ['get_time', false],
        ['lookup', false],
      ],
    );
    // get_time is a server tool of TOOL: the rule set reports the clash, the view shows it unattached.
    const diagnostics = await client.pushed(inOne, 2);
    assert.ok(diagnostics.some((d) => d.code === 'name-conflicts-with-server-tool'));
    assert.equal(first.graphRequests, fetches, 'the view is answered from the cached graph');
  });

  test('a folder without an open file, a disabled folder, and no uri at all', async () => {
    const folderView = await ask(client, fileUri(two));
    assert.equal(folderView.status.url, second.url);
    assert.deepEqual(
      folderView.graph?.nodes.map((n) => n.name),
      ['agent', 'TOOL'],
    );
    assert.equal(folderView.tools, undefined);

    await client.open(inThree, CONFIG);
    await client.pushed(inThree, 1);
    const disabled = await ask(client, inThree);
    assert.equal(disabled.status.state, 'disabled');
    assert.equal(disabled.graph, undefined);
    assert.deepEqual(
      disabled.tools?.map((t) => t.attached),
      [undefined, undefined, undefined],
      'no verdict without a graph',
    );

    // No uri (or not a string): the first folder's graph.
    for (const uri of [undefined, 42]) {
      const view = await ask(client, uri);
      assert.equal(view.status.url, first.url);
      assert.equal(view.tools, undefined);
    }
    assert.ok(client.alive);
  });

  test('the server goes away: the view shows it offline with the last good graph, as the diagnostics use it', async () => {
    await second.stop();
    await client.connection.sendRequest('workspace/executeCommand', { command: '10xgraph.refreshGraph', arguments: [inTwo] });
    const view = await ask(client, inTwo);
    assert.equal(view.status.state, 'offline');
    assert.equal(view.status.stale, true);
    assert.match(view.status.error ?? '', /^graph: offline — node names checked against the graph fetched/);
    assert.deepEqual(
      view.graph?.nodes.map((n) => n.name),
      ['agent', 'TOOL'],
    );
    assert.equal(view.graph?.stale, true);
  });
});
