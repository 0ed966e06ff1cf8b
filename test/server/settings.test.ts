/**
 * Settings: the parser of each raw setting, the `10xgraph.files` globs, and over stdio the
 * flow per scope URI (multi-root), the cache, `didChangeConfiguration`, and the
 * `initializationOptions` fallback for clients that do not answer `workspace/configuration`.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, parseSettings, sectionFromInitializationOptions, trustedFromInitializationOptions } from '../../common/settings';
import { matchAny, matchGlob } from '../../runtime/src/workspace/glob';
import { matchPathsOf } from '../../server/src/paths';
import { DidChangeWorkspaceFoldersNotification } from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';

const BROKEN = '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "a", "description": "Read the clipboard text.", "desc": 1}]}';
const CLOSED_PORT_URL = 'http://127.0.0.1:9';

describe('parseSettings', () => {
  test('nothing gives the defaults of docs/spec.md §5', () => {
    assert.deepEqual(parseSettings(undefined), { ...DEFAULT_SETTINGS, server: { ...DEFAULT_SETTINGS.server, token: undefined } });
    assert.equal(parseSettings(null).server.url, 'http://localhost:8000');
    assert.equal(parseSettings({}).server.timeoutMs, 2000);
    assert.equal(parseSettings({}).server.refreshSeconds, 30);
    assert.deepEqual(parseSettings({}).files, ['**/10xgraph.json', '**/agentflow.json']);
  });

  test('each field falls back on its own when its value is wrong', () => {
    const s = parseSettings({ server: { url: 'ftp://x', enabled: 'nope', timeoutMs: -5, refreshSeconds: 'soon' }, files: [3, ''] });
    assert.equal(s.server.url, 'http://localhost:8000');
    assert.equal(s.server.enabled, true);
    assert.equal(s.server.timeoutMs, 50, 'clamped to the smallest time-out');
    assert.equal(s.server.refreshSeconds, 30);
    assert.deepEqual(s.files, ['**/10xgraph.json', '**/agentflow.json']);
  });

  test('good values are kept; dotted keys and numeric strings are understood', () => {
    const s = parseSettings({ 'server.url': 'http://127.0.0.1:9000/', 'server.enabled': false, server: { timeoutMs: '750' }, files: 'configs/*.json' });
    assert.equal(s.server.url, 'http://127.0.0.1:9000');
    assert.equal(s.server.enabled, false);
    assert.equal(s.server.timeoutMs, 750);
    assert.deepEqual(s.files, ['configs/*.json']);
    assert.equal(parseSettings({ server: { refreshSeconds: 0 } }).server.refreshSeconds, 0, '0 turns the timer off');
    assert.equal(parseSettings({ server: { refreshSeconds: 1 } }).server.refreshSeconds, 5, 'no timer faster than 5 s');
  });

  test('a partial section falls back to a base (the initialization options)', () => {
    const base = parseSettings({ server: { url: 'http://127.0.0.1:1234' } });
    assert.equal(parseSettings({ files: ['x.json'] }, base).server.url, 'http://127.0.0.1:1234');
  });

  test('initializationOptions: settings, a 10xgraph key, and trust', () => {
    assert.deepEqual(sectionFromInitializationOptions({ settings: { files: ['a'] } }), { files: ['a'] });
    assert.deepEqual(sectionFromInitializationOptions({ '10xgraph': { files: ['b'] } }), { files: ['b'] });
    assert.deepEqual(sectionFromInitializationOptions({ settings: { '10xgraph': { files: ['c'] } } }), { files: ['c'] });
    assert.equal(sectionFromInitializationOptions('nonsense'), undefined);
    assert.equal(trustedFromInitializationOptions(undefined), true);
    assert.equal(trustedFromInitializationOptions({ trusted: false }), false);
    assert.equal(trustedFromInitializationOptions({ trusted: 'no' }), true);
  });
});

