/**
 * A hostile workspace against the project features, over stdio (each workspace a copy of
 * test/fixtures/project in a temporary folder, its hostile parts made here): a `.gitignore` line
 * a backtracking engine freezes on beside a long file name; watched-file events naming symbolic
 * links out of the workspace and FIFOs (and a FIFO named `.gitignore`); a rename while documents
 * in node_modules, in an ignored folder and behind a link are open; an open source of 2 MB with
 * 50,001 handler registrations. Each time the server keeps answering and reads, or edits, only
 * what belongs to the project.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CodeActionRequest,
  DidChangeWatchedFilesNotification,
  DocumentSymbolRequest,
  FileChangeType,
  type Location,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, ROOT, tempFolder, waitFor } from '../support/lspClient';
import { within } from '../support/poll';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'project');
const CONFIG_TEXT = readFileSync(join(FIXTURE, '10xgraph.json'), 'utf8');
const SETTINGS = { settings: { server: { enabled: false } } };
/** How long a request may go unanswered before the server counts as frozen (a bound on a wait, not a sleep). */
const ANSWER_BOUND_MS = 10_000;

/** A position one character inside `needle` of `text` (zero-based). */
function inside(text: string, needle: string): { line: number; character: number } {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, `${needle} is in the text`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length + 1 };
}

/** A workspace copied from the fixture, with a server on it and its config open. */
async function startProject(prefix: string, prepare: (ws: string) => void = () => undefined): Promise<{ ws: string; client: TestClient; config: string }> {
  const ws = tempFolder(prefix);
  cpSync(FIXTURE, ws, { recursive: true });
  prepare(ws);
  const client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'hostile' }], initializationOptions: SETTINGS });
  const config = fileUri(join(ws, '10xgraph.json'));
  await client.open(config, CONFIG_TEXT);
  return { ws, client, config };
}

/** The files (as URIs) that reference the tool `name` of the config, declaration included. */
async function referencesOf(client: TestClient, config: string, name: string): Promise<string[]> {
  const found = (await client.connection.sendRequest(ReferencesRequest.type, {
    textDocument: { uri: config },
    position: inside(CONFIG_TEXT, `"${name}"`),
    context: { includeDeclaration: true },
  })) as Location[];
  return [...new Set(found.map((l) => l.uri))].sort();
}

/** Whether the server answers a documentSymbol request on the config within the bound. */
async function answersSymbols(client: TestClient, config: string): Promise<boolean> {
  const symbols = await within(client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: config } }), ANSWER_BOUND_MS);
  return Array.isArray(symbols) && symbols.length > 0;
}

const handler = (name: string) => `import { client } from './client';\nclient.registerToolHandler('${name}', async () => []);\n`;

describe('a .gitignore line a backtracking engine freezes on, beside a long file name', () => {
  let project: Awaited<ReturnType<typeof startProject>>;
  const longName = `${'a'.repeat(48)}.ts`;

  before(async () => {
    project = await startProject('10xgraph-hostile-gitignore-', (ws) => {
      writeFileSync(join(ws, '.gitignore'), `${'*a'.repeat(13)}*b\ngenerated/\n`);
      // The pattern ends in b: the long name is not ignored, and its handler counts; a folder whose name matches is ignored.
      writeFileSync(join(ws, longName), handler('search_notes'));
      mkdirSync(join(ws, `${'a'.repeat(13)}b`));
      writeFileSync(join(ws, `${'a'.repeat(13)}b`, 'handlers.ts'), handler('read_clipboard'));
      mkdirSync(join(ws, 'generated'));
      writeFileSync(join(ws, 'generated', 'handlers.ts'), handler('read_clipboard'));
    });
  });
  after(async () => {
    await project.client.stop();
    rmSync(project.ws, { recursive: true, force: true });
  });

  test('the index is built, documentSymbol answers, and the lines ignore what git ignores', async () => {
    const { client, config, ws } = project;
    await waitFor(() => client.logs.some((l) => /indexed \d+ source files/.test(l)), 'the index to be built');
    assert.ok(await answersSymbols(client, config), 'documentSymbol answered');
    assert.deepEqual(await referencesOf(client, config, 'search_notes'), [config, fileUri(join(ws, longName))].sort());
    assert.deepEqual(await referencesOf(client, config, 'read_clipboard'), [config, fileUri(join(ws, 'client.ts'))].sort());
  });
});

