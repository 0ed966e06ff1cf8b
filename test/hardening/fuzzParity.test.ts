/**
 * Parity as a property: for random configs (valid and broken), the rule set (`auditConfig`), the
 * language server's diagnostics (one long-lived server over stdio, checking against a live graph
 * served on loopback) and `10xgraph api`'s start-up (`prepareAgent` in-process, the real CLI for
 * a handful of cases) agree, all judged with the corpus graph:
 * - the server publishes exactly the rule set's problems (code, severity, range, message,
 *   related information, fixes), and its errors are the errors judged on the loaded graph;
 * - start-up refuses exactly when there is an error, and its lines are the formatted errors;
 *   when it starts, its problems and warning lines are the rule set's.
 */
import { expectedDiagnostics, publishedDiagnostics } from '../support/diagnostics';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Diagnostic, TextDocumentContentChangeEvent } from 'vscode-languageserver-protocol/node';
import { ApiStartupError, prepareAgent } from '../../runtime/src/api/start';
import { formatProblemLine } from '../../runtime/src/rules/problemText';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { auditConfig, LineIndex, type AuditOptions, type Graph, type Problem } from '../../runtime/src/rules/index';
import { findAgentCandidates } from '../../runtime/src/workspace/agentCandidates';
import { CORPUS_GRAPH } from '../support/corpus';
import { GraphHttpServer } from '../support/graphHttp';
import { TestClient, fileUri } from '../support/lspClient';
import { configTextArb, editArb, layoutArb, mutatedTextArb, seedTextArb, serialize, validConfigArb } from './support/arbitraries';
import { createAgentFolder, LOADABLE_AGENTS, ROOT, type AgentFolder } from './support/agentFolder';
import { checkProperty } from './support/fuzz';
import { strictParse } from './support/invariants';

const CONFIG = '10xgraph.json';

/** Random configs for parity: mostly configs changed in random positions, some broken text, some valid. */
const parityTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: configTextArb },
  { weight: 2, arbitrary: mutatedTextArb },
  { weight: 2, arbitrary: fc.tuple(validConfigArb, layoutArb).map(([m, l]) => serialize(m, l)) },
);

function rangeOf(lines: LineIndex, offset: number, length: number) {
  return { start: lines.positionAt(offset), end: lines.positionAt(offset + length) };
}

/** What the server must publish for `text` at `uri`: the rule set's problems as diagnostics. */
function expected(uri: string, text: string, options: AuditOptions): unknown[] {
  return expectedDiagnostics(uri, text, auditConfig(text, options));
}

/** The text a file holds once `text` is written as UTF-8 (a lone surrogate becomes U+FFFD). */
function asOnDisk(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** The `agent` a strict parser keeps, when the root is an object. */
function agentOf(text: string): unknown {
  const parsed = strictParse(text);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) return undefined;
  return (parsed.value as { agent?: unknown }).agent;
}

const errorLines = (text: string, problems: Problem[]) => {
  const lines = new LineIndex(text);
  return problems.filter((p) => p.severity === 'error').map((p) => formatProblemLine(CONFIG, lines, p));
};

/** Start-up in-process: the problems it started with, or the refusal it threw. */
async function startUp(
  folder: string,
): Promise<{ started: true; problems: Problem[]; warningLines: string[]; attached: Map<string, number> } | { started: false; exitCode: 1 | 2; lines: string[] }> {
  try {
    const prepared = await prepareAgent(join(folder, CONFIG), CONFIG);
    return { started: true, problems: prepared.problems, warningLines: prepared.warningLines, attached: prepared.attached };
  } catch (error) {
    if (error instanceof ApiStartupError) return { started: false, exitCode: error.exitCode, lines: error.lines };
    throw error;
  }
}

/** Asserts start-up's outcome for `text` against the rule set judged with the corpus graph. */
function assertStartUpParity(text: string, outcome: Awaited<ReturnType<typeof startUp>>): void {
  const judged = auditConfig(text, { graph: CORPUS_GRAPH });
  const expectedErrors = errorLines(text, judged);
  const agent = agentOf(text);
  if (typeof agent === 'string' && LOADABLE_AGENTS.has(agent)) {
    if (expectedErrors.length === 0) {
      assert.ok(outcome.started, `start-up refused a config without errors: ${outcome.started ? '' : outcome.lines.join(' | ')}`);
      assert.deepStrictEqual(outcome.problems, judged, 'start-up judged the config differently from the rule set');
      const lines = new LineIndex(text);
      assert.deepStrictEqual(
        outcome.warningLines,
        judged.filter((p) => p.severity === 'warning').map((p) => formatProblemLine(CONFIG, lines, p)),
      );
      const counts = new Map<string, number>();
      for (const tool of (strictParse(text) as { value: { remote_tools?: Array<{ node: string }> } }).value.remote_tools ?? [])
        counts.set(tool.node, (counts.get(tool.node) ?? 0) + 1);
      assert.deepStrictEqual(outcome.attached, counts, 'start-up attached other tools than the config lists');
    } else {
      assert.ok(!outcome.started, `start-up started despite errors: ${expectedErrors.join(' | ')}`);
      assert.equal(outcome.exitCode, 1);
      assert.deepStrictEqual(outcome.lines, expectedErrors);
    }
    return;
  }
  // The agent cannot be loaded: start-up refuses on the errors it can judge without the graph, or
  // says in one line that it cannot run.
  assert.ok(!outcome.started, `start-up started with agent ${JSON.stringify(agent)}`);
  const withoutGraph = errorLines(text, auditConfig(text));
  if (withoutGraph.length) {
    assert.equal(outcome.exitCode, 1);
    assert.deepStrictEqual(outcome.lines, withoutGraph);
  } else {
    assert.equal(outcome.exitCode, 2, `exit ${outcome.exitCode}: ${outcome.lines.join(' | ')}`);
    assert.equal(outcome.lines.length, 1);
  }
}

