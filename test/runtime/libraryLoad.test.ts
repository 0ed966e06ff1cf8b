/**
 * What loading costs. Every agent module imports `10xgraph`, and `10xgraph audit` loads the agent
 * module, so the built library (runtime/dist/index.js) must load no package at all, none of what
 * only a running server needs (ws, better-sqlite3, pino, node:http, node:crypto, esbuild); the
 * API server (runtime/dist/api.js, `10xgraph/api`) loads those on first use; and
 * the audit must not load the bundles of `10xgraph api` and `10xgraph types`. Each check runs in a
 * new Node process, which reports the files and built-in modules it loaded.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../support/run';
import { API_DIST, QUICKSTART_CONFIG, RUNTIME_DIST } from './serverHelpers';

interface Loaded {
  files: string[];
  builtins: string[];
  output: unknown;
}

/** Runs `body` (which may await, and sets `output`) in a new Node process, then lists what it loaded. */
function loadedBy(body: string): Loaded {
  const script = `
(async () => {
  let output;
  ${body}
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  process.stdout.write(JSON.stringify({ files: Object.keys(require.cache), builtins, output }));
})().catch((error) => { console.error(error); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TENXGRAPH_CACHE: 'off' } })) as Loaded;
}

const SERVER_ONLY = ['/node_modules/ws/', '/node_modules/better-sqlite3/', '/node_modules/pino/', '/node_modules/esbuild/', '/node_modules/pg/'];

function assertNoneOf(loaded: Loaded, what: string): void {
  for (const part of SERVER_ONLY) {
    assert.deepEqual(
      loaded.files.filter((file) => file.includes(part)),
      [],
      `${what} loads nothing of ${part}`,
    );
  }
  for (const builtin of ['http', 'crypto']) assert.ok(!loaded.builtins.includes(builtin), `${what} does not load node:${builtin}`);
}

describe('loading the library and the CLI', () => {
  test("require('10xgraph') loads the graph library and no other package", () => {
    const loaded = loadedBy(`const lib = require(${JSON.stringify(RUNTIME_DIST)});
  const graph = new lib.StateGraph().addNode('a', () => ({})).setEntryPoint('a').compile();
  output = { nodes: graph.describe().nodes.map((n) => n.name), api: typeof lib.createApiServer, rules: typeof lib.auditConfig };`);
    assert.deepEqual(loaded.output, { nodes: ['a'], api: 'undefined', rules: 'undefined' });
    assertNoneOf(loaded, "require('10xgraph')");
    assert.deepEqual(
      loaded.files.filter((file) => file.includes('/node_modules/')),
      [],
      "require('10xgraph') loads no package",
    );
  });

  test('each built entry exports every name of its source, to require and to ESM import alike; AgentLoadError is a GraphError of 10xgraph', async () => {
    const entries = [
      { bundle: RUNTIME_DIST, source: await import('../../runtime/src/index') },
      { bundle: API_DIST, source: await import('../../runtime/src/api/index') },
    ];
    for (const { bundle, source } of entries) {
      const names = Object.keys(source)
        .filter((name) => name !== 'default' && name !== '__esModule')
        .sort();
      const loaded = loadedBy(`const lib = require(${JSON.stringify(bundle)});
  const esm = await import(${JSON.stringify(pathToFileURL(bundle).href)});
  output = { required: Object.keys(lib).sort(), imported: Object.keys(esm).filter((name) => name !== 'default').sort() };`);
      const output = loaded.output as { required: string[]; imported: string[] };
      assert.ok(names.length > 25, `${bundle}: the source exports its names (${names.length})`);
      assert.deepEqual(output.required, names, bundle);
      assert.deepEqual(output.imported, names, bundle);
    }
    const loaded = loadedBy(`const lib = require(${JSON.stringify(RUNTIME_DIST)});
  const api = require(${JSON.stringify(API_DIST)});
  output = new api.AgentLoadError('agent-invalid', 'x') instanceof lib.GraphError;`);
    assert.equal(loaded.output, true, 'AgentLoadError is a GraphError');
  });

  test('the server loads what it needs on first use: a library server answers over HTTP and the WebSocket', () => {
    const loaded = loadedBy(`const lib = require(${JSON.stringify(RUNTIME_DIST)});
  const { createApiServer } = require(${JSON.stringify(API_DIST)});
  const graph = new lib.StateGraph().addNode('a', () => ({})).setEntryPoint('a').compile();
  const api = createApiServer({ graph, token: '' });
  const url = await api.listen(0);
  const ping = await (await fetch(url + '/ping')).json();
  const { WebSocket } = require('ws');
  const opened = await new Promise((resolve, reject) => { const ws = new WebSocket(url.replace('http', 'ws') + '/v1/graph/ws'); ws.once('open', () => { ws.close(); resolve(true); }); ws.once('error', reject); });
  await api.close();
  output = { ping: ping.data, opened };`);
    assert.deepEqual(loaded.output, { ping: 'pong', opened: true });
    for (const part of ['/node_modules/ws/', '/node_modules/better-sqlite3/'])
      assert.ok(
        loaded.files.some((file) => file.includes(part)),
        `the server loaded ${part}`,
      );
    assert.ok(loaded.builtins.includes('http'), 'the server loaded node:http');
  });

  test('10xgraph audit (graph loaded from the agent module) loads neither the api nor the types bundle', () => {
    const loaded = loadedBy(`const { main } = require(${JSON.stringify(join(ROOT, 'runtime', 'dist', 'cli.js'))});
  const write = process.stdout.write.bind(process.stdout);
  let printed = '';
  process.stdout.write = (chunk) => { printed += chunk; return true; };
  const code = await main(['audit', ${JSON.stringify(QUICKSTART_CONFIG)}]);
  process.stdout.write = write;
  output = { code, printed };`);
    assert.deepEqual(loaded.output, { code: 0, printed: `${relative(ROOT, QUICKSTART_CONFIG)}: no problems; graph loaded from the agent module 'graph:app'\n` });
    for (const bundle of ['cli-api.js', 'cli-types.js']) assert.ok(!loaded.files.some((file) => file.endsWith(join('runtime', 'dist', bundle))), `${bundle} is not loaded`);
    for (const part of ['/node_modules/ws/', '/node_modules/better-sqlite3/', '/node_modules/pino/']) {
      assert.deepEqual(
        loaded.files.filter((file) => file.includes(part)),
        [],
        `the audit loads nothing of ${part}`,
      );
    }
  });
});
