/**
 * The real module shapes (test/fixtures/real-shapes) through every front end: the Python reader,
 * `10xgraph audit` (text and json), `10xgraph audit --project` and the language server over stdio.
 * Each shape is a project of its own (`graph/agent.py` and a `10xgraph.json` naming it), with one
 * remote tool on each node its graph has and one on a node it has not. All four must see the same
 * graph (the same `node-not-found` and `node-not-tool-node` problems) or give the same reason.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LineIndex } from '../../runtime/src/rules';
import { pythonGraphOf, readPythonModule } from '../../runtime/src/workspace/pythonGraph';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { realShapes, type RealShape } from '../support/realShapes';
import { runCli } from '../support/run';

const MISSING = 'NO_SUCH_NODE';

/** What a front end made of one shape: the graph problems on the probe tools (`code node`), or the reason no graph was read. */
type Verdict = { problems: string[] } | { reason: string };

/** The config of a shape's project: a tool on each of its nodes, and one on a node it does not have. */
function configOf(shape: RealShape): string {
  const nodes = [...(shape.nodes ?? []).map(([name]) => name), MISSING];
  return JSON.stringify(
    {
      agent: `graph.agent:${shape.exportName}`,
      remote_tools: nodes.map((node, i) => ({ node, name: `probe_${i}`, description: 'A probe tool for the test.' })),
    },
    null,
    2,
  );
}

/** The verdict the reader's answer calls for. */
function expected(shape: RealShape): Verdict {
  const read = pythonGraphOf(readPythonModule(shape.source), shape.exportName);
  if (!read.ok) return { reason: read.reason };
  const problems = read.graph.nodes.filter((n) => n.kind === 'model_node' || n.kind === 'function_node').map((n) => `node-not-tool-node ${n.name}`);
  return { problems: [...problems, `node-not-found ${MISSING}`].sort() };
}

/** The graph problems of a list, as `code node` (the node's value read from the config at the problem's range). */
function graphProblems(text: string, problems: Array<{ code: string; start: number; end: number }>): string[] {
  return problems
    .filter((p) => p.code === 'node-not-found' || p.code === 'node-not-tool-node')
    .map((p) => `${p.code} ${JSON.parse(text.slice(p.start, p.end)) as string}`)
    .sort();
}

/** The reason a `graph-not-read` message gives (`graph/agent.py not read (REASON), so …`). */
function reasonOf(message: string): string {
  const m = /^graph\/agent\.py not read \((.*)\), so node names are not checked without a running server\.$/s.exec(message);
  assert.ok(m, message);
  return m[1];
}

type LspRange = { start: { line: number; character: number }; end: { line: number; character: number } };

function fromRanges(text: string, problems: Array<{ code: string; range: LspRange; message: string }>): Verdict {
  const unread = problems.find((p) => p.code === 'graph-not-read');
  if (unread) return { reason: reasonOf(unread.message) };
  const lines = new LineIndex(text);
  return {
    problems: graphProblems(
      text,
      problems.map((p) => ({ code: p.code, start: lines.offsetAt(p.range.start), end: lines.offsetAt(p.range.end) })),
    ),
  };
}