describe('watched-file events get the checks of the walk', () => {
  let project: Awaited<ReturnType<typeof startProject>>;
  const outside = tempFolder('10xgraph-hostile-outside-');

  before(async () => {
    writeFileSync(join(outside, 'secret.ts'), handler('search_notes'));
    mkdirSync(join(outside, 'many'));
    for (let i = 0; i < 20; i++) writeFileSync(join(outside, 'many', `h${i}.ts`), handler('search_notes'));
    project = await startProject('10xgraph-hostile-events-');
  });
  after(async () => {
    await project.client.stop();
    rmSync(project.ws, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const created = (ws: string, path: string) => ({ uri: fileUri(join(ws, path)), type: FileChangeType.Created });

  test('links to an outside file and folder are not followed', async () => {
    const { client, config, ws } = project;
    await waitFor(() => client.logs.some((l) => /indexed \d+ source files/.test(l)), 'the index to be built');
    symlinkSync(join(outside, 'secret.ts'), join(ws, 'linked.ts'));
    symlinkSync(join(outside, 'many'), join(ws, 'linked-folder'), 'dir');
    writeFileSync(join(ws, 'real.ts'), handler('read_clipboard'));
    // Events of one notification are applied in order: once real.ts is in, the links have been judged.
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: ['linked.ts', 'linked-folder', 'linked-folder/h0.ts', 'real.ts'].map((path) => created(ws, path)),
    });
    await waitFor(async () => (await referencesOf(client, config, 'read_clipboard')).includes(fileUri(join(ws, 'real.ts'))), 'real.ts to join the index');
    assert.deepEqual(await referencesOf(client, config, 'search_notes'), [config], 'nothing behind a link was read');
  });

  test('an event naming a FIFO does not block the index', async () => {
    const { client, config, ws } = project;
    execFileSync('mkfifo', [join(ws, 'pipe.ts')]);
    writeFileSync(join(ws, 'later.ts'), handler('get_user_location'));
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [created(ws, 'pipe.ts'), created(ws, 'later.ts')] });
    await waitFor(async () => (await referencesOf(client, config, 'get_user_location')).includes(fileUri(join(ws, 'later.ts'))), 'later.ts to join the index');
    // And it still takes events afterwards.
    writeFileSync(join(ws, 'last.ts'), handler('search_notes'));
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [created(ws, 'last.ts')] });
    await waitFor(async () => (await referencesOf(client, config, 'search_notes')).includes(fileUri(join(ws, 'last.ts'))), 'last.ts to join the index');
    assert.ok(await answersSymbols(client, config));
  });
});

describe('a FIFO named .gitignore', () => {
  let project: Awaited<ReturnType<typeof startProject>>;

  before(async () => {
    project = await startProject('10xgraph-hostile-fifo-', (ws) => {
      // Reading it would wait for a writer forever.
      mkdirSync(join(ws, 'sub'));
      execFileSync('mkfifo', [join(ws, 'sub', '.gitignore')]);
      writeFileSync(join(ws, 'sub', 'tools.ts'), handler('get_user_location'));
    });
  });
  after(async () => {
    await project.client.stop();
    rmSync(project.ws, { recursive: true, force: true });
  });

  test('is not read: the walk goes on and says so', async () => {
    const { client, config, ws } = project;
    await waitFor(() => client.logs.some((l) => /indexed \d+ source files/.test(l)), 'the index to be built');
    assert.ok(client.logs.includes(`10xgraph: ${join(ws, 'sub', '.gitignore')} is not read: it is not a regular file.`), client.logs.join('\n'));
    assert.ok((await referencesOf(client, config, 'get_user_location')).includes(fileUri(join(ws, 'sub', 'tools.ts'))));
  });
});

