/**
 * Parity: for every fixture of the corpus, the diagnostics the server publishes equal the
 * rule set's problems (`auditConfig`, as `10xgraph audit` runs it) converted with `LineIndex`:
 * code, severity, range, message, related information and fixes. Once without a graph (on
 * opening, then after each of a series of edits typed into the file), and once against a live
 * graph served on loopback (the same graph the test fetches itself).
 */
import { expectedDiagnostics, publishedDiagnostics } from '../support/diagnostics';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { auditConfig, LineIndex, type AuditOptions, type Graph, type Problem } from '../../runtime/src/rules/index';
import { NONE, parseTree } from '../../runtime/src/rules/tree';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { findAgentCandidates } from '../../runtime/src/workspace/agentCandidates';
import { configFilesOf } from '../../runtime/src/workspace/configFiles';
import { TestClient, fileUri, ROOT } from '../support/lspClient';
import { GraphHttpServer } from '../support/graphHttp';
import { CORPUS_GRAPH } from '../support/corpus';

const FIXTURES = join(ROOT, 'test', 'fixtures');

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    // The project fixtures (test/server/project*.test.ts) are workspaces, not rule cases.
    if (statSync(path).isDirectory()) out.push(...(name.startsWith('project') ? [] : listJson(path)));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

const files = listJson(FIXTURES);

function expected(path: string, text: string, options: AuditOptions): unknown[] {
  const candidates = findAgentCandidates(dirname(path));
  // The files beside the config, as `10xgraph audit` tells the rule set of them.
  const files = configFilesOf(path);
  return expectedDiagnostics(fileUri(path), text, auditConfig(text, { ...options, files, ...(candidates.length ? { agentCandidates: candidates } : {}) }));
}

test('the corpus is there', () => {
  assert.ok(files.length >= 10, `expected fixtures under ${FIXTURES}, found ${files.length}`);
});

/**
 * Without a server, the graph is the one read from graph.ts beside the corpus (every addNode
 * there is literal): the rule set's verdict on that graph, each graph rule's message saying so.
 */
const SOURCE_GRAPH: Graph = { origin: 'loaded', toolsKnown: false, nodes: CORPUS_GRAPH.nodes.map(({ name, kind }) => ({ name, kind })) };
const READ_FROM_SOURCE = ' (Judged on the graph read from graph.ts; no server graph is in use.)';

function expectedFromSource(path: string, text: string): unknown[] {
  const sourceGraph = existsSync(join(dirname(path), 'graph.ts')) ? SOURCE_GRAPH : undefined;
  return (expected(path, text, sourceGraph ? { graph: sourceGraph } : {}) as Array<{ code: string; message: string }>).map((d) =>
    sourceGraph && (d.code === 'node-not-found' || d.code === 'node-not-tool-node') ? { ...d, message: d.message + READ_FROM_SOURCE } : d,
  );
}

describe('parity without a server (the graph read from the agent module), on opening and while typing', () => {
  let client: TestClient;
  before(async () => {
    client = await TestClient.start({ initializationOptions: { settings: { files: ['**/*.json'], server: { enabled: false } } } });
  });
  after(() => client.stop());

  for (const path of files) {
    test(relative(FIXTURES, path), async () => {
      const text = readFileSync(path, 'utf8');
      const uri = fileUri(path);
      await client.open(uri, text);
      const diagnostics = await client.pushed(uri, 1);
      assert.deepEqual(publishedDiagnostics(diagnostics), expectedFromSource(path, text));
      for (const d of diagnostics) {
        assert.equal(d.source, '10xgraph');
        assert.equal(d.codeDescription?.href, `https://github.com/10xgraph/10xgraph-tooling/blob/main/docs/rules.md#${d.code}`);
      }
      await typeAndCompare(client, path, uri, text);
      await client.close(uri);
    });
  }
});

/**
 * Where the characters of each string value of `text` lie (between the quotes), when it is strict
 * JSON; not `agent`'s (another agent module is another graph, which the expectations do not follow).
 */