describe('parity of the rule set, the language server and api start-up', () => {
  let folder: AgentFolder;
  let graphServer: GraphHttpServer;
  let liveGraph: Graph;
  let client: TestClient;
  let candidates: string[];

  before(async () => {
    folder = createAgentFolder();
    candidates = findAgentCandidates(folder.dir);
    graphServer = await new GraphHttpServer({
      version: '0.1.0',
      nodes: CORPUS_GRAPH.nodes.map((n) => ({
        name: n.name,
        type: n.kind === 'unknown' ? undefined : n.kind,
        ...(n.tools ? { tools: n.tools.map((t) => ({ name: t.name, description: t.description, source: t.source })) } : {}),
      })),
      edges: CORPUS_GRAPH.edges,
    }).start();
    const fetched = await fetchLiveGraph(graphServer.url, { timeoutMs: 5000 });
    assert.ok(fetched.ok, 'the loopback graph server answers');
    liveGraph = fetched.graph;
    client = await TestClient.start({ initializationOptions: { settings: { files: ['**/*.json'], server: { url: graphServer.url, refreshSeconds: 0, timeoutMs: 5000 } } } });
    // Warm up: the first document makes the server fetch the graph; wait until it has it.
    const warm = fileUri(join(folder.dir, 'warm-up.json'));
    await client.open(warm, '{}');
    await client.waitStatus(graphServer.url, (s) => s.state === 'connected', 'the live graph');
    await client.close(warm);
  });

  after(async () => {
    await client?.stop();
    await graphServer?.stop();
    folder?.remove();
  });

  test('the language server, the rule set and in-process start-up agree on random configs', async () => {
    let caseNumber = 0;
    const changed = fileUri(join(folder.dir, 'edited.json'));
    let changedOpen = false;
    await checkProperty(
      'parity',
      fc.asyncProperty(parityTextArb, async (text) => {
        caseNumber++;
        const options: AuditOptions = { graph: liveGraph, ...(candidates.length ? { agentCandidates: candidates } : {}) };
        // Every other case opens a new document; the others change one long-lived document.
        let uri: string;
        let version: number;
        if (caseNumber % 2 === 0) {
          uri = fileUri(join(folder.dir, `case-${caseNumber}.json`));
          await client.open(uri, text);
          version = 1;
        } else {
          uri = changed;
          if (!changedOpen) {
            await client.open(uri, text);
            changedOpen = true;
            version = 1;
          } else {
            version = await client.change(uri, text);
          }
        }
        const diagnostics = await client.pushed(uri, version);
        if (uri !== changed) await client.close(uri);
        assert.deepStrictEqual(publishedDiagnostics(diagnostics), expected(uri, text, options), 'the language server publishes other problems than the rule set');

        // The errors judged on the live graph are those judged on the loaded graph.
        const lines = new LineIndex(text);
        const liveErrors = diagnostics.filter((d) => d.severity === 1).map((d) => [d.code, d.range, d.message]);
        const loadedErrors = auditConfig(text, { graph: CORPUS_GRAPH })
          .filter((p) => p.severity === 'error')
          .map((p) => [p.code, rangeOf(lines, p.offset, p.length), p.message]);
        assert.deepStrictEqual(liveErrors, loadedErrors, 'the editor and start-up see different errors');

        writeFileSync(join(folder.dir, CONFIG), text);
        assertStartUpParity(asOnDisk(text), await startUp(folder.dir));
      }),
      800,
    );
  });

  test('incremental edits: the document and the diagnostics of the server follow the text', async () => {
    let caseNumber = 0;
    await checkProperty(
      'incremental edits',
      fc.asyncProperty(seedTextArb, fc.array(fc.tuple(editArb, fc.boolean()), { minLength: 1, maxLength: 10 }), async (start, edits) => {
        const uri = fileUri(join(folder.dir, `incremental-${++caseNumber}.json`));
        await client.open(uri, start);
        let text = start;
        let pending: TextDocumentContentChangeEvent[] = [];
        let version = 1;
        for (const [edit, flush] of edits) {
          // Offsets between the \r and \n of one line break have no LSP position of their own.
          const lines = new LineIndex(text);
          const at = edit.at % (text.length + 1);
          const offset = at > 0 && text.charCodeAt(at - 1) === 13 && text.charCodeAt(at) === 10 ? at - 1 : at;
          let end = Math.min(text.length, offset + edit.length);
          if (end > 0 && text.charCodeAt(end - 1) === 13 && text.charCodeAt(end) === 10) end++;
          pending.push({ range: { start: lines.positionAt(offset), end: lines.positionAt(end) }, text: edit.text });
          text = text.slice(0, offset) + edit.text + text.slice(end);
          if (flush) {
            version = await client.change(uri, pending);
            pending = [];
          }
        }
        if (pending.length) version = await client.change(uri, pending);
        const diagnostics = await client.pushed(uri, version);
        await client.close(uri);
        const options: AuditOptions = { graph: liveGraph, ...(candidates.length ? { agentCandidates: candidates } : {}) };
        assert.deepStrictEqual(publishedDiagnostics(diagnostics), expected(uri, text, options), 'after incremental edits the server judges another text');
      }),
      400,
    );
  });

  test('the real CLI: api refuses or starts, and audit prints the rule set problems', async () => {
    await checkProperty(
      'cli parity',
      fc.asyncProperty(
        fc.oneof(
          configTextArb,
          fc.tuple(validConfigArb, layoutArb).map(([m, l]) => serialize(m, l)),
        ),
        async (written) => {
          writeFileSync(join(folder.dir, CONFIG), written);
          const text = asOnDisk(written);
          const judged = auditConfig(text, { graph: CORPUS_GRAPH });
          const expectedErrors = errorLines(text, judged);
          const agent = agentOf(text);
          const loadable = typeof agent === 'string' && LOADABLE_AGENTS.has(agent);

          const audit = await runCli(folder.dir, ['audit', CONFIG, '--format', 'json'], () => false);
          if (loadable) {
            const lines = new LineIndex(text);
            assert.equal(audit.code, expectedErrors.length ? 1 : 0, audit.stderr);
            const report = JSON.parse(audit.stdout) as { graph: string; problems: unknown[] };
            assert.equal(report.graph, 'loaded');
            assert.deepStrictEqual(
              report.problems,
              judged.map((p) => ({ code: p.code, severity: p.severity, message: p.message, range: rangeOf(lines, p.offset, p.length) })),
            );
          }

          const api = await runCli(folder.dir, ['api', '--config', CONFIG, '--port', '0', '--db', ':memory:'], (out) => /Listening on http:\/\/127\.0\.0\.1:\d+/.test(out));
          if (loadable && expectedErrors.length === 0) {
            assert.equal(api.listened, true, `api did not start: ${api.stderr}`);
            // A clean stop on that SIGTERM is the last test's concern; here only the start counts.
            assert.ok(api.code === 0 || api.signal === 'SIGTERM', `api exited ${api.code}: ${api.stderr}`);
            const toolCount = (strictParse(text) as { value: { remote_tools?: unknown[] } }).value.remote_tools?.length ?? 0;
            assert.match(api.stdout, new RegExp(`Attached ${toolCount} configured remote tools`));
          } else if (loadable) {
            assert.equal(api.listened, false);
            assert.equal(api.code, 1, api.stderr);
            assert.deepStrictEqual(api.stderr.trimEnd().split('\n'), [...expectedErrors, '10xgraph api: not started: fix the errors above and start again.']);
          } else {
            assert.equal(api.listened, false);
            assert.ok(api.code === 1 || api.code === 2, `api exited ${api.code}`);
          }
        },
      ),
      6,
      { costly: true },
    );
  });

  test('found by fuzzing: api stops cleanly on a SIGTERM sent as soon as it says it listens', async () => {
    // A supervisor stops a server once it is ready. `Listening on` is printed before the
    // SIGINT/SIGTERM handlers are installed, so an early SIGTERM killed the process outright
    // (no "Stopping", no database close) about half the time.
    writeFileSync(join(folder.dir, CONFIG), '{"agent": "graph:app"}');
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const api = await runCli(folder.dir, ['api', '--config', CONFIG, '--port', '0', '--db', ':memory:'], (out) => /Listening on http:\/\/127\.0\.0\.1:\d+/.test(out));
      assert.equal(api.listened, true, api.stderr);
      outcomes.push(api.code === 0 && /Stopping \(SIGTERM\)/.test(api.stdout) ? 'clean' : `exit ${api.code} (${api.signal ?? 'no signal'})`);
    }
    assert.deepEqual(outcomes, Array(8).fill('clean'));
  });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  signal: NodeJS.Signals | null;
  listened: boolean;
}

/**
 * Runs `node runtime/dist/cli.js ...args` in `cwd`. When `ready(stdout)` turns true (the server listens),
 * it is sent SIGTERM; it is killed if it has not exited within 30 s.
 */
function runCli(cwd: string, args: string[], ready: (stdout: string) => boolean): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'runtime', 'dist', 'cli.js'), ...args], {
      cwd,
      env: { ...process.env, TENXGRAPH_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let listened = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (!listened && ready(stdout)) {
        listened = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, signal, listened });
    });
  });
}