describe('a rename while documents outside the project are open', () => {
  let project: Awaited<ReturnType<typeof startProject>>;
  const outside = tempFolder('10xgraph-hostile-rename-outside-');
  const paths = { dependency: '', ignored: '', linked: '' };

  before(async () => {
    writeFileSync(join(outside, 'handlers.ts'), handler('read_clipboard'));
    project = await startProject('10xgraph-hostile-rename-', (ws) => {
      paths.dependency = join(ws, 'node_modules', 'some-client', 'index.js');
      mkdirSync(join(paths.dependency, '..'), { recursive: true });
      writeFileSync(paths.dependency, "client.registerToolHandler('read_clipboard', () => '');\nclient.registerToolHandler('read_clipbord', () => '');\n");
      writeFileSync(join(ws, '.gitignore'), 'generated/\n');
      paths.ignored = join(ws, 'generated', 'handlers.ts');
      mkdirSync(join(paths.ignored, '..'));
      writeFileSync(paths.ignored, handler('read_clipboard'));
      symlinkSync(outside, join(ws, 'linked'), 'dir');
      paths.linked = join(ws, 'linked', 'handlers.ts');
    });
  });
  after(async () => {
    await project.client.stop();
    rmSync(project.ws, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test('the edits stay in the project: a rename leaves the others alone, none starts outside, no quick fix edits them', async () => {
    const { client, config, ws } = project;
    await waitFor(() => client.logs.some((l) => /indexed \d+ source files/.test(l)), 'the index to be built');
    for (const path of Object.values(paths)) await client.open(fileUri(path), readFileSync(path, 'utf8'), path.endsWith('.js') ? 'javascript' : 'typescript');
    // Open, they are read (as references show); they are not the project's to edit.
    await waitFor(async () => (await referencesOf(client, config, 'read_clipboard')).length === 5, 'the open documents to be read');
    const position = inside(CONFIG_TEXT, '"read_clipboard"');
    const edit = (await client.connection.sendRequest(RenameRequest.type, { textDocument: { uri: config }, position, newName: 'read_text' })) as WorkspaceEdit;
    assert.deepEqual(Object.keys(edit.changes ?? {}).sort(), [config, fileUri(join(ws, 'client.ts'))].sort());
    const dependency = fileUri(paths.dependency);
    const inDependency = { textDocument: { uri: dependency }, position: { line: 0, character: 30 } };
    await assert.rejects(client.connection.sendRequest(PrepareRenameRequest.type, inDependency), /index\.js is not part of the project .* so a rename cannot start here/);
    await assert.rejects(client.connection.sendRequest(RenameRequest.type, { ...inDependency, newName: 'read_text' }), /is not part of the project/);
    // The misspelt registration is reported, but its "did you mean" fix would edit the dependency: none is offered.
    const diagnostics = await client.pushed(dependency, undefined, (d) => d.some((x) => x.code === 'handler-undeclared'));
    const actions = await client.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: dependency },
      range: diagnostics[0].range,
      context: { diagnostics, only: ['quickfix'] },
    });
    assert.deepEqual(actions, []);
  });
});

describe('an open source of 2 MB with 50,001 handler registrations', () => {
  let project: Awaited<ReturnType<typeof startProject>>;

  before(async () => {
    project = await startProject('10xgraph-hostile-huge-');
  });
  after(async () => {
    await project.client.stop();
    rmSync(project.ws, { recursive: true, force: true });
  });

  test('is not read for handlers (the log says so), and the server keeps answering', async () => {
    const { client, config, ws } = project;
    await waitFor(() => client.logs.some((l) => /indexed \d+ source files/.test(l)), 'the index to be built');
    const path = join(ws, 'huge.ts');
    const text = "c.registerToolHandler('search_notes',f);\n".repeat(50_001);
    assert.ok(text.length > 2_000_000);
    const uri = fileUri(path);
    await client.open(uri, text, 'typescript');
    await waitFor(
      () =>
        client.logs.includes(`10xgraph: ${path} is larger than 512 KB (the bound of a source the project index reads), so its handlers and nodes are not read while it is open.`),
      'the server to say the source is too large',
    );
    assert.ok(await answersSymbols(client, config));
    await client.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// edited\n' }]);
    assert.ok(await answersSymbols(client, config));
    assert.deepEqual(await referencesOf(client, config, 'search_notes'), [config]);
    assert.equal(client.logs.filter((l) => l.includes('is larger than 512 KB')).length, 1, 'said once, not at every edit');
    await client.close(uri);
  });
});
