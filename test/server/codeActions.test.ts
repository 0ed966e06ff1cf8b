/**
 * Code actions through the protocol: every quick fix, applied as the client would apply it,
 * yields exactly the text the rule set's fix describes; `source.fixAll.10xgraph` leaves no
 * fixable problem and equals `applySafeFixes`; "Refetch the graph" runs the server command.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type CodeAction, CodeActionRequest, type Diagnostic, ExecuteCommandRequest, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver-protocol/node';
import { applyEdits, applySafeFixes, auditConfig, type Fix } from '../../runtime/src/rules/index';
import { findAgentCandidates } from '../../runtime/src/workspace/agentCandidates';
import { TestClient, fileUri, ROOT, tempFolder } from '../support/lspClient';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';

const CORPUS = join(ROOT, 'test', 'fixtures', 'corpus');
const files = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => join(CORPUS, f));

/** Applies a workspace edit for one document as a client does. */
function applyWorkspaceEdit(uri: string, text: string, edit: WorkspaceEdit, expectVersion?: number): string {
  let edits: TextEdit[] = [];
  if (edit.documentChanges) {
    for (const change of edit.documentChanges) {
      if (!('textDocument' in change)) throw new Error('unexpected resource operation');
      assert.equal(change.textDocument.uri, uri);
      if (expectVersion !== undefined) assert.equal(change.textDocument.version, expectVersion);
      edits.push(...(change.edits as TextEdit[]));
    }
  } else {
    assert.deepEqual(Object.keys(edit.changes ?? {}), [uri]);
    edits = edit.changes![uri];
  }
  return TextDocument.applyEdits(TextDocument.create(uri, 'json', 1, text), edits);
}

function codeActions(client: TestClient, uri: string, diagnostics: Diagnostic[], only?: string[]): Promise<CodeAction[]> {
  const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range, context: { diagnostics, ...(only ? { only } : {}) } }) as Promise<CodeAction[]>;
}

function fixableLeft(text: string, candidates: string[]): string[] {
  return auditConfig(text, candidates.length ? { agentCandidates: candidates } : {})
    .filter((p) => p.fixes?.some((f) => f.safe && f.edits.length > 0))
    .map((p) => p.code);
}

for (const documentChanges of [false, true]) {
  describe(`quick fixes on the corpus (${documentChanges ? 'documentChanges' : 'changes'})`, () => {
    let client: TestClient;
    before(async () => {
      client = await TestClient.start({ documentChanges, initializationOptions: { settings: { files: ['**/*.json'], server: { enabled: false } } } });
    });
    after(() => client.stop());

    for (const path of files) {
      test(`${path.slice(CORPUS.length + 1)}: every action applies the rule set's edit`, async () => {
        const text = readFileSync(path, 'utf8');
        const uri = fileUri(path);
        await client.open(uri, text);
        const diagnostics = await client.pushed(uri, 1);
        for (const diagnostic of diagnostics) {
          const fixes = (diagnostic.data as { fixes: Fix[] }).fixes;
          const actions = (await codeActions(client, uri, [diagnostic], ['quickfix'])).filter((a) => a.kind === 'quickfix');
          assert.equal(actions.length, fixes.filter((f) => f.edits.length > 0 || f.command).length, `one action per fix of ${diagnostic.code}`);
          actions.forEach((action, i) => {
            const fix = fixes[i];
            assert.equal(action.title, fix.title);
            assert.equal(action.isPreferred === true, fix.isPreferred === true);
            assert.deepEqual(action.diagnostics, [diagnostic]);
            assert.ok(action.edit, `${action.title} has an edit`);
            assert.equal(applyWorkspaceEdit(uri, text, action.edit!, documentChanges ? 1 : undefined), applyEdits(text, fix.edits), `${diagnostic.code}: ${fix.title}`);
          });
        }
        const candidates = findAgentCandidates(dirname(path));
        const fixAll = await codeActions(client, uri, [], ['source.fixAll']);
        const expected = applySafeFixes(text, candidates.length ? { agentCandidates: candidates } : {});
        if (expected.applied === 0) {
          assert.deepEqual(fixAll, []);
        } else {
          assert.equal(fixAll.length, 1);
          assert.equal(fixAll[0].kind, 'source.fixAll.10xgraph');
          const fixed = applyWorkspaceEdit(uri, text, fixAll[0].edit!);
          assert.equal(fixed, expected.text);
          assert.deepEqual(fixableLeft(fixed, candidates), [], 'no fixable problem is left');
          const edits = documentChanges ? (fixAll[0].edit!.documentChanges![0] as { edits: TextEdit[] }).edits : fixAll[0].edit!.changes![uri];
          assert.equal(edits.length, 1, 'fix-all is one edit');
        }
        await client.close(uri);
      });
    }
  });
}

describe('quick fixes that are commands, and stale data', () => {
  let client: TestClient;
  let server: GraphHttpServer;
  const dir = tempFolder();
  before(async () => {
    server = await new GraphHttpServer(QUICKSTART_LIKE_GRAPH).start();
    client = await TestClient.start({ initializationOptions: { settings: { server: { url: server.url, refreshSeconds: 0 } } } });
  });
  after(async () => {
    await client.stop();
    await server.stop();
  });

  test('node-not-found on a live graph offers each ToolNode and "Refetch the graph", which refetches', async () => {
    const uri = fileUri(join(dir, '10xgraph.json'));
    const text = '{"agent": "graph:app", "remote_tools": [{"node": "TOOLS", "name": "get_user_location", "description": "Get the user\'s location from the browser."}]}';
    await client.open(uri, text);
    const diagnostics = await client.pushed(uri, 1, (d) => d.some((x) => x.code === 'node-not-found'));
    const notFound = diagnostics.find((d) => d.code === 'node-not-found')!;
    const actions = await codeActions(client, uri, [notFound]);
    const quickfixes = actions.filter((a) => a.kind === 'quickfix');
    assert.deepEqual(
      quickfixes.map((a) => a.title),
      ["Change to 'TOOL'", 'Refetch the graph (the server may have changed)'],
    );
    assert.equal(quickfixes[0].isPreferred, true);
    const refetch = quickfixes[1];
    assert.equal(refetch.edit, undefined);
    assert.deepEqual(refetch.command, { title: refetch.title, command: '10xgraph.refreshGraph', arguments: [uri] });
    const before = server.graphRequests;
    const statuses = await client.connection.sendRequest(ExecuteCommandRequest.type, { command: refetch.command!.command, arguments: refetch.command!.arguments });
    assert.equal(server.graphRequests, before + 1, 'the command fetched the graph once');
    assert.deepEqual(
      (statuses as Array<{ url: string; state: string }>).map((s) => [s.url, s.state]),
      [[server.url, 'connected']],
    );
  });

  test('a diagnostic whose data belongs to an older version offers nothing', async () => {
    const uri = fileUri(join(dir, 'stale', '10xgraph.json'));
    const text = '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "get_user_location", "description": "Get the location of the user.", "desc": 1}]}';
    await client.open(uri, text);
    const [diagnostic] = await client.pushed(uri, 1);
    assert.equal(diagnostic.code, 'unknown-field');
    assert.ok((diagnostic.data as { fixes: Fix[] }).fixes.length > 0, 'the problem has a fix at version 1');
    assert.ok((await codeActions(client, uri, [diagnostic], ['quickfix'])).length > 0, 'offered at version 1');
    await client.change(uri, text.replace('{"agent"', '{  "agent"'));
    await client.pushed(uri, 2);
    const actions = await codeActions(client, uri, [diagnostic], ['quickfix']);
    assert.deepEqual(actions, []);
  });
});
