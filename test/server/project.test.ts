/**
 * The project over stdio: a copy of test/fixtures/project (a config, its agent module graph.ts,
 * a TypeScript client and a JSX handler file) in a temporary workspace, with files the index
 * must skip (node_modules, .gitignore, the exclude setting). Definition, references, rename,
 * the handler diagnostics and their fix, completion in a source, code lenses, links, folding and
 * selection ranges, the graph read from the source, and files changing while the server runs.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CodeAction,
  CodeActionRequest,
  type CodeLens,
  CodeLensRequest,
  type CompletionItem,
  CompletionRequest,
  type Diagnostic,
  DidChangeWatchedFilesNotification,
  DocumentLinkRequest,
  FileChangeType,
  FoldingRangeRequest,
  HoverRequest,
  type Location,
  PrepareRenameRequest,
  type Range,
  RenameRequest,
  SelectionRangeRequest,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, ROOT, tempFolder, waitFor } from '../support/lspClient';
import { inside, rangeOf } from '../support/textMarks';
import { describeStatus } from '../../client/src/statusText';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'project');
const COMPUTED_FIXTURE = join(ROOT, 'test', 'fixtures', 'project-computed');

function sortLocations(locations: Location[]): Array<{ uri: string; range: Range }> {
  return locations.map(({ uri, range }) => ({ uri, range })).sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : a.range.start.line - b.range.start.line));
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);

describe('the project: config, agent module and handlers', () => {
  let client: TestClient;
  const ws = tempFolder('10xgraph-project-');
  const config = join(ws, '10xgraph.json');
  const clientTs = join(ws, 'client.ts');
  const handlersJs = join(ws, 'web', 'handlers.js');
  const graphTs = join(ws, 'graph.ts');
  let configText = '';

  before(async () => {
    cpSync(FIXTURE, ws, { recursive: true });
    // Three registrations of `search_notes` the index must not see.
    mkdirSync(join(ws, 'node_modules', 'some-client'), { recursive: true });
    writeFileSync(join(ws, 'node_modules', 'some-client', 'index.js'), "client.registerToolHandler('search_notes', () => []);\n");
    writeFileSync(join(ws, '.gitignore'), '# build output\ngenerated/\n');
    mkdirSync(join(ws, 'generated'));
    writeFileSync(join(ws, 'generated', 'handlers.ts'), "client.registerToolHandler('search_notes', () => []);\n");
    mkdirSync(join(ws, 'skipped'));
    writeFileSync(join(ws, 'skipped', 'extra.ts'), "client.registerToolHandler('search_notes', () => []);\n");
    configText = readFileSync(config, 'utf8');
    client = await TestClient.start({
      workspaceFolders: [{ uri: fileUri(ws), name: 'project' }],
      initializationOptions: { settings: { server: { enabled: false }, project: { exclude: ['skipped/**'] } } },
    });
    await client.open(fileUri(config), configText);
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('a remote tool no source registers a handler for gets an information diagnostic', async () => {
    const diagnostics = await client.pushed(fileUri(config), undefined, (d) => d.some((x) => x.code === 'handler-missing'));
    const missing = diagnostics.filter((d) => d.code === 'handler-missing');
    assert.equal(missing.length, 1, JSON.stringify(diagnostics));
    assert.equal(missing[0].severity, 3);
    assert.deepEqual(missing[0].range, rangeOf(configText, '"search_notes"'));
    assert.match(missing[0].message, /No source in the workspace registers a handler for 'search_notes'.*Tool 'search_notes' not found/);
    // node_modules, .gitignore and 10xgraph.project.exclude hide the three files that register it.
    assert.deepEqual(codes(diagnostics), ['handler-missing']);
  });

  test('go to definition: node → addNode in graph.ts, name → handlers, agent → the module', async () => {
    const uri = fileUri(config);
    const graphText = readFileSync(graphTs, 'utf8');
    const node = await client.definition(uri, inside(configText, '"TOOL"'));
    assert.deepEqual(sortLocations(node), [{ uri: fileUri(graphTs), range: rangeOf(graphText, "'TOOL'") }]);
    const handlers = await client.definition(uri, inside(configText, '"get_user_location"'));
    assert.deepEqual(
      sortLocations(handlers),
      sortLocations([
        { uri: fileUri(clientTs), range: rangeOf(readFileSync(clientTs, 'utf8'), "'get_user_location'") },
        { uri: fileUri(handlersJs), range: rangeOf(readFileSync(handlersJs, 'utf8'), '"get_user_location"') },
      ]),
    );
    const agent = await client.definition(uri, inside(configText, '"graph:app"'));
    assert.deepEqual(
      agent.map((l) => l.uri),
      [fileUri(graphTs)],
    );
    assert.deepEqual(await client.definition(uri, inside(configText, '"description"')), []);
    const links = await client.connection.sendRequest(DocumentLinkRequest.type, { textDocument: { uri } });
    assert.deepEqual(
      links?.map((l) => ({ target: l.target, range: l.range })),
      [{ target: fileUri(graphTs), range: rangeOf(configText, 'graph:app') }],
    );
  });

  test('find references of a tool name from the config and from a handler', async () => {
    const clientText = readFileSync(clientTs, 'utf8');
    const expected = sortLocations([
      { uri: fileUri(config), range: rangeOf(configText, '"get_user_location"') },
      { uri: fileUri(clientTs), range: rangeOf(clientText, "'get_user_location'") },
      { uri: fileUri(handlersJs), range: rangeOf(readFileSync(handlersJs, 'utf8'), '"get_user_location"') },
    ]);
    assert.deepEqual(sortLocations(await client.references(fileUri(config), inside(configText, '"get_user_location"'))), expected);
    // A node: where graph.ts adds it, and every tool of the config attached to it.
    const nodeRefs = await client.references(fileUri(config), inside(configText, '"TOOL"'));
    assert.deepEqual(
      sortLocations(nodeRefs),
      sortLocations([
        { uri: fileUri(graphTs), range: rangeOf(readFileSync(graphTs, 'utf8'), "'TOOL'") },
        ...[0, 1, 2].map((i) => ({ uri: fileUri(config), range: rangeOf(configText, '"TOOL"', i) })),
      ]),
    );
    await client.open(fileUri(clientTs), clientText, 'typescript');
    assert.deepEqual(sortLocations(await client.references(fileUri(clientTs), inside(clientText, "'get_user_location'"))), expected);
    const withoutDeclaration = await client.references(fileUri(clientTs), inside(clientText, "'get_user_location'"), false);
    assert.deepEqual(withoutDeclaration.map((l) => l.uri).sort(), [fileUri(clientTs), fileUri(handlersJs)].sort());
    await client.close(fileUri(clientTs));
  });

  test('a handler for a name no config declares, with the closest declared name as a fix', async () => {
    const uri = fileUri(clientTs);
    const text = readFileSync(clientTs, 'utf8');
    await client.open(uri, text, 'typescript');
    const diagnostics = await client.pushed(uri, 1, (d) => d.length > 0);
    assert.deepEqual(codes(diagnostics), ['handler-undeclared']);
    assert.deepEqual(diagnostics[0].range, rangeOf(text, "'search_note'"));
    assert.equal(diagnostics[0].severity, 3);
    assert.match(diagnostics[0].message, /declares a remote tool named 'search_note'.*did you mean 'search_notes'\?/);
    const actions = (await client.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: diagnostics[0].range,
      context: { diagnostics, only: ['quickfix'] },
    })) as CodeAction[];
    assert.equal(actions[0].title, "Change to 'search_notes'");
    assert.equal(actions[0].isPreferred, true);
    assert.deepEqual(actions[0].edit?.changes?.[uri], [{ range: rangeOf(text, 'search_note'), newText: 'search_notes' }]);
    // Applying the fix: the source's diagnostic goes, and the config's tool gets its handler.
    const fixed = text.replace("'search_note'", "'search_notes'");
    const version = await client.change(uri, fixed);
    assert.deepEqual(await client.pushed(uri, version, (d) => d.length === 0), []);
    await client.pushed(fileUri(config), undefined, (d) => !d.some((x) => x.code === 'handler-missing'));
    await client.close(uri);
    await client.pushed(fileUri(config), undefined, (d) => d.some((x) => x.code === 'handler-missing'));
  });

  test('typing into the config: a keystroke in a description leaves the project as it was, one in a name changes it', async () => {
    const uri = fileUri(clientTs);
    const source = readFileSync(clientTs, 'utf8');
    await client.open(uri, source, 'typescript');
    await client.pushed(uri, 1, (d) => codes(d).join() === 'handler-undeclared');
    const configUri = fileUri(config);
    let text = configText;
    /** Types `insert` over `remove` characters at `offset` of the config, as an editor sends a keystroke. */
    const type = async (offset: number, remove: number, insert: string) => {
      const lines = text.slice(0, offset).split('\n');
      const start = { line: lines.length - 1, character: lines[lines.length - 1]!.length };
      const range = { start, end: { line: start.line, character: start.character + remove } };
      text = text.slice(0, offset) + insert + text.slice(offset + remove);
      return client.change(configUri, [{ range, text: insert }]);
    };
    // 'search_notes' loses its last letter: the handler of client.ts is now the declared one, and the tool has a handler.
    const nameEnd = text.indexOf('"search_notes"') + '"search_notes'.length;
    let version = await type(nameEnd - 1, 1, '');
    await client.pushed(uri, undefined, (d) => d.length === 0);
    assert.deepEqual(codes(await client.pushed(configUri, version)), []);
    // A keystroke in a description: nothing about the project changes.
    version = await type(text.indexOf('for a query') + 'for a'.length, 0, ' short');
    assert.deepEqual(codes(await client.pushed(configUri, version)), []);
    assert.deepEqual(client.latest(uri)?.diagnostics, []);
    // The letter comes back: so do the two diagnostics.
    version = await type(nameEnd - 1, 0, 's');
    await client.pushed(uri, undefined, (d) => codes(d).join() === 'handler-undeclared');
    await client.pushed(configUri, version, (d) => codes(d).join() === 'handler-missing');
    version = await client.change(configUri, configText);
    await client.pushed(configUri, version, (d) => codes(d).join() === 'handler-missing');
    await client.close(uri);
  });

  test('completion of the declared tool names inside registerToolHandler(', async () => {
    const path = join(ws, 'more.ts');
    const uri = fileUri(path);
    const text = "import { client } from './client';\nclient.registerToolHandler('re', () => 1);\n";
    await client.open(uri, text, 'typescript');
    const position = { line: 1, character: "client.registerToolHandler('re".length };
    const items = (await client.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position,
      context: { triggerKind: 2, triggerCharacter: "'" },
    })) as CompletionItem[];
    const labels = items.map((i) => i.label).sort();
    assert.deepEqual(labels, ['get_user_location', 'read_clipboard', 'search_notes']);
    const read = items.find((i) => i.label === 'read_clipboard')!;
    assert.deepEqual(read.textEdit, { range: { start: { line: 1, character: 28 }, end: { line: 1, character: 30 } }, newText: 'read_clipboard' });
    const elsewhere = (await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } })) as CompletionItem[];
    assert.deepEqual(elsewhere, []);
    await client.close(uri);
  });

  test('code lenses above each tool: its handlers and its node', async () => {
    const lenses = (await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: fileUri(config) } })) as CodeLens[];
    assert.deepEqual(
      lenses.map((l) => [l.range.start.line, l.command?.title]),
      [
        [rangeOf(configText, '{\n      "node": "TOOL",\n      "name": "get_user_location"').start.line, '2 handlers: client.ts:5, handlers.js:3 · attached to TOOL'],
        [rangeOf(configText, '{\n      "node": "TOOL",\n      "name": "read_clipboard"').start.line, 'handler in client.ts:6 · attached to TOOL'],
        [rangeOf(configText, '{\n      "node": "TOOL",\n      "name": "search_notes"').start.line, 'no handler · attached to TOOL'],
      ],
    );
  });

  test('folding and selection ranges of the config', async () => {
    const uri = fileUri(config);
    const folds = await client.connection.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
    const lines = configText.split('\n');
    assert.ok(
      folds?.some((f) => f.startLine === 0 && f.endLine === lines.length - 3),
      JSON.stringify(folds),
    );
    assert.ok(folds?.some((f) => f.startLine === 2 && lines[f.startLine].includes('"remote_tools"')));
    const selections = await client.connection.sendRequest(SelectionRangeRequest.type, { textDocument: { uri }, positions: [inside(configText, '"read_clipboard"')] });
    const chain: Range[] = [];
    for (let s: typeof selections extends Array<infer T> | null ? T | undefined : never = selections?.[0]; s; s = s.parent) chain.push(s.range);
    assert.deepEqual(chain[0], rangeOf(configText, '"read_clipboard"'));
    assert.deepEqual(chain[1], rangeOf(configText, '"name": "read_clipboard"'));
    assert.deepEqual(chain[chain.length - 1].start, { line: 0, character: 0 });
  });

  test('without a server, node names are judged on the graph read from graph.ts', async () => {
    const uri = fileUri(config);
    const wrong = configText
      .replace('"node": "TOOL",\n      "name": "read_clipboard"', '"node": "TOOLS",\n      "name": "read_clipboard"')
      .replace('"node": "TOOL",\n      "name": "search_notes"', '"node": "agent",\n      "name": "search_notes"');
    const version = await client.change(uri, wrong);
    const diagnostics = await client.pushed(uri, version, (d) => d.some((x) => x.code === 'node-not-found'));
    const notFound = diagnostics.find((d) => d.code === 'node-not-found')!;
    assert.deepEqual(notFound.range, rangeOf(wrong, '"TOOLS"'));
    assert.match(notFound.message, /no node named 'TOOLS'.*\(Judged on the graph read from graph\.ts; no server graph is in use\.\)$/);
    const notToolNode = diagnostics.find((d) => d.code === 'node-not-tool-node')!;
    assert.deepEqual(notToolNode.range, rangeOf(wrong, '"agent"', 1));
    assert.match(notToolNode.message, /'agent'.* is a model node, not a ToolNode.*graph read from graph\.ts/);
    // Hover says which graph judged.
    const hover = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: inside(wrong, '"agent"', 1) });
    assert.match(JSON.stringify(hover?.contents), /is a model node in the graph read from graph\.ts \(its source, not run; no server graph is in use\)/);
    // graph.ts changes on disk: the graph read from it follows.
    const graphText = readFileSync(graphTs, 'utf8');
    writeFileSync(graphTs, graphText.replace(".addNode('TOOL', tools)", ".addNode('TOOL', tools)\n  .addNode('TOOLS', new ToolNode([]))"));
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(graphTs), type: FileChangeType.Changed }] });
    const judgedAgain = await client.pushed(uri, version, (d) => !d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(
      codes(judgedAgain).filter((c) => String(c).startsWith('node-')),
      ['node-not-tool-node'],
    );
    writeFileSync(graphTs, graphText);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(graphTs), type: FileChangeType.Changed }] });
    await client.pushed(uri, version, (d) => d.some((x) => x.code === 'node-not-found'));
    const restored = await client.change(uri, configText);
    await client.pushed(uri, restored, (d) => !d.some((x) => x.code === 'node-not-found'));
  });

  test('the status says that node names are judged on the graph read from graph.ts', async () => {
    const status = await client.waitStatus('http://localhost:8000', (s) => s.sourceGraph !== undefined, 'a status naming the source graph');
    assert.equal(status.state, 'disabled');
    assert.deepEqual(status.sourceGraph, { file: 'graph.ts', nodeCount: 2 });
    const view = describeStatus(status, Date.now());
    assert.equal(view.text, '$(circle-slash) 10xgraph: graph off · graph.ts');
    assert.match(view.tooltip, /checked against the graph read from graph\.ts \(2 nodes; its source is read, never run\)/);
    assert.doesNotMatch(view.tooltip, /node names are not checked/);
  });

  test('rename a tool from the config: one edit over the config and every handler', async () => {
    const uri = fileUri(config);
    const position = inside(configText, '"read_clipboard"');
    const prepared = await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri }, position });
    assert.deepEqual(prepared, { range: rangeOf(configText, 'read_clipboard'), placeholder: 'read_clipboard' });
    await assert.rejects(
      client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri }, position: inside(configText, '"TOOL"') }),
      /Only a remote tool's "name" can be renamed/,
    );
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri }, position, newName: 'read_text' })) as WorkspaceEdit;
    const clientText = readFileSync(clientTs, 'utf8');
    assert.deepEqual(edit.changes, {
      [uri]: [{ range: rangeOf(configText, 'read_clipboard'), newText: 'read_text' }],
      [fileUri(clientTs)]: [{ range: rangeOf(clientText, 'read_clipboard'), newText: 'read_text' }],
    } satisfies Record<string, TextEdit[]>);
    // Right after an edit that moves the tool, the rename's ranges are those of the new text.
    const shifted = `\n\n${configText}`;
    const shiftedVersion = await client.change(uri, shifted);
    const moved = (await client.connection.sendRequest(RenameRequest.type, {
      textDocument: { uri },
      position: inside(shifted, '"read_clipboard"'),
      newName: 'read_text',
    })) as WorkspaceEdit;
    assert.deepEqual(moved.changes?.[uri], [{ range: rangeOf(shifted, 'read_clipboard'), newText: 'read_text' }]);
    await client.pushed(uri, shiftedVersion);
    await client.pushed(uri, await client.change(uri, configText));
    await assert.rejects(
      client.connection.sendRequest(RenameRequest.type, { textDocument: { uri }, position, newName: 'read clipboard' }),
      /has characters other than letters, digits, _ and -/,
    );
    await assert.rejects(
      client.connection.sendRequest(RenameRequest.type, { textDocument: { uri }, position, newName: 'search_notes' }),
      /already declares a remote tool named 'search_notes'/,
    );
  });

  test('rename from a handler string, refused where a name is written with escapes', async () => {
    const uri = fileUri(handlersJs);
    const text = readFileSync(handlersJs, 'utf8');
    await client.open(uri, text, 'javascriptreact');
    const position = inside(text, '"get_user_location"');
    const prepared = await client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri }, position });
    assert.deepEqual(prepared, { range: rangeOf(text, 'get_user_location'), placeholder: 'get_user_location' });
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri }, position, newName: 'locate_user' })) as WorkspaceEdit;
    assert.deepEqual(Object.keys(edit.changes ?? {}).sort(), [fileUri(config), fileUri(clientTs), uri].sort());
    // A registration spelt with an escape cannot be replaced exactly: the rename is refused.
    const escaped = text.replace('"get_user_location"', '"get_user\\u005flocation"');
    await client.change(uri, escaped);
    const refusal = await waitFor(
      () =>
        client.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: fileUri(config) }, position: inside(configText, '"get_user_location"') }).then(
          () => undefined,
          (error: Error) => error.message,
        ),
      'the rename to be refused',
    );
    assert.match(refusal, /'get_user_location' is written with escapes somewhere/);
    await client.close(uri);
  });

  test('files deleted, created and broken while the server runs', async () => {
    const uri = fileUri(config);
    const position = inside(configText, '"get_user_location"');
    // Deleted: its handler leaves the project.
    unlinkSync(handlersJs);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(handlersJs), type: FileChangeType.Deleted }] });
    await waitFor(async () => (await client.references(uri, position)).length === 2, 'the deleted handler file to leave the references');
    // Created: its handler joins, and the tool without a handler has one now.
    const extra = join(ws, 'extra.ts');
    writeFileSync(extra, "import { client } from './client';\nclient.registerToolHandler('search_notes', async () => []);\n");
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(extra), type: FileChangeType.Created }] });
    await client.pushed(uri, undefined, (d) => !d.some((x) => x.code === 'handler-missing'));
    // A source with syntax errors: what can be read is kept (the registration), the server stays up.
    const broken = join(ws, 'broken.ts');
    writeFileSync(broken, "client.registerToolHandler('read_clipboard', () => {\n  const x = ;\n  if (x {\n");
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(broken), type: FileChangeType.Created }] });
    const readPosition = inside(configText, '"read_clipboard"');
    const refs = await waitFor(async () => {
      const found = await client.references(uri, readPosition);
      return found.some((l) => l.uri === fileUri(broken)) ? found : undefined;
    }, 'the broken file to join the references');
    assert.deepEqual(refs.find((l) => l.uri === fileUri(broken))?.range, { start: { line: 0, character: 27 }, end: { line: 0, character: 43 } });
    // Open, the broken file gets its diagnostics like any source (none here) and the server answers.
    await client.open(fileUri(broken), readFileSync(broken, 'utf8'), 'typescript');
    const definitions = await client.definition(fileUri(broken), { line: 0, character: 30 });
    assert.deepEqual(
      definitions.map((l) => l.uri),
      [uri],
    );
    await client.close(fileUri(broken));
    // Removing the only handler of search_notes brings its diagnostic back.
    unlinkSync(extra);
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(extra), type: FileChangeType.Deleted }] });
    await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'handler-missing'));
    // Events for what is not a file, not in the workspace, or gone already are ignored.
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [
        { uri: 'untitled:Untitled-1', type: FileChangeType.Created },
        { uri: 'file:///nowhere/at/all.ts', type: FileChangeType.Changed },
        { uri: fileUri(join(ws, 'vanished.ts')), type: FileChangeType.Created },
      ],
    });
    assert.equal((await client.references(uri, position)).length, 2);
    assert.ok(client.alive);
  });
});

