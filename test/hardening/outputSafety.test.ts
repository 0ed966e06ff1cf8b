/**
 * What a hostile repository or graph server can make the tools print, in every format: no line of
 * `audit` (text, JSON, SARIF) or of `10xgraph api`'s JSON log is a GitHub Actions workflow command
 * (`::error …::` at the start of a line, `##[error]` anywhere) or a terminal sequence; SARIF URIs
 * are percent-encoded; a graph server's reason phrase and a glob from the settings reach the
 * editor's notifications and log escaped, without a link, and bounded.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ExecuteCommandRequest } from 'vscode-languageserver-protocol/node';
import { createLogger } from '../../runtime/src/api/log';
import { fetchLiveGraph } from '../../runtime/src/live/fetchGraph';
import { escapeControl, jsonForLog } from '../../runtime/src/text/escapeControl';
import { plainMessage } from '../../server/src/lsp/logger';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';
import { runCli } from '../support/run';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-output-safety-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A line GitHub Actions' runner would run as a workflow command. */
function isWorkflowCommand(line: string): boolean {
  return /^\s*::/.test(line) || line.includes('##[');
}
/** What a terminal acts on: C0 (but the line feed), DEL, C1, line separators, bidi controls. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const BROKEN = '{"agent": 3, "remote_tools": [{"node": "TOOL", "name": "x-##[error]forged", "description": "Get the time on the machine.\u009b"}]}';

describe('escapeControl and jsonForLog', () => {
  test('a leading "::" and every "##[" are escaped, and escaping twice changes nothing', () => {
    assert.equal(escapeControl('::error file=x::forged'), '\\x3a:error file=x::forged');
    assert.equal(escapeControl('  ::warning::x'), '  \\x3a:warning::x');
    assert.equal(escapeControl('a ##[error]b ##[group]c'), 'a ##\\x5berror]b ##\\x5bgroup]c');
    assert.equal(escapeControl('a::b'), 'a::b', 'a "::" inside a line is no command');
    const once = escapeControl(' ::x ##[e]\u009b');
    assert.equal(escapeControl(once), once);
  });

  test('JSON: the same value once parsed, nothing a terminal or runner reads left raw', () => {
    const value = { message: 'x\u009b[31m ##[error]y \u202e\u2028\u007f', nested: ['::error::z'] };
    const text = jsonForLog(value);
    assert.deepEqual(JSON.parse(text), value);
    assert.doesNotMatch(text, RAW);
    assert.ok(!text.split('\n').some(isWorkflowCommand), text);
  });

  test("10xgraph api's JSON log records: escaped the same way, and the same record once parsed", () => {
    let out = '';
    let err = '';
    const logger = createLogger({ format: 'json', out: { write: (s: string) => void (out += s) }, err: { write: (s: string) => void (err += s) } });
    logger.info('thread ##[error]forged \u009b[2J', { thread: '::error::x' });
    logger.warn('bidi \u202e');
    for (const text of [out, err]) {
      assert.doesNotMatch(text, RAW);
      assert.ok(!text.split('\n').some(isWorkflowCommand), text);
    }
    assert.equal(JSON.parse(out.trim()).msg, 'thread ##[error]forged \u009b[2J');
    assert.equal(JSON.parse(err.trim()).msg, 'bidi \u202e');
  });
});

describe('audit --project on folders named as workflow commands', () => {
  const root = join(temp, 'ci');
  const folders = ['::error file=x::forged', ' ::warning::y', 'a ##[error]b'];
  for (const folder of folders) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, '10xgraph.json'), BROKEN);
  }

  test('text: every problem is reported, no line is a command, the names show escaped', async () => {
    const result = await runCli(['audit', '--project', '.', '--no-graph'], { cwd: root });
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.ok(!lines.some(isWorkflowCommand), result.stdout);
    assert.doesNotMatch(result.stdout, RAW);
    assert.equal(lines.filter((l) => l.includes('[agent-invalid]')).length, 3, result.stdout);
    assert.ok(
      lines.some((l) => l.startsWith('\\x3a:error file=x::forged/10xgraph.json:1:11: error [agent-invalid]')),
      result.stdout,
    );
    assert.ok(
      lines.some((l) => l.startsWith(' \\x3a:warning::y/10xgraph.json:1:11: error')),
      result.stdout,
    );
    assert.ok(
      lines.some((l) => l.startsWith('a ##\\x5berror]b/10xgraph.json:1:11: error')),
      result.stdout,
    );
  });

  test('JSON and SARIF: no line is a command, and the parsed report holds the exact names', async () => {
    for (const format of ['json', 'sarif']) {
      const result = await runCli(['audit', '--project', '.', '--no-graph', '--format', format], { cwd: root });
      assert.equal(result.code, 1, result.stderr);
      assert.ok(!result.stdout.split('\n').some(isWorkflowCommand), `${format}: ${result.stdout}`);
      assert.doesNotMatch(result.stdout, RAW);
      const parsed = JSON.parse(result.stdout);
      if (format === 'json') {
        assert.deepEqual(parsed.files.map((f: { file: string }) => f.file).sort(), folders.map((f) => `${f}/10xgraph.json`).sort());
        assert.ok(parsed.files.every((f: { problems: Array<{ message: string }> }) => f.problems.some((p) => p.message.includes('##[error]forged'))));
      } else {
        const results = parsed.runs[0].results as Array<{ message: { text: string } }>;
        assert.equal(results.filter((r) => r.message.text.includes('##[error]forged')).length, 3, 'the exact names');
      }
    }
  });

  test('one file audit: the same in every format', async () => {
    const file = join(root, folders[0], '10xgraph.json');
    const text = await runCli(['audit', file, '--no-graph'], { cwd: join(root, folders[0]) });
    assert.equal(text.code, 1);
    assert.ok(!text.stdout.split('\n').some(isWorkflowCommand), text.stdout);
    const json = await runCli(['audit', '10xgraph.json', '--no-graph', '--format', 'json'], { cwd: join(root, folders[0]) });
    assert.ok(!json.stdout.split('\n').some(isWorkflowCommand) && !RAW.test(json.stdout), json.stdout);
  });
});

describe('SARIF artifact URIs', () => {
  test('#, ?, %, spaces, line breaks and colons are percent-encoded; the URI resolves back to the file', async () => {
    const root = join(temp, 'uris');
    const names = ['a#b', 'c?d', 'e%2fx', 'sp ace', 'new\nline', 'colon:x'];
    for (const name of names) {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, '10xgraph.json'), '{"agent": 3}');
    }
    const result = await runCli(['audit', '--project', '.', '--no-graph', '--format', 'sarif'], { cwd: root });
    assert.equal(result.code, 1, result.stderr);
    const run = JSON.parse(result.stdout).runs[0];
    const uris = (run.artifacts as Array<{ location: { uri: string } }>).map((a) => a.location.uri);
    assert.equal(uris.length, names.length);
    for (const uri of uris) {
      assert.match(uri, /^[A-Za-z0-9\-._~!$&'()*+,;=@/%]+$/, `only URI characters: ${JSON.stringify(uri)}`);
      const url = new URL(uri, pathToFileURL(`${root}/`));
      assert.equal(url.hash, '');
      assert.equal(url.search, '');
      const path = fileURLToPath(url);
      assert.ok(
        names.some((name) => path === join(root, name, '10xgraph.json')),
        `${uri} resolves to ${JSON.stringify(path)}`,
      );
    }
    for (const r of run.results) assert.ok(uris.includes(r.locations[0].physicalLocation.artifactLocation.uri));
    // Outside the working folder: a file: URL, encoded the same way.
    const outside = await runCli(['audit', join(root, 'a#b', '10xgraph.json'), '--no-graph', '--format', 'sarif'], { cwd: join(root, 'sp ace') });
    const uri = JSON.parse(outside.stdout).runs[0].artifacts[0].location.uri as string;
    assert.match(uri, /^file:\/\/\/.*\/a%23b\/10xgraph\.json$/);
    assert.equal(fileURLToPath(uri), join(root, 'a#b', '10xgraph.json'));
  });
});

describe("a graph server's reason phrase and a glob in the editor", () => {
  const hostile = `Oops\u009b[2J [click](command:workbench.action.terminal.new) ${'x'.repeat(15_000)}`;

  test('the fetch leaves out a reason phrase that is not plain words, and keeps one that is', async () => {
    const server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    try {
      server.hostility = { kind: 'reason', status: 500, reason: hostile };
      const bad = await fetchLiveGraph(server.url, { timeoutMs: 5000 });
      assert.equal(bad.ok, false);
      assert.equal(!bad.ok && bad.error, '/v1/graph answered 500');
      server.hostility = { kind: 'reason', status: 503, reason: 'Service Unavailable' };
      const plain = await fetchLiveGraph(server.url, { timeoutMs: 5000 });
      assert.equal(!plain.ok && plain.error, '/v1/graph answered 503 Service Unavailable');
    } finally {
      await server.stop();
    }
  });

  test('plainMessage: escaped, no link, bounded', () => {
    const shown = plainMessage(`10xgraph: ${hostile}`);
    assert.doesNotMatch(shown, RAW);
    assert.ok(!shown.includes(']('), shown.slice(0, 80));
    assert.ok(shown.includes('[click]\\(command:'), 'the text is still there, as text');
    assert.equal(shown.length, 1001);
  });

  test('over stdio: the offline notification and the log lines carry no control, no link, and are bounded', async () => {
    const server = await new GraphHttpServer(structuredClone(QUICKSTART_LIKE_GRAPH)).start();
    server.hostility = { kind: 'reason', status: 500, reason: hostile };
    const glob = '[z-a]\u009b\u202e](command:x)';
    const client = await TestClient.start({
      initializationOptions: { storagePath: tempFolder('10xgraph-ls-store-'), settings: { files: ['**/10xgraph.json', glob], server: { url: server.url, refreshSeconds: 0 } } },
    });
    try {
      const uri = fileUri(join(tempFolder(), '10xgraph.json'));
      await client.open(uri, '{"agent": "graph:app", "remote_tools": []}');
      await client.pushed(uri, 1);
      await client.connection.sendRequest(ExecuteCommandRequest.type, { command: '10xgraph.refreshGraph', arguments: [uri] });
      const offline = await waitFor(() => client.messages.find((m) => m.message.includes(server.url)), 'the offline notification');
      assert.match(offline.message, /is offline/);
      const globMessage = await waitFor(() => client.messages.find((m) => m.message.startsWith('10xgraph.files')), 'the invalid glob notification');
      assert.ok(globMessage.message.includes('\\x9b\\u202e]\\(command:x)'), globMessage.message);
      for (const text of [...client.messages.map((m) => m.message), ...client.logs]) {
        assert.doesNotMatch(text, RAW, text.slice(0, 200));
        assert.ok(!/\]\((command|https?|file):/.test(text), text.slice(0, 200));
        assert.ok(text.length <= 1001, `${text.length} characters`);
      }
    } finally {
      await client.stop();
      await server.stop();
    }
  });
});