describe('real module shapes: the reader, audit (text and json), audit --project and the language server agree', () => {
  const shapes = realShapes();
  const ws = tempFolder('10xgraph-real-shapes-');
  const configs = new Map<string, { dir: string; text: string }>();
  let client: TestClient;

  before(async () => {
    for (const shape of shapes) {
      const dir = join(ws, shape.file.replace(/\.py$/, ''));
      mkdirSync(join(dir, 'graph'), { recursive: true });
      writeFileSync(join(dir, 'graph', '__init__.py'), '');
      writeFileSync(join(dir, 'graph', 'agent.py'), shape.source);
      const text = configOf(shape);
      writeFileSync(join(dir, '10xgraph.json'), text);
      configs.set(shape.file, { dir, text });
    }
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'shapes' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('10xgraph audit, text and json', async () => {
    // Four at a time: each audit is a process of its own.
    const queue = [...shapes];
    const run = async () => {
      for (let shape = queue.shift(); shape; shape = queue.shift()) {
        const { dir, text } = configs.get(shape.file)!;
        const want = expected(shape);
        const [plain, json] = await Promise.all([runCli(['audit'], { cwd: dir }), runCli(['audit', '--format', 'json'], { cwd: dir })]);
        const report = JSON.parse(json.stdout) as { graph: string; note: string; problems: Array<{ code: string; message: string; range: LspRange }> };
        if ('reason' in want) {
          // Without a graph the graph rules are skipped; the summary and the note say why.
          assert.equal(report.graph, 'skipped', shape.file);
          assert.equal(report.note, `(graph/agent.py not read: ${want.reason}): node names not checked`, shape.file);
          assert.ok(plain.stdout.endsWith(`; graph skipped (graph/agent.py not read: ${want.reason}): node names not checked\n`), `${shape.file}: ${plain.stdout}`);
          assert.deepEqual(fromRanges(text, report.problems), { problems: [] }, shape.file);
          assert.equal(plain.code, 0, shape.file);
        } else {
          assert.equal(report.graph, 'read', shape.file);
          assert.equal(report.note, `from graph/agent.py (${shape.nodes!.length} node${shape.nodes!.length === 1 ? '' : 's'})`, shape.file);
          assert.deepEqual(fromRanges(text, report.problems), want, shape.file);
          // The text lines name the same problems at the same places.
          const lines = new LineIndex(text);
          const fromText = [...plain.stdout.matchAll(/^10xgraph\.json:(\d+):(\d+): error \[(node-not-found|node-not-tool-node)\] /gm)].map(([, line, column, code]) => {
            const start = lines.offsetAt({ line: Number(line) - 1, character: Number(column) - 1 });
            return `${code} ${JSON.parse(text.slice(start, text.indexOf('"', start + 1) + 1)) as string}`;
          });
          assert.deepEqual(fromText.sort(), want.problems, shape.file);
          assert.equal(plain.code, 1, shape.file);
        }
      }
    };
    await Promise.all([run(), run(), run(), run()]);
  });

  test('10xgraph audit --project', async () => {
    const result = await runCli(['audit', '--project', ws, '--format', 'json']);
    const report = JSON.parse(result.stdout) as { files: Array<{ file: string; problems: Array<{ code: string; message: string; range: LspRange }> }> };
    for (const shape of shapes) {
      const { dir, text } = configs.get(shape.file)!;
      const file = report.files.find((f) => f.file.endsWith(`${dir.slice(ws.length)}/10xgraph.json`));
      assert.ok(file, shape.file);
      assert.deepEqual(fromRanges(text, file.problems), expected(shape), shape.file);
      // Nothing else: no false error on a real shape.
      assert.deepEqual(
        file.problems.filter((p) => !['node-not-found', 'node-not-tool-node', 'graph-not-read'].includes(p.code)).map((p) => p.code),
        [],
        shape.file,
      );
    }
  });

  test('the language server over stdio', async () => {
    for (const shape of shapes) {
      const { dir, text } = configs.get(shape.file)!;
      const uri = fileUri(join(dir, '10xgraph.json'));
      await client.open(uri, text);
      const want = expected(shape);
      // The first push may come before the graph is read from graph/agent.py: wait for the verdict.
      const settled = (d: Diagnostic[]) => ('reason' in want ? d.some((x) => x.code === 'graph-not-read') : d.some((x) => x.code === 'node-not-found'));
      const diagnostics = await client.pushed(uri, undefined, settled);
      assert.deepEqual(
        fromRanges(
          text,
          diagnostics.map((d) => ({ code: String(d.code), range: d.range, message: d.message })),
        ),
        want,
        shape.file,
      );
      assert.deepEqual(
        diagnostics.filter((d) => !['node-not-found', 'node-not-tool-node', 'graph-not-read'].includes(String(d.code))).map((d) => d.code),
        [],
        shape.file,
      );
      await client.close(uri);
    }
  });
});