function stringValues(text: string): Array<[number, number]> {
  const parsed = parseTree(text);
  if (!parsed.ok) return [];
  const tree = parsed.tree;
  const out: Array<[number, number]> = [];
  for (let node = 0; node < tree.count; node++) {
    const parent = tree.parent[node]!;
    const isKey = parent !== NONE && tree.type(parent) === 'property' && tree.first[parent] === node;
    const isAgent = parent !== NONE && tree.type(parent) === 'property' && tree.string(tree.first[parent]!) === 'agent';
    if (tree.type(node) === 'string' && !isKey && !isAgent) out.push([tree.start[node]! + 1, tree.end[node]! - 1]);
  }
  return out;
}

/**
 * Types into the open document `uri` (the text of `path`): keystrokes inside string values, where
 * the server reuses the tree of the previous version, then edits it must parse again for. After
 * each one the published diagnostics are the rule set's for the new text.
 */
async function typeAndCompare(client: TestClient, path: string, uri: string, text: string): Promise<void> {
  let seed = text.length;
  const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 1) % Math.max(1, n);
  const edits: Array<(t: string) => { offset: number; remove: number; insert: string } | undefined> = [
    ...['x', 'é', ' ', '📋', '', '', 'ab'].map((insert) => (t: string) => {
      const strings = stringValues(t);
      if (!strings.length) return undefined;
      const [from, to] = strings[next(strings.length)]!;
      const offset = from + next(to - from + 1);
      return { offset, remove: insert === '' && offset < to ? 1 : 0, insert };
    }),
    (t) => {
      const strings = stringValues(t);
      const [from, to] = strings[next(strings.length)] ?? [1, 1];
      return { offset: from, remove: to - from, insert: '' };
    },
    (t) => ({ offset: stringValues(t)[0]?.[0] ?? 1, remove: 0, insert: '"' }),
    (t) => ({ offset: stringValues(t)[0]?.[0] ?? 1, remove: 1, insert: '' }),
    (t) => ({ offset: Math.max(0, t.indexOf('"name"') + 1), remove: 0, insert: 'n' }),
  ];
  for (const make of edits) {
    const edit = make(text);
    if (!edit) continue;
    const lines = new LineIndex(text);
    const range = { start: lines.positionAt(edit.offset), end: lines.positionAt(edit.offset + edit.remove) };
    text = text.slice(0, edit.offset) + edit.insert + text.slice(edit.offset + edit.remove);
    const version = await client.change(uri, [{ range, text: edit.insert }]);
    const diagnostics = await client.pushed(uri, version);
    assert.deepEqual(publishedDiagnostics(diagnostics), expectedFromSource(path, text), `after ${JSON.stringify(edit)}`);
  }
}

describe('parity against a live graph', () => {
  let client: TestClient;
  let server: GraphHttpServer;
  let graph: Graph;
  before(async () => {
    server = await new GraphHttpServer({
      version: '0.1.0',
      nodes: [
        { name: 'agent', type: 'model_node' },
        { name: 'TOOL', type: 'tool_node', tools: [{ name: 'get_time', description: 'Get the current time on the server.', source: 'local' }] },
        { name: 'format_answer', type: 'function_node' },
      ],
      edges: [
        { source: 'agent', target: 'TOOL' },
        { source: 'TOOL', target: 'agent' },
      ],
    }).start();
    const fetched = await fetchLiveGraph(server.url, { timeoutMs: 5000 });
    assert.ok(fetched.ok);
    graph = fetched.graph;
    client = await TestClient.start({ initializationOptions: { settings: { files: ['**/*.json'], server: { url: server.url, refreshSeconds: 0, timeoutMs: 5000 } } } });
  });
  after(async () => {
    await client.stop();
    await server.stop();
  });

  for (const path of files) {
    test(relative(FIXTURES, path), async () => {
      const text = readFileSync(path, 'utf8');
      const uri = fileUri(path);
      await client.open(uri, text);
      const diagnostics = await client.pushed(uri, 1);
      assert.deepEqual(publishedDiagnostics(diagnostics), expected(path, text, { graph }));
      await client.close(uri);
    });
  }
});
