/**
 * The on-disk graph cache over stdio: where it lives (the client's storage path, else the
 * user's cache directory, never a shared temp folder), that it is private (0700 folder, 0600
 * files) and holds no credentials, and that a file it did not write is not believed: planted
 * with loose modes, another owner, a link, malformed, too deep, or for another server.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheFileName, cacheUrlOf, graphCacheFolder } from '../../server/src/graphCache';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';

const CONFIG = '{"agent": "graph:app", "remote_tools": [{"node": "NOPE", "name": "lookup", "description": "Look up a record by id."}]}';
const TOKEN = 'cache-test-token';

describe('where the cache lives', () => {
  test('the storage path, else XDG_CACHE_HOME, else ~/.cache', () => {
    assert.equal(graphCacheFolder('/store/ext'), '/store/ext/graph-cache');
    assert.equal(graphCacheFolder(undefined, { XDG_CACHE_HOME: '/xdg' }), '/xdg/10xgraph');
    assert.match(graphCacheFolder(undefined, {}), /[/\\]\.cache[/\\]10xgraph$/);
    assert.match(graphCacheFolder('relative/store', {}), /[/\\]\.cache[/\\]10xgraph$/, 'a relative storage path is not used');
    assert.match(graphCacheFolder(undefined, { XDG_CACHE_HOME: 'relative' }), /[/\\]\.cache[/\\]10xgraph$/, 'nor a relative XDG_CACHE_HOME');
  });

  test('a cached URL keeps origin and path, never credentials', () => {
    assert.equal(cacheUrlOf('http://user:secret@127.0.0.1:8000/base/?token=abc#frag'), 'http://127.0.0.1:8000/base');
    assert.equal(cacheFileName('http://user:secret@127.0.0.1:8000/base?token=abc'), cacheFileName('http://127.0.0.1:8000/base'));
    assert.notEqual(cacheFileName('http://127.0.0.1:8000/a'), cacheFileName('http://127.0.0.1:8000/b'));
  });
});

describe('over the protocol', () => {
  let root: string;
  let live: GraphHttpServer;
  let downUrl: string;
  const clients: TestClient[] = [];

  before(async () => {
    root = tempFolder('10xgraph-ls-cache-test-');
    live = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    const down = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    downUrl = down.url;
    await down.stop();
  });
  after(async () => {
    for (const c of clients) await c.stop();
    await live.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function start(options: NonNullable<Parameters<typeof TestClient.start>[0]>): Promise<TestClient> {
    const client = await TestClient.start(options);
    clients.push(client);
    return client;
  }

  function document(name: string): string {
    const dir = join(root, 'docs', name);
    mkdirSync(dir, { recursive: true });
    return fileUri(join(dir, '10xgraph.json'));
  }

  /** Waits until `folder` holds a cached graph and answers its path. */
  async function cachedFile(folder: string): Promise<string> {
    const name = await waitFor(() => existsSync(folder) && readdirSync(folder).find((n) => /^graph-[0-9a-f]{32}\.json$/.test(n)), `a cached graph in ${folder}`);
    return join(folder, name);
  }

  test('in the storage path: a 0700 folder, a 0600 file, no token and no credentials of the URL', async () => {
    const storagePath = join(root, 'storage');
    const port = new URL(live.url).port;
    const url = `http://someone:p4ssw0rd@127.0.0.1:${port}/?token=in-the-query`;
    const client = await start({ initializationOptions: { storagePath, settings: { server: { url, token: TOKEN, refreshSeconds: 0 } } } });
    await client.open(document('storage'), CONFIG);
    await client.waitStatus(`http://127.0.0.1:${port}`, (s) => s.state === 'connected');
    const folder = join(storagePath, 'graph-cache');
    const file = await cachedFile(folder);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    for (const secret of [TOKEN, 'p4ssw0rd', 'someone', 'in-the-query']) assert.ok(!text.includes(secret), `${secret} is not on disk`);
    assert.equal(JSON.parse(text).url, `http://127.0.0.1:${port}`);
    assert.equal(readdirSync(folder).length, 1, 'no temporary file left');
    assert.ok(!client.logs.some((l) => l.includes('p4ssw0rd') || l.includes(TOKEN)), 'nor in the log');
    assert.ok(!client.statuses.some((s) => JSON.stringify(s).includes('p4ssw0rd') || JSON.stringify(s).includes('in-the-query')), 'nor in a status');
  });

  for (const variable of ['XDG_CACHE_HOME', 'HOME'] as const) {
    test(`without a storage path: the user's cache directory (${variable})`, async () => {
      const home = join(root, `home-${variable}`);
      mkdirSync(home, { recursive: true });
      const env = variable === 'HOME' ? { HOME: home, XDG_CACHE_HOME: '' } : { XDG_CACHE_HOME: home };
      const client = await start({ env, initializationOptions: { storagePath: null, settings: { server: { url: live.url, refreshSeconds: 0 } } } });
      await client.open(document(`env-${variable}`), CONFIG);
      await client.waitStatus(live.url, (s) => s.state === 'connected');
      const folder = variable === 'HOME' ? join(home, '.cache', '10xgraph') : join(home, '10xgraph');
      const file = await cachedFile(folder);
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      assert.equal(statSync(file).mode & 0o777, 0o600);
    });
  }

  /** A cached file as this cache writes it, for `url`. */
  function cachedText(url: string): string {
    return JSON.stringify({
      format: 2,
      url: cacheUrlOf(url),
      fetchedAt: Date.now() - 60_000,
      graph: {
        origin: 'live',
        toolsKnown: true,
        nodes: [
          { name: 'agent', kind: 'model_node' },
          { name: 'PLANTED', kind: 'tool_node', tools: [] },
        ],
        edges: [],
      },
    });
  }

  /** Starts a server whose graph server is down, with `plant` run on its cache folder first; answers the status and the log. */
  async function startOffline(name: string, plant: (folder: string, file: string) => void) {
    const storagePath = join(root, name);
    const folder = join(storagePath, 'graph-cache');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    plant(folder, join(folder, cacheFileName(downUrl)));
    const client = await start({ initializationOptions: { storagePath, settings: { server: { url: downUrl, refreshSeconds: 0 } } } });
    await client.open(document(name), CONFIG);
    const status = await client.waitStatus(downUrl, (s) => s.state === 'offline');
    return { status, client, folder };
  }

  test('a well-formed file of this user, private, for this URL is used (stale, with its age)', async () => {
    const { status } = await startOffline('good', (_, file) => writeFileSync(file, cachedText(downUrl), { mode: 0o600 }));
    assert.equal(status.stale, true);
    assert.equal(status.nodeCount, 2);
    assert.match(status.error!, /graph fetched 1 min ago/);
  });

  const planted: Array<{ name: string; plant: (folder: string, file: string) => void; why: RegExp }> = [
    { name: 'world-readable', plant: (_, file) => writeFileSync(file, cachedText(downUrl), { mode: 0o644 }), why: /other users may read or write it/ },
    { name: 'group-writable', plant: (_, file) => (writeFileSync(file, cachedText(downUrl)), chmodSync(file, 0o620)), why: /other users may read or write it/ },
    { name: 'another server', plant: (_, file) => writeFileSync(file, cachedText('http://127.0.0.1:1'), { mode: 0o600 }), why: /the graph of another server/ },
    { name: 'malformed', plant: (_, file) => writeFileSync(file, '{"format": 2, "url": ', { mode: 0o600 }), why: /not JSON/ },
    {
      name: 'a node of no known kind',
      plant: (_, file) => writeFileSync(file, cachedText(downUrl).replace('"model_node"', '"evil"'), { mode: 0o600 }),
      why: /not a cached graph of this release/,
    },
    { name: 'too deep', plant: (_, file) => writeFileSync(file, `${'['.repeat(5000)}${']'.repeat(5000)}`, { mode: 0o600 }), why: /nests deeper than/ },
    {
      name: 'a link',
      plant: (folder, file) => {
        writeFileSync(join(folder, 'elsewhere.json'), cachedText(downUrl), { mode: 0o600 });
        symlinkSync(join(folder, 'elsewhere.json'), file);
      },
      why: /cannot be opened/,
    },
    ...(process.getuid?.() === 0
      ? [
          {
            name: 'another owner',
            plant: (_: string, file: string) => (writeFileSync(file, cachedText(downUrl), { mode: 0o600 }), chownSync(file, 65534, 65534)),
            why: /belongs to another user/,
          },
        ]
      : []),
  ];

  for (const c of planted) {
    test(`a planted file (${c.name}) is not believed, and the log says why`, async () => {
      const { status, client } = await startOffline(c.name.replace(/\W+/g, '-'), c.plant);
      assert.equal(status.stale, undefined);
      assert.equal(status.nodeCount, undefined);
      assert.match(status.error!, /^graph: offline — node names not checked/);
      await waitFor(() => client.logs.find((l) => /the cached graph .* is ignored/.test(l)), 'the log line');
      assert.match(
        client.logs.find((l) => /is ignored/.test(l))!,
        c.why,
      );
    });
  }

  test('a folder of ours others may enter is made private; one of another user is not used', async () => {
    const { folder, status } = await startOffline('loose-folder', (dir, file) => {
      chmodSync(dir, 0o777);
      writeFileSync(file, cachedText(downUrl), { mode: 0o600 });
    });
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(status.stale, true, 'the file itself is ours and private');
    if (process.getuid?.() === 0) {
      const { client, status: refused } = await startOffline('foreign-folder', (dir, file) => {
        writeFileSync(file, cachedText(downUrl), { mode: 0o600 });
        chownSync(dir, 65534, 65534);
      });
      assert.equal(refused.stale, undefined);
      await waitFor(() => client.logs.find((l) => /graph cache is off: .* belongs to another user/.test(l)), 'the log line');
    }
  });
});
