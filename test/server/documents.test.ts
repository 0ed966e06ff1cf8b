/**
 * The document lifecycle over stdio against the bundled server: open, change, close, in push
 * and pull mode; which documents are served; outdated versions; a file too large to check;
 * requests that would crash a careless server.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CodeActionRequest, DocumentDiagnosticReportKind, type FullDocumentDiagnosticReport, HoverRequest, DocumentSymbolRequest } from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';

const VALID = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOL", "name": "get_user_location", "description": "Get the user's current location from the browser." }
  ]
}
`;
// "summary" is an unknown field (a likely, not a sure, alias of "description"), so "description" is missing too.
const BROKEN = VALID.replace('"description"', '"summary"');
const OFFLINE = { settings: { server: { enabled: false } } };

function codes(diagnostics: Array<{ code?: string | number }>): Array<string | number | undefined> {
  return diagnostics.map((d) => d.code);
}

describe('push mode', () => {
  let client: TestClient;
  const dir = tempFolder();
  before(async () => {
    client = await TestClient.start({ initializationOptions: OFFLINE, workspaceFolders: [{ uri: fileUri(dir), name: 'w' }] });
  });
  after(() => client.stop());

  test('the server declares no pull provider to a client without pull support', () => {
    assert.equal(client.initializeResult.capabilities.diagnosticProvider, undefined);
  });

  test('open, change, close: diagnostics follow each version, then are cleared', async () => {
    const uri = fileUri(join(dir, '10xgraph.json'));
    await client.open(uri, BROKEN);
    const first = await client.pushed(uri, 1);
    assert.deepEqual(codes(first), ['missing-field', 'unknown-field']);
    for (const d of first) {
      assert.equal(d.source, '10xgraph');
      assert.match(String(d.codeDescription?.href), /docs\/rules\.md#(unknown-field|missing-field)$/);
    }
    // An incremental edit: rename the key back.
    const at = BROKEN.indexOf('"summary"');
    const lines = BROKEN.slice(0, at).split('\n');
    const start = { line: lines.length - 1, character: lines[lines.length - 1].length };
    const v2 = await client.change(uri, [{ range: { start, end: { line: start.line, character: start.character + 9 } }, text: '"description"' }]);
    assert.deepEqual(await client.pushed(uri, v2), []);
    await client.close(uri);
    await waitFor(() => {
      const last = client.latest(uri);
      return last && last.version === undefined && last.diagnostics.length === 0;
    }, 'cleared diagnostics after close');
  });

  test('a burst of edits ends with the diagnostics of the last version, and versions never go back', async () => {
    const uri = fileUri(join(dir, 'burst', '10xgraph.json'));
    await client.open(uri, VALID);
    await client.pushed(uri, 1);
    let version = 1;
    for (let i = 0; i < 30; i++) version = await client.change(uri, i % 2 === 0 ? BROKEN : VALID.replace('app', `app${i}`));
    await client.change(uri, BROKEN);
    version++;
    const last = await client.pushed(uri, version);
    assert.deepEqual(codes(last), ['missing-field', 'unknown-field']);
    const seen = client.published.filter((p) => p.uri === uri && p.version !== undefined).map((p) => p.version!);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'published versions are in order',
    );
    assert.ok(seen.length < 33, `outdated versions were coalesced (${seen.length} publications for 32 versions)`);
  });

  test('documents are chosen by path, whatever their language id', async () => {
    const ignored = fileUri(join(dir, 'package.json'));
    const served = fileUri(join(dir, 'sub', '10xgraph.json'));
    await client.open(ignored, BROKEN, 'json');
    await client.open(served, BROKEN, 'plaintext');
    assert.deepEqual(codes(await client.pushed(served, 1)), ['missing-field', 'unknown-field']);
    // A request answered after both opens proves the server has handled them.
    await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: ignored } });
    await client.pushed(served, 1);
    assert.equal(client.latest(ignored), undefined, 'package.json got no diagnostics');
    const hover = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: ignored }, position: { line: 1, character: 4 } });
    assert.equal(hover, null);
  });

  test('a file over the size bound gets one clear diagnostic instead of being parsed', async () => {
    const uri = fileUri(join(dir, 'huge', '10xgraph.json'));
    const filler = `{"agent": "graph:app", "padding": "${'x'.repeat(6 * 1024 * 1024)}"`; // also not valid JSON
    await client.open(uri, filler);
    const diagnostics = await client.pushed(uri, 1);
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0].code, 'file-too-large');
    assert.match(diagnostics[0].message, /6\.0 MB.*10xgraph audit/);
    assert.deepEqual(diagnostics[0].range, { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } });
    await client.close(uri);
  });

  test('malformed requests are answered, not crashed on', async () => {
    const uri = fileUri(join(dir, 'bad', '10xgraph.json'));
    await client.open(uri, VALID);
    await client.pushed(uri, 1);
    const actions = await client.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'x', source: '10xgraph', data: { fixes: 'not a list' } }] },
    });
    assert.deepEqual(actions, []);
    const far = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 9999, character: 9999 } });
    assert.equal(far, null);
    const unknown = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: 'file:///nowhere/10xgraph.json' }, position: { line: 0, character: 0 } });
    assert.equal(unknown, null);
    assert.ok(client.alive);
  });
});

describe('pull mode', () => {
  let client: TestClient;
  const dir = tempFolder();
  before(async () => {
    client = await TestClient.start({ pull: true, initializationOptions: OFFLINE });
  });
  after(() => client.stop());

  test('the server declares a pull provider and pushes nothing', async () => {
    assert.deepEqual(client.initializeResult.capabilities.diagnosticProvider, { identifier: '10xgraph', interFileDependencies: true, workspaceDiagnostics: false });
    const uri = fileUri(join(dir, '10xgraph.json'));
    await client.open(uri, BROKEN);
    const report = (await client.pull(uri)) as FullDocumentDiagnosticReport;
    assert.equal(report.kind, DocumentDiagnosticReportKind.Full);
    assert.deepEqual(codes(report.items), ['missing-field', 'unknown-field']);
    assert.ok(report.resultId);
    const again = await client.pull(uri, report.resultId);
    assert.equal(again.kind, DocumentDiagnosticReportKind.Unchanged);
    await client.change(uri, VALID);
    const changed = (await client.pull(uri, report.resultId)) as FullDocumentDiagnosticReport;
    assert.equal(changed.kind, DocumentDiagnosticReportKind.Full);
    assert.deepEqual(changed.items, []);
    assert.notEqual(changed.resultId, report.resultId);
    await client.close(uri);
    assert.deepEqual(client.published, [], 'nothing was pushed to a pull client');
  });

  test('a document that is not served pulls an empty report', async () => {
    const uri = fileUri(join(dir, 'tsconfig.json'));
    await client.open(uri, BROKEN);
    const report = (await client.pull(uri)) as FullDocumentDiagnosticReport;
    assert.deepEqual(report.items, []);
  });

  test('a configuration change asks the client to pull again', async () => {
    const before = client.refreshRequests;
    await client.changeConfiguration({ '10xgraph': { server: { enabled: false }, files: ['**/*.json'] } });
    await waitFor(() => client.refreshRequests > before, 'workspace/diagnostic/refresh');
    // The pushed settings now serve tsconfig.json too.
    const uri = fileUri(join(dir, 'tsconfig.json'));
    const report = (await client.pull(uri)) as FullDocumentDiagnosticReport;
    assert.deepEqual(codes(report.items), ['missing-field', 'unknown-field']);
  });
});