describe('globs', () => {
  test('** * ? [] {} and base-name patterns', () => {
    assert.ok(matchGlob('**/10xgraph.json', '10xgraph.json'));
    assert.ok(matchGlob('**/10xgraph.json', 'a/b/10xgraph.json'));
    assert.ok(matchGlob('**/10xgraph.json', '/home/me/p/10xgraph.json'));
    assert.ok(!matchGlob('**/10xgraph.json', 'a/my10xgraph.json'));
    assert.ok(matchGlob('configs/*.json', 'configs/a.json'));
    assert.ok(!matchGlob('configs/*.json', 'configs/x/a.json'));
    assert.ok(matchGlob('*.graph.json', 'deep/down/x.graph.json'), 'no slash: matched against the base name');
    assert.ok(matchGlob('cfg?.json', 'cfg1.json'));
    assert.ok(matchGlob('{a,b}/10xgraph.json', 'b/10xgraph.json'));
    assert.ok(!matchGlob('{a,b}/10xgraph.json', 'c/10xgraph.json'));
    assert.ok(matchGlob('[ab]x.json', 'bx.json'));
    assert.ok(matchGlob('a/**/z.json', 'a/z.json'));
    assert.ok(matchGlob('a/**/z.json', 'a/b/c/z.json'));
    assert.ok(matchGlob('./x/10xgraph.json', 'x/10xgraph.json'));
    assert.ok(!matchGlob('x.json', 'x.jsonc'));
    assert.ok(matchGlob('a+b(1).json', 'a+b(1).json'), 'regex characters are literal');
  });

  test('documents are matched relative to each folder and absolutely', () => {
    const paths = matchPathsOf('file:///w/one/configs/a%20b.json', ['file:///w/one', 'file:///w/two']);
    assert.deepEqual(paths, ['/w/one/configs/a b.json', 'configs/a b.json']);
    assert.ok(matchAny(['configs/*.json'], paths));
    assert.ok(matchAny(['/w/one/**/*.json'], paths));
    assert.deepEqual(matchPathsOf('untitled:Untitled-1', []), ['Untitled-1']);
  });
});

