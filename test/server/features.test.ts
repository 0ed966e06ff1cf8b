/**
 * Completion, hover, document symbols and formatting over stdio, at cursor positions marked
 * with `|` in small inline fixtures, against a live graph on loopback.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  type CompletionItem,
  CompletionRequest,
  type DocumentSymbol,
  DocumentFormattingRequest,
  DocumentSymbolRequest,
  type Hover,
  HoverRequest,
  InsertTextFormat,
  type MarkupContent,
  type SymbolInformation,
  type TextEdit,
} from 'vscode-languageserver-protocol/node';
import { FILE_FIELDS } from '../../runtime/src/rules/index';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { GraphHttpServer, QUICKSTART_LIKE_GRAPH } from '../support/graphHttp';
import { flatSymbolShape, SYMBOLS_CONFIG, SYMBOLS_FLAT, SYMBOLS_TREE, symbolShape } from './symbolFixture';

/** Splits a fixture at its `|` marker. */
function marked(source: string): { text: string; position: { line: number; character: number } } {
  const offset = source.indexOf('|');
  assert.ok(offset >= 0, 'the fixture has a | marker');
  const text = source.slice(0, offset) + source.slice(offset + 1);
  const before = text.slice(0, offset).split('\n');
  return { text, position: { line: before.length - 1, character: before[before.length - 1].length } };
}

let counter = 0;

