/**
 * A Python project over stdio: a copy of examples/python (`"agent": "graph.react:app"`, the
 * module graph/react.py, a TypeScript client with the handlers) in a temporary workspace. Without
 * a server graph, node names are judged on the graph read from graph/react.py; a module whose
 * nodes cannot be read exactly (add_node in a loop) gets `graph-not-read`; definition, the
 * `agent` link, references, hover and code lenses reach the Python module.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CodeLens,
  CodeLensRequest,
  type Diagnostic,
  DidChangeWatchedFilesNotification,
  type DocumentLink,
  DocumentLinkRequest,
  FileChangeType,
  HoverRequest,
  type Range,
} from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, ROOT, tempFolder, waitFor } from '../support/lspClient';
import { inside, rangeOf } from '../support/textMarks';

const EXAMPLE = join(ROOT, 'examples', 'python');

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);

/** The range of the name literal of `add_node("NAME", ...)` in `text`. */
function addNodeName(text: string, name: string): Range {
  const call = rangeOf(text, `add_node(${JSON.stringify(name)}`);
  const start = { line: call.start.line, character: call.start.character + 'add_node('.length };
  return { start, end: { line: start.line, character: start.character + name.length + 2 } };
}

describe('a Python project: the graph read from graph/react.py', () => {
  let client: TestClient;
  const ws = tempFolder('10xgraph-python-project-');
  const config = join(ws, '10xgraph.json');
  const react = join(ws, 'graph', 'react.py');
  let configText = '';
  let reactText = '';

  before(async () => {
    cpSync(EXAMPLE, ws, { recursive: true });
    configText = readFileSync(config, 'utf8');
    reactText = readFileSync(react, 'utf8');
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'python' }], initializationOptions: { settings: { server: { enabled: false } } } });
    await client.open(fileUri(config), configText);
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('the example has no problem: both tools are attached to the ToolNode TOOL of graph/react.py', async () => {
    const diagnostics = await client.pushed(fileUri(config), 1);
    assert.deepEqual(codes(diagnostics), []);
    const status = await client.waitStatus('http://localhost:8000', (s) => s.sourceGraph !== undefined, 'a status naming the Python graph');
    assert.deepEqual(status.sourceGraph, { file: 'graph/react.py', nodeCount: 2 });
  });

  test('node names are judged on the graph read from graph/react.py, and hover names it', async () => {
    const uri = fileUri(config);
    const wrong = configText.replace('"node": "TOOL"', '"node": "TOOLS"').replace('"node": "TOOL"', '"node": "MAIN"');
    const version = await client.change(uri, wrong);
    const diagnostics = await client.pushed(uri, version, (d) => d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(codes(diagnostics).sort(), ['node-not-found', 'node-not-tool-node']);
    const notFound = diagnostics.find((d) => d.code === 'node-not-found')!;
    assert.deepEqual(notFound.range, rangeOf(wrong, '"TOOLS"'));
    assert.match(notFound.message, /no node named 'TOOLS'.*\(Judged on the graph read from graph\/react\.py; no server graph is in use\.\)$/);
    const notToolNode = diagnostics.find((d) => d.code === 'node-not-tool-node')!;
    assert.deepEqual(notToolNode.range, rangeOf(wrong, '"MAIN"'));
    assert.match(notToolNode.message, /'MAIN'.* is a model node, not a ToolNode.*\(Judged on the graph read from graph\/react\.py; no server graph is in use\.\)$/);
    const hover = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: inside(wrong, '"MAIN"') });
    assert.match(JSON.stringify(hover?.contents), /is a model node in the graph read from graph\/react\.py \(its source, not run; no server graph is in use\)/);
    const restored = await client.change(uri, configText);
    await client.pushed(uri, restored, (d) => d.length === 0);
  });

  test('go to definition: node → add_node("TOOL", ...) in graph/react.py; agent → the module, also a document link', async () => {
    const uri = fileUri(config);
    const node = await client.definition(uri, inside(configText, '"TOOL"'));
    assert.deepEqual(
      node.map(({ uri, range }) => ({ uri, range })),
      [{ uri: fileUri(react), range: addNodeName(reactText, 'TOOL') }],
    );
    const agent = await client.definition(uri, inside(configText, '"graph.react:app"'));
    assert.deepEqual(
      agent.map((l) => l.uri),
      [fileUri(react)],
    );
    const links = (await client.connection.sendRequest(DocumentLinkRequest.type, { textDocument: { uri } })) as DocumentLink[];
    assert.deepEqual(
      links.map((l) => ({ range: l.range, target: l.target })),
      [{ range: rangeOf(configText, 'graph.react:app'), target: fileUri(react) }],
    );
  });

  test('references of a node: its add_node in graph/react.py and the tools attached to it', async () => {
    const uri = fileUri(config);
    const references = await client.references(uri, inside(configText, '"TOOL"'));
    assert.deepEqual(
      references.map(({ uri, range }) => ({ uri, range })),
      [
        { uri: fileUri(react), range: addNodeName(reactText, 'TOOL') },
        { uri, range: rangeOf(configText, '"TOOL"', 0) },
        { uri, range: rangeOf(configText, '"TOOL"', 1) },
      ],
    );
  });

  test('the code lens above each tool names its handler and the node of the Python graph', async () => {
    const lenses = (await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: fileUri(config) } })) as CodeLens[];
    assert.deepEqual(
      lenses.map((l) => l.command?.title),
      ['handler in client.ts:21 · attached to TOOL', 'handler in client.ts:21 · attached to TOOL'],
    );
  });

  test('an open graph/react.py is read as it is typed, before it is saved; closed unsaved, the disk is the truth again', async () => {
    const uri = fileUri(config);
    const module = fileUri(react);
    const renamed = reactText.replace('graph.add_node("TOOL", tool_node)', 'graph.add_node("TOOLS", tool_node)');
    assert.notEqual(renamed, reactText);
    await client.open(module, renamed, 'python');
    const diagnostics = await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(codes(diagnostics), ['node-not-found', 'node-not-found']);
    assert.match(diagnostics[0].message, /no node named 'TOOL'.*\(Judged on the graph read from graph\/react\.py; no server graph is in use\.\)$/);
    // The module is no config: nothing is reported on it, and no config feature answers on it.
    assert.equal(client.latest(module), undefined);
    assert.equal(await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: module }, position: inside(renamed, '"TOOLS"') }), null);
    assert.deepEqual(await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: module } }), []);
    assert.deepEqual(await client.definition(module, inside(renamed, '"TOOLS"')), []);
    // Moved down a line, unsaved: the node is there again, and definition reaches its new line.
    const moved = reactText.replace('graph.add_node("TOOL", tool_node)', '\ngraph.add_node("TOOL", tool_node)');
    await client.change(module, moved);
    await client.pushed(uri, undefined, (d) => d.length === 0);
    const definition = await client.definition(uri, inside(configText, '"TOOL"'));
    assert.deepEqual(
      definition.map(({ uri, range }) => ({ uri, range })),
      [{ uri: module, range: addNodeName(moved, 'TOOL') }],
    );
    await client.close(module);
    await waitFor(async () => {
      const back = await client.definition(uri, inside(configText, '"TOOL"'));
      return back.length === 1 && back[0].range.start.line === addNodeName(reactText, 'TOOL').start.line ? back : undefined;
    }, 'definition on the saved module again');
    assert.equal(readFileSync(react, 'utf8'), reactText);
  });

  test("a module whose nodes cannot be read exactly (add_node in a loop, over the reader's 1 MB bound) gets graph-not-read on agent, with the reason and its place", async () => {
    const uri = fileUri(config);
    writeFileSync(react, reactText.replace('graph.add_node("TOOL", tool_node)', 'for name in ["TOOL"]:\n    graph.add_node(name, tool_node)'));
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(react), type: FileChangeType.Changed }] });
    const diagnostics = await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'graph-not-read'));
    assert.deepEqual(codes(diagnostics), ['graph-not-read']);
    assert.equal(diagnostics[0].severity, 3);
    assert.deepEqual(diagnostics[0].range, rangeOf(configText, '"graph.react:app"'));
    const line = reactText.slice(0, reactText.indexOf('graph.add_node("TOOL"')).split('\n').length + 1;
    assert.equal(
      diagnostics[0].message,
      `graph/react.py not read (add_node() at ${line}:5 is in a loop; its nodes cannot be read exactly), so node names are not checked without a running server.`,
    );
    // A wrong node is not judged on a graph that was not read.
    const version = await client.change(uri, configText.replace('"node": "TOOL"', '"node": "TOOLS"'));
    const unjudged = await client.pushed(uri, version);
    assert.deepEqual(codes(unjudged), ['graph-not-read']);
    assert.deepEqual(await client.definition(uri, inside(configText, '"TOOL"')), []);
    // Over the index's bound (512 KB) but within the Python reader's (1 MB): read, as `10xgraph audit` reads it.
    writeFileSync(react, reactText + '#'.repeat(600 * 1024) + '\n');
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(react), type: FileChangeType.Changed }] });
    const read = await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(codes(read), ['node-not-found']);
    // Over the reader's bound: not parsed, and agent says so in the reader's words.
    writeFileSync(react, reactText + '#'.repeat(1100 * 1024) + '\n');
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(react), type: FileChangeType.Changed }] });
    const large = await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'graph-not-read' && x.message.includes('larger')));
    assert.equal(
      large.find((d) => d.code === 'graph-not-read')!.message,
      'graph/react.py not read (the module is larger than 1 MB and is not parsed), so node names are not checked without a running server.',
    );
    writeFileSync(react, reactText);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(react), type: FileChangeType.Changed }] });
    await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'node-not-found'));
    const restored = await client.change(uri, configText);
    await client.pushed(uri, restored, (d) => d.length === 0);
  });
});