describe('a graph with a computed node name', () => {
  let client: TestClient;
  const ws = tempFolder('10xgraph-project-computed-');
  const config = join(ws, '10xgraph.json');

  before(async () => {
    cpSync(COMPUTED_FIXTURE, ws, { recursive: true });
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'computed' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('says so on "agent" and judges no node name from the source', async () => {
    const text = readFileSync(config, 'utf8');
    await client.open(fileUri(config), text);
    const diagnostics = await client.pushed(fileUri(config), 1, (d) => d.length > 0);
    assert.deepEqual(codes(diagnostics), ['graph-not-read']);
    assert.equal(diagnostics[0].severity, 3);
    assert.deepEqual(diagnostics[0].range, rangeOf(text, '"graph:app"'));
    assert.equal(diagnostics[0].message, 'graph.ts adds a node whose name is not a literal (line 6), so node names are not checked without a running server.');
    // Going to the definition of the node finds nothing to claim.
    const locations = await client.definition(fileUri(config), inside(text, '"WORKERS"'));
    assert.deepEqual(locations, []);
  });
});

describe('the project in pull mode', () => {
  let client: TestClient;
  const ws = tempFolder('10xgraph-project-pull-');
  const config = join(ws, '10xgraph.json');
  const clientTs = join(ws, 'client.ts');

  before(async () => {
    cpSync(FIXTURE, ws, { recursive: true });
    client = await TestClient.start({ pull: true, workspaceFolders: [{ uri: fileUri(ws), name: 'pull' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('configs and sources pull the project diagnostics; a file event asks the client to pull again', async () => {
    const configText = readFileSync(config, 'utf8');
    await client.open(fileUri(config), configText);
    await client.open(fileUri(clientTs), readFileSync(clientTs, 'utf8'), 'typescript');
    type Full = { kind: string; resultId?: string; items: Diagnostic[] };
    const first = await waitFor(async () => {
      const report = (await client.pull(fileUri(config))) as Full;
      return report.items.some((d) => d.code === 'handler-missing') ? report : undefined;
    }, 'handler-missing in a pulled report');
    assert.deepEqual(codes(first.items), ['handler-missing']);
    assert.equal(((await client.pull(fileUri(config), first.resultId)) as Full).kind, 'unchanged');
    const source = (await client.pull(fileUri(clientTs))) as Full;
    assert.deepEqual(codes(source.items), ['handler-undeclared']);
    assert.equal(((await client.pull(fileUri(clientTs), source.resultId)) as Full).kind, 'unchanged');
    // A handler appears on disk: the client is asked to pull again, and the tool has its handler.
    const refreshes = client.refreshRequests;
    const extra = join(ws, 'notes.ts');
    writeFileSync(extra, "client.registerToolHandler('search_notes', () => []);\n");
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: fileUri(extra), type: FileChangeType.Created }] });
    await waitFor(() => client.refreshRequests > refreshes, 'a workspace/diagnostic/refresh request');
    const after = (await client.pull(fileUri(config), first.resultId)) as Full;
    assert.equal(after.kind, 'full');
    assert.deepEqual(after.items, []);
    assert.deepEqual(client.published, [], 'nothing was pushed to a pull client');
  });
});
