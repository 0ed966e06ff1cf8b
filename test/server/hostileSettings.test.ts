/**
 * Settings and URIs are text from the workspace: nothing that reads them may backtrack. A URL
 * or folder with a long run of slashes is read at once (it took seconds, quadratically, with a
 * trailing-slash regular expression), and a URL's credentials (user name, password, query) are
 * never shown in a status or a hover. The hang guards are the tests' own time-outs.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HoverRequest, type Hover } from 'vscode-languageserver-protocol/node';
import { parseSettings } from '../../common/settings';
import { matchPathsOf } from '../../server/src/paths';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

describe('long runs of slashes', () => {
  test('a server URL and a folder URI with 200,000 slashes inside are read at once', { timeout: 10_000 }, () => {
    const url = `http://127.0.0.1:8000/${'/'.repeat(200_000)}x///`;
    assert.equal(parseSettings({ server: { url } }).server.url, url.slice(0, -3));
    const folder = `file:///w${'/'.repeat(200_000)}x`;
    assert.deepEqual(matchPathsOf('file:///elsewhere/10xgraph.json', [folder]), ['/elsewhere/10xgraph.json']);
  });
});

describe('credentials in the server URL', () => {
  let root: string;
  let server: GraphHttpServer;
  let client: TestClient;

  before(async () => {
    root = tempFolder('10xgraph-ls-url-');
    mkdirSync(join(root, 'p'));
    server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
  });
  after(async () => {
    await client?.stop();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('statuses and hovers show the origin and path only', async () => {
    const url = `http://me:hunter2@127.0.0.1:${server.port}/?key=sekrit`;
    client = await TestClient.start({ initializationOptions: { storagePath: join(root, 'storage'), settings: { server: { url, refreshSeconds: 0 } } } });
    const uri = fileUri(join(root, 'p', '10xgraph.json'));
    const text = '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "lookup", "description": "Look up a record by id."}]}';
    await client.open(uri, text);
    const status = await client.waitStatus(server.url, (s) => s.state === 'connected');
    assert.equal(status.url, server.url);
    const hover: Hover | null = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: text.indexOf('TOOL') + 1 } });
    const shown = JSON.stringify(hover);
    assert.match(shown, new RegExp(`the live graph of the server at http://127\\.0\\.0\\.1:${server.port}`));
    for (const secret of ['hunter2', 'sekrit', 'me:']) {
      assert.ok(!shown.includes(secret), `${secret} not in the hover`);
      assert.ok(!JSON.stringify(client.statuses).includes(secret), `${secret} not in a status`);
      assert.ok(!client.logs.some((l) => l.includes(secret)), `${secret} not in the log`);
    }
  });
});