describe('settings over the protocol', () => {
  const root = tempFolder();
  const one = join(root, 'one');
  const two = join(root, 'two');
  const clients: TestClient[] = [];
  after(() => Promise.all(clients.map((c) => c.stop())));

  test("multi-root: each folder's settings apply to its files, asked per scope and cached", async () => {
    const perFolder: Record<string, unknown> = {
      [fileUri(one)]: { files: ['**/10xgraph.json'], server: { url: CLOSED_PORT_URL, timeoutMs: 500 } },
      [fileUri(two)]: { files: ['**/*.graph.json'], server: { url: 'http://127.0.0.1:10', enabled: false } },
    };
    const sectionFor = (scope?: string) => Object.entries(perFolder).find(([folder]) => scope?.startsWith(folder + '/') || scope === folder)?.[1] ?? null;
    const client = await TestClient.start({
      configuration: (item) => sectionFor(item.scopeUri),
      workspaceFolders: [
        { uri: fileUri(one), name: 'one' },
        { uri: fileUri(two), name: 'two' },
      ],
    });
    clients.push(client);
    const inOne = fileUri(join(one, '10xgraph.json'));
    const inTwoIgnored = fileUri(join(two, '10xgraph.json'));
    const inTwo = fileUri(join(two, 'main.graph.json'));
    await client.open(inOne, BROKEN);
    await client.open(inTwoIgnored, BROKEN);
    await client.open(inTwo, BROKEN);
    assert.deepEqual(
      (await client.pushed(inOne, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    assert.deepEqual(
      (await client.pushed(inTwo, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    assert.equal(client.latest(inTwoIgnored), undefined);
    // Each folder's URL has its own status: folder one is live (and offline), folder two disabled.
    const offline = await client.waitStatus(CLOSED_PORT_URL, (s) => s.state === 'offline');
    assert.match(offline.error ?? '', /graph: offline — node names not checked/);
    await client.waitStatus('http://127.0.0.1:10', (s) => s.state === 'disabled');
    // The settings of a document are asked once, not per edit.
    const asked = client.configurationRequests.filter((i) => i.scopeUri === inOne).length;
    for (let i = 0; i < 5; i++) await client.change(inOne, BROKEN + ' '.repeat(i));
    await client.pushed(inOne, 6);
    assert.equal(client.configurationRequests.filter((i) => i.scopeUri === inOne).length, asked);
    assert.ok(client.configurationRequests.every((i) => i.section === '10xgraph'));

    // A change of settings: folder two now serves every JSON file.
    perFolder[fileUri(two)] = { files: ['**/*.json'], server: { enabled: false } };
    await client.changeConfiguration(null);
    assert.deepEqual(
      (await client.pushed(inTwoIgnored, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    assert.ok(client.configurationRequests.filter((i) => i.scopeUri === inOne).length > asked, 'the cache was cleared');

    // And back: a document no longer served has its diagnostics cleared.
    perFolder[fileUri(two)] = { files: ['nothing'], server: { enabled: false } };
    await client.changeConfiguration(null);
    await waitFor(() => client.latest(inTwo)?.diagnostics.length === 0 && client.latest(inTwoIgnored)?.diagnostics.length === 0, 'cleared diagnostics');
  });

  test('a client without workspace/configuration uses initializationOptions, then pushed settings', async () => {
    const client = await TestClient.start({ initializationOptions: { settings: { files: ['*.tenx'], server: { enabled: false } } } });
    clients.push(client);
    const custom = fileUri(join(root, 'agent.tenx'));
    const standard = fileUri(join(root, '10xgraph.json'));
    await client.open(standard, BROKEN);
    await client.open(custom, BROKEN, 'plaintext');
    assert.deepEqual(
      (await client.pushed(custom, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    assert.equal(client.latest(standard), undefined);
    assert.equal(client.configurationRequests.length, 0, 'the server did not ask');
    await client.changeConfiguration({ '10xgraph': { files: ['**/10xgraph.json'], server: { enabled: false } } });
    assert.deepEqual(
      (await client.pushed(standard, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    await waitFor(() => client.latest(custom)?.diagnostics.length === 0, 'the .tenx file is no longer served');
  });

  test('a workspace folder added later: its files are matched relative to it', async () => {
    const client = await TestClient.start({ pull: true, initializationOptions: { settings: { files: ['configs/*.json'], server: { enabled: false } } } });
    clients.push(client);
    const uri = fileUri(join(two, 'configs', 'main.json'));
    await client.open(uri, BROKEN);
    assert.deepEqual(((await client.pull(uri)) as { items: unknown[] }).items, [], 'no folder: configs/*.json matches nothing absolute');
    const refreshes = client.refreshRequests;
    await client.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, { event: { added: [{ uri: fileUri(two), name: 'two' }], removed: [] } });
    await waitFor(() => client.refreshRequests > refreshes, 'a diagnostic refresh after the folders changed');
    const report = (await client.pull(uri)) as { items: Array<{ code?: unknown }> };
    assert.deepEqual(
      report.items.map((d) => d.code),
      ['unknown-field'],
    );
  });

  test('a client that answers null falls back to the initialization options (Helix style)', async () => {
    const client = await TestClient.start({ configuration: () => null, initializationOptions: { '10xgraph': { files: ['*.cfg.json'], server: { enabled: false } } } });
    clients.push(client);
    const uri = fileUri(join(root, 'x.cfg.json'));
    await client.open(uri, BROKEN);
    assert.deepEqual(
      (await client.pushed(uri, 1)).map((d) => d.code),
      ['unknown-field'],
    );
    await client.waitStatus('http://localhost:8000', (s) => s.state === 'disabled');
  });
});
