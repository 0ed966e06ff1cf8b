/**
 * A token belongs to one origin (scheme, host and port), wherever it came from: the settings of
 * a folder, the initialisation options, the environment (`TENXGRAPH_TOKEN`) or, in VS Code, the
 * secret storage (forwarded inside the settings). Over stdio with real loopback graph servers:
 * a server of another origin never receives it, in multi-root workspaces and after pushed
 * settings alike.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, parseSettings, sectionWithToken, withEnvironmentToken } from '../../common/settings';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';

const CONFIG = '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "lookup", "description": "Look up a record by id."}]}';
const TOKEN = 'origin-bound-token';

describe('parseSettings binds a token to its origin', () => {
  const base = parseSettings({ server: { url: 'http://127.0.0.1:4000', token: TOKEN } });

  test('a section naming another origin does not inherit the token', () => {
    assert.equal(base.server.token, TOKEN);
    assert.equal(parseSettings({ server: { url: 'http://127.0.0.1:4001' } }, base).server.token, undefined, 'another port');
    assert.equal(parseSettings({ server: { url: 'https://127.0.0.1:4000' } }, base).server.token, undefined, 'another scheme');
    assert.equal(parseSettings({ server: { url: 'http://localhost:4000' } }, base).server.token, undefined, 'another host name for the same address');
    assert.equal(parseSettings({ 'server.url': 'http://127.0.0.2:4000' }, base).server.token, undefined, 'a flat key');
  });

  test('the same origin inherits it; a section with its own token keeps its own', () => {
    assert.equal(parseSettings({ files: ['x.json'] }, base).server.token, TOKEN, 'no URL of its own: the base URL and token');
    assert.equal(parseSettings({ server: { url: 'http://127.0.0.1:4000/graph/' } }, base).server.token, TOKEN, 'another path, same origin');
    assert.equal(parseSettings({ server: { url: 'http://127.0.0.1:4001', token: 'other' } }, base).server.token, 'other');
    const defaultPort = parseSettings({ server: { url: 'http://example.test', token: TOKEN } });
    assert.equal(parseSettings({ server: { url: 'http://EXAMPLE.test:80' } }, defaultPort).server.token, TOKEN, 'origins compare normalised');
  });

  test('the environment token is bound to the initial URL only', () => {
    const initial = withEnvironmentToken(parseSettings({ server: { url: 'http://127.0.0.1:4000' } }), 'from-env');
    assert.equal(initial.server.token, 'from-env');
    assert.equal(parseSettings({ server: { url: 'http://127.0.0.1:4002' } }, initial).server.token, undefined);
    assert.equal(withEnvironmentToken(base, 'from-env').server.token, TOKEN, 'a token of the settings wins');
    assert.equal(withEnvironmentToken(DEFAULT_SETTINGS, '  ').server.token, undefined, 'a blank variable is no token');
  });

  test('sectionWithToken drops tokens of the settings file and pins the URL the token was looked up for', () => {
    assert.deepEqual(sectionWithToken({ server: { url: 'http://a.test', token: 'leaked' }, 'server.token': 'flat' }, 'http://a.test', undefined), {
      server: { url: 'http://a.test' },
    });
    const pinned = sectionWithToken({ server: { url: 'ftp://not-http' }, files: ['f'] }, 'http://localhost:8000', 'stored');
    assert.deepEqual(pinned, { server: { url: 'http://localhost:8000', token: 'stored' }, files: ['f'] });
    // Whatever the server falls back to, the token stays with the URL it was stored for.
    const fallback = parseSettings({ server: { url: 'http://127.0.0.1:4001' } });
    assert.equal(parseSettings(pinned, fallback).server.url, 'http://localhost:8000');
    const flat = sectionWithToken({ 'server.url': 'http://b.test', server: { url: 'http://c.test' } }, 'http://b.test', 'stored');
    assert.deepEqual(parseSettings(flat).server, { ...DEFAULT_SETTINGS.server, url: 'http://b.test', token: 'stored' });
  });
});

describe('over the protocol: no token to another origin', () => {
  let root: string;
  let a: GraphHttpServer;
  let b: GraphHttpServer;
  const clients: TestClient[] = [];

  before(async () => {
    root = tempFolder('10xgraph-ls-token-');
    a = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    b = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
  });
  after(async () => {
    for (const c of clients) await c.stop();
    await a.stop();
    await b.stop();
    rmSync(root, { recursive: true, force: true });
  });

  function folder(name: string): { uri: string; file: string } {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return { uri: fileUri(path), file: fileUri(join(path, '10xgraph.json')) };
  }

  async function start(options: NonNullable<Parameters<typeof TestClient.start>[0]>): Promise<TestClient> {
    const client = await TestClient.start({ ...options, initializationOptions: { storagePath: join(root, 'storage'), ...options.initializationOptions } });
    clients.push(client);
    return client;
  }

  function reset(): void {
    a.requests.length = 0;
    b.requests.length = 0;
  }

  const authorizations = (server: GraphHttpServer) => [...new Set(server.requests.map((r) => r.authorization ?? 'none'))];

  test('initialised with {url: A, token: T}, a folder configured with url B: B never receives T', async () => {
    reset();
    const only = folder('only');
    const client = await start({
      workspaceFolders: [{ uri: only.uri, name: 'only' }],
      initializationOptions: { settings: { server: { url: a.url, token: TOKEN, refreshSeconds: 0 } } },
      configuration: () => ({ server: { url: b.url, refreshSeconds: 0 } }),
    });
    await client.open(only.file, CONFIG);
    await client.waitStatus(b.url, (s) => s.state === 'connected');
    assert.ok(b.requests.length > 0);
    assert.deepEqual(authorizations(b), ['none']);
  });

  test('multi-root: folders of different servers; only the origin of the token receives it', async () => {
    reset();
    const first = folder('first');
    const second = folder('second');
    const client = await start({
      workspaceFolders: [
        { uri: first.uri, name: 'first' },
        { uri: second.uri, name: 'second' },
      ],
      initializationOptions: { settings: { server: { url: a.url, token: TOKEN, refreshSeconds: 0 } } },
      configuration: (item) => ({ server: { url: item.scopeUri?.startsWith(second.uri) ? b.url : `${a.url}/`, refreshSeconds: 0 } }),
    });
    await client.open(first.file, CONFIG);
    await client.open(second.file, CONFIG);
    await client.waitStatus(a.url, (s) => s.state === 'connected');
    await client.waitStatus(b.url, (s) => s.state === 'connected');
    assert.deepEqual(authorizations(a), [`Bearer ${TOKEN}`], 'the same origin inherits the token of the initialisation options');
    assert.deepEqual(authorizations(b), ['none']);
  });

  test('TENXGRAPH_TOKEN goes to the initial server only, never to a folder of another origin', async () => {
    reset();
    const near = folder('near');
    const far = folder('far');
    const client = await start({
      env: { TENXGRAPH_TOKEN: 'env-token' },
      workspaceFolders: [
        { uri: near.uri, name: 'near' },
        { uri: far.uri, name: 'far' },
      ],
      initializationOptions: { settings: { server: { url: a.url, refreshSeconds: 0 } } },
      configuration: (item) => ({ server: { url: item.scopeUri?.startsWith(far.uri) ? b.url : a.url, refreshSeconds: 0 } }),
    });
    await client.open(near.file, CONFIG);
    await client.open(far.file, CONFIG);
    await client.waitStatus(a.url, (s) => s.state === 'connected');
    await client.waitStatus(b.url, (s) => s.state === 'connected');
    assert.deepEqual(authorizations(a), ['Bearer env-token']);
    assert.deepEqual(authorizations(b), ['none']);
  });

  test('a client that answers workspace/configuration: the pushed window section (URL and token of different files) is not used', async () => {
    reset();
    const pulled = folder('pulled');
    let url = b.url;
    const client = await start({
      workspaceFolders: [{ uri: pulled.uri, name: 'pulled' }],
      initializationOptions: { settings: { server: { url: a.url, refreshSeconds: 0 } } },
      configuration: () => ({ server: { url, refreshSeconds: 0 } }),
    });
    await client.open(pulled.file, CONFIG);
    await client.waitStatus(b.url, (s) => s.state === 'connected');
    // VS Code pushes the merged section: here a token of the user settings beside a workspace's URL.
    url = `${b.url}/later`;
    await client.changeConfiguration({ '10xgraph': { server: { url, token: 'user-level', refreshSeconds: 0 } } });
    await client.waitStatus(url, (s) => s.state === 'offline');
    assert.ok(b.requests.some((r) => r.path === '/later/v1/graph'));
    assert.deepEqual(authorizations(b), ['none']);
  });

  test('pushed settings naming another server do not carry the token of the initialisation options', async () => {
    reset();
    const pushed = folder('pushed');
    const client = await start({
      workspaceFolders: [{ uri: pushed.uri, name: 'pushed' }],
      initializationOptions: { settings: { server: { url: a.url, token: TOKEN, refreshSeconds: 0 } } },
    });
    await client.open(pushed.file, CONFIG);
    await client.waitStatus(a.url, (s) => s.state === 'connected');
    await client.changeConfiguration({ '10xgraph': { server: { url: b.url, refreshSeconds: 0 } } });
    await client.waitStatus(b.url, (s) => s.state === 'connected');
    await waitFor(() => b.requests.length >= 2, 'both graph requests at B');
    assert.deepEqual(authorizations(a), [`Bearer ${TOKEN}`]);
    assert.deepEqual(authorizations(b), ['none']);
  });
});