describe('editor features', () => {
  let client: TestClient;
  let plain: TestClient;
  let offline: TestClient;
  let server: GraphHttpServer;
  const dir = tempFolder();
  const agentDir = join(dir, 'with-agent');

  before(async () => {
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, 'graph.ts'), "import { StateGraph } from '10xgraph';\nconst builder = new StateGraph();\nexport const app = builder.compile();\n");
    writeFileSync(join(agentDir, 'client.ts'), 'export function run() {}\n');
    writeFileSync(join(agentDir, 'notes.md'), '# not a module\n');
    server = await new GraphHttpServer(QUICKSTART_LIKE_GRAPH).start();
    const settings = { settings: { server: { url: server.url, refreshSeconds: 0 } } };
    client = await TestClient.start({ initializationOptions: settings });
    plain = await TestClient.start({ initializationOptions: settings, snippetSupport: false, hierarchicalSymbols: false });
    offline = await TestClient.start({ initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await Promise.all([client.stop(), plain.stop(), offline.stop()]);
    await server.stop();
  });

  async function openMarked(c: TestClient, source: string, folder = dir) {
    const { text, position } = marked(source);
    const uri = fileUri(join(folder, `case-${counter++}`, '10xgraph.json'));
    if (folder !== dir) {
      // Agent modules are read beside the file: use the folder itself.
      const direct = fileUri(join(folder, '10xgraph.json'));
      await c.open(direct, text);
      await c.pushed(direct, 1);
      return { uri: direct, text, position };
    }
    await c.open(uri, text);
    await c.pushed(uri, 1);
    return { uri, text, position };
  }

  async function complete(c: TestClient, source: string, folder?: string): Promise<{ items: CompletionItem[]; text: string; uri: string }> {
    const { uri, text, position } = await openMarked(c, source, folder);
    const result = await c.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
    const items = Array.isArray(result) ? result : (result?.items ?? []);
    await c.close(uri);
    return { items, text, uri };
  }

  function apply(text: string, item: CompletionItem): string {
    const edit = item.textEdit as TextEdit;
    return TextDocument.applyEdits(TextDocument.create('x', 'json', 1, text), [edit]);
  }

  async function hover(c: TestClient, source: string, folder?: string): Promise<string | undefined> {
    const { uri, position } = await openMarked(c, source, folder);
    const result: Hover | null = await c.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    await c.close(uri);
    return result ? (result.contents as MarkupContent).value : undefined;
  }

  test('completion: the fields a tool lacks, with snippets', async () => {
    const { items, text } = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", | }]}');
    assert.deepEqual(
      items.map((i) => i.label),
      ['name', 'description', 'parameters'],
    );
    const name = items[0];
    assert.equal(name.insertTextFormat, InsertTextFormat.Snippet);
    assert.equal(apply(text, name), '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "${1:tool_name}" }]}');
    assert.match((name.documentation as MarkupContent).value, /never `node:tool_name`[\s\S]*rules\.md#invalid-tool-name/);
  });

  test('completion: a half-typed key is replaced, quotes included, with a comma when a field follows', async () => {
    const { items, text } = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "de|" "node": "TOOL" }]}');
    const description = items.find((i) => i.label === 'description')!;
    assert.equal(description.filterText, '"description"');
    assert.equal(
      apply(text, description),
      '{"agent": "graph:app", "remote_tools": [{ "description": "${1:What the tool does, in one sentence the model reads.}", "node": "TOOL" }]}',
    );
  });

  test('completion: a bare word becomes a quoted key; a half-typed node name is replaced whole', async () => {
    const bare = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", na| }]}');
    assert.equal(
      apply(
        bare.text,
        bare.items.find((i) => i.label === 'name')!,
      ),
      '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "${1:tool_name}" }]}',
    );
    const node = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TO|" }]}');
    assert.equal(apply(node.text, node.items[0]), '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL" }]}');
  });

  test('completion: a key before an existing colon inserts only the key', async () => {
    const { items, text } = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "nam|": "x" }]}');
    assert.equal(
      apply(
        text,
        items.find((i) => i.label === 'name')!,
      ),
      '{"agent": "graph:app", "remote_tools": [{ "name": "x" }]}',
    );
  });

  test('completion: a whole tool inside remote_tools, its node chosen from the live graph', async () => {
    const { items, text } = await complete(client, '{"agent": "graph:app", "remote_tools": [ | ]}');
    assert.deepEqual(
      items.map((i) => i.label),
      ['new remote tool'],
    );
    const applied = apply(text, items[0]);
    assert.match(applied, /"node": "\$\{1:TOOL\}",\n\t"name": "\$\{2:tool_name\}"/);
    assert.match(applied, /"parameters": \{\n\t\t"type": "object"/);
  });

  test('completion: ToolNode names for node, with their tools', async () => {
    const { items } = await complete(client, '{"agent": "graph:app", "remote_tools": [{ "node": "|" }]}');
    assert.deepEqual(
      items.map((i) => i.label),
      ['TOOL'],
      'model and function nodes are not offered',
    );
    assert.equal(items[0].detail, 'ToolNode · 2 tools');
    assert.match((items[0].documentation as MarkupContent).value, /`get_time` \(server tool\)/);
    const none = await complete(offline, '{"agent": "graph:app", "remote_tools": [{ "node": "|" }]}');
    assert.deepEqual(none.items, [], 'no graph, no names guessed');
  });

  test('completion: JSON Schema types and keywords inside parameters', async () => {
    const types = await complete(client, '{"agent": "g:a", "remote_tools": [{ "parameters": { "type": "object", "properties": { "q": { "type": "|" } } } }]}');
    assert.deepEqual(
      types.items.map((i) => i.label),
      ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'],
    );
    const rootType = await complete(client, '{"agent": "g:a", "remote_tools": [{ "parameters": { "type": "|" } }]}');
    assert.deepEqual(
      rootType.items.map((i) => i.label),
      ['object'],
    );
    const keywords = await complete(client, '{"agent": "g:a", "remote_tools": [{ "parameters": { "type": "object", | } }]}');
    assert.deepEqual(
      keywords.items.map((i) => i.label),
      ['properties', 'required', 'description', 'additionalProperties'],
    );
    const inner = await complete(client, '{"agent": "g:a", "remote_tools": [{ "parameters": { "properties": { "q": { | } } } }]}');
    assert.ok(['type', 'description', 'enum', 'items', 'minimum'].every((k) => inner.items.some((i) => i.label === k)));
    const required = await complete(
      client,
      '{"agent": "g:a", "remote_tools": [{ "parameters": { "type": "object", "properties": { "q": {}, "limit": {} }, "required": ["q", |] } }]}',
    );
    assert.deepEqual(
      required.items.map((i) => i.label),
      ['limit'],
    );
  });

  test('completion: root keys, and agent modules found beside the file', async () => {
    const root = await complete(client, '{ | }');
    assert.deepEqual(
      root.items.map((i) => i.label),
      Object.keys(FILE_FIELDS),
      'every field of the file (test/server/settingsCompletion.test.ts covers them)',
    );
    assert.ok(root.items.some((i) => i.label === 'remote_tools'));
    const agent = await complete(client, '{ "agent": "|" }', agentDir);
    assert.equal(agent.items[0].label, 'graph:app');
    assert.equal(agent.items[0].preselect, true);
    assert.ok(
      agent.items.some((i) => i.label === 'client:run'),
      'other modules follow',
    );
    assert.ok(!agent.items.some((i) => i.label.startsWith('notes')));
  });

  test('completion without snippet support inserts plain text', async () => {
    const { items, text } = await complete(plain, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", | }]}');
    const name = items.find((i) => i.label === 'name')!;
    assert.equal(name.insertTextFormat, InsertTextFormat.PlainText);
    assert.equal(apply(text, name), '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "tool_name" }]}');
  });

  test('hover: a field says what it means and links its rules', async () => {
    const text = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "a", "des|cription": "Read the clipboard." }]}');
    assert.match(text!, /^\*\*description\*\* — Required, non-blank string\./);
    assert.match(text!, /the model reads it/);
    assert.match(text!, /rules\.md#vague-description/);
    const type = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "parameters": { "ty|pe": "object" } }]}');
    assert.match(type!, /Must be `"object"`/);
  });

  test('hover: on node, what the live graph says of it', async () => {
    const tool = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TO|OL" }]}');
    assert.match(tool!, /`TOOL` is a ToolNode in the live graph of the server at http:\/\/127\.0\.0\.1:\d+ \(fetched \d+ s ago\)/);
    assert.match(tool!, /Edges: from `agent`; to `agent`/);
    assert.match(tool!, /`get_time` \(server tool\)/);
    assert.match(tool!, /`get_user_location` \(remote tool\)/);
    const missing = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "NOPE|" }]}');
    assert.match(missing!, /No node `NOPE`.*Its nodes: `agent`, `TOOL`, `format_answer`/);
    const model = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "a|gent" }]}');
    assert.match(model!, /`agent` is a model node/);
    const unknown = await hover(offline, '{"agent": "graph:app", "remote_tools": [{ "node": "TO|OL" }]}');
    assert.match(unknown!, /The live graph is not known: graph: disabled/);
  });

  test('hover: on name, whether the live server has it attached', async () => {
    const attached = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "get_user|_location" }]}');
    assert.match(attached!, /`get_user_location` is attached to `TOOL` as a remote tool/);
    const missing = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "read_|clipboard" }]}');
    assert.match(missing!, /`read_clipboard` is not attached to `TOOL`.*restart it/);
    const server = await hover(client, '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "get_|time" }]}');
    assert.match(server!, /already carries a server tool `get_time`/);
  });

  test('hover: on agent, the file the module resolves to', async () => {
    const found = await hover(client, '{ "agent": "gra|ph:app" }', agentDir);
    assert.ok(found!.includes(join(agentDir, 'graph.ts')), found);
    assert.match(found!, /which exports `app`/);
  });

  test('symbols: each tool under its node, its arguments under it', async () => {
    const source = `${SYMBOLS_CONFIG}|`;
    const { uri } = await openMarked(client, source);
    const symbols = (await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) as DocumentSymbol[];
    assert.deepEqual(symbols.map(symbolShape), SYMBOLS_TREE);
    const tool = symbols[1];
    assert.deepEqual(tool.selectionRange, { start: { line: 3, character: 14 }, end: { line: 3, character: 20 } });
    for (const child of tool.children!) {
      assert.ok(child.range.start.line >= tool.range.start.line && child.range.end.line <= tool.range.end.line, 'children lie inside their node');
    }
    const { uri: flatUri } = await openMarked(plain, source);
    const flat = (await plain.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: flatUri } })) as SymbolInformation[];
    assert.deepEqual(flatSymbolShape(flat), SYMBOLS_FLAT);
  });

  test("formatting uses the client's indentation", async () => {
    const { uri, text } = await openMarked(client, '{"agent":"graph:app","remote_tools":[{"node":"TOOL","name":"a"}]}|');
    const format = async (options: { tabSize: number; insertSpaces: boolean }) => {
      const edits = (await client.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options })) as TextEdit[];
      return TextDocument.applyEdits(TextDocument.create(uri, 'json', 1, text), edits);
    };
    assert.equal(
      await format({ tabSize: 2, insertSpaces: true }),
      '{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      "name": "a"\n    }\n  ]\n}',
    );
    assert.equal(
      await format({ tabSize: 4, insertSpaces: false }),
      '{\n\t"agent": "graph:app",\n\t"remote_tools": [\n\t\t{\n\t\t\t"node": "TOOL",\n\t\t\t"name": "a"\n\t\t}\n\t]\n}',
    );
  });
});
