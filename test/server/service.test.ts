/**
 * The language service in-process (no server spawned, no connection): every feature the server
 * offers, called as a plain function over a config's text, the facts it is judged with and the
 * client's options, with the results asserted exactly (items, ranges, edits, hover text).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection, TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, DocumentSymbol, Location, MarkupContent, SymbolInformation, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { FILE_FIELDS, type Graph, readFromSourceNote } from '../../runtime/src/rules/index';
import { type CheckedConfig, type ConfigState, FIX_ALL_KIND, getLanguageService, type ProjectFacts } from '../../server/src/service/index';
import { ServerProject } from '../../server/src/lsp/project';
import type { AgentSource } from '../../server/src/project';
import { SettingsStore } from '../../server/src/lsp/settings';
import { FILE_TOO_LARGE_CODE, MAX_DOCUMENT_LENGTH } from '../../server/src/diagnostics';
import { fileUri, ROOT, tempFolder } from '../support/lspClient';
import { poll } from '../support/poll';
import { inside, marked, rangeOf } from '../support/textMarks';
import { flatSymbolShape, SYMBOLS_CONFIG, SYMBOLS_FLAT, SYMBOLS_TREE, symbolShape } from './symbolFixture';

const GRAPH: Graph = {
  origin: 'live',
  toolsKnown: true,
  version: '0.1.0',
  nodes: [
    { name: 'agent', kind: 'model_node' },
    {
      name: 'TOOL',
      kind: 'tool_node',
      tools: [
        { name: 'get_time', description: 'Get the current time on the server.', source: 'local' },
        { name: 'get_user_location', description: "Get the user's current location.", source: 'remote' },
      ],
    },
    { name: 'format_answer', kind: 'function_node' },
  ],
  edges: [
    { source: 'agent', target: 'TOOL' },
    { source: 'TOOL', target: 'agent' },
  ],
};

const service = getLanguageService();
let version = 0;

/** Checks `text` as the config `file:///work/10xgraph.json`. */
function check(text: string, facts: ProjectFacts = {}): ConfigState {
  return service.checkConfig({ uri: 'file:///work/10xgraph.json', version: ++version, text }, facts);
}

function checked(text: string, facts: ProjectFacts = {}): CheckedConfig {
  const config = check(text, facts);
  assert.ok(config.analysis, 'the config is checked');
  return config as CheckedConfig;
}

function apply(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'json', 1, text), [...edits]);
}

const BROKEN = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOLS", "name": "read clipboard", "desc": "Read the clipboard.", "parameters": { "type": "object" } }
  ]
}
`;

/**
 * A copy of `fixture` in `ws`, indexed by a `ServerProject` (its open documents: `open`, only what
 * the project reads of them), and the language service over it; `unreadSourceOf` stands in for
 * the document states.
 */
async function indexedProject(
  fixture: string,
  ws: string,
  open: ReadonlyMap<string, TextDocument>,
  unreadSourceOf: () => AgentSource | undefined = () => undefined,
): Promise<{ project: ServerProject; service: ReturnType<typeof getLanguageService> }> {
  cpSync(fixture, ws, { recursive: true });
  const logger = { log: () => undefined, logError: (where: string, error: unknown) => assert.fail(`${where}: ${String(error)}`) };
  const connection = {} as Connection;
  const settings = new SettingsStore(connection, logger, () => undefined);
  settings.folders = [fileUri(ws)];
  const project = new ServerProject({
    connection,
    documents: { get: (uri: string) => open.get(uri), all: () => [...open.values()] } as unknown as TextDocuments<TextDocument>,
    settings,
    logger,
    now: Date.now,
    changed: () => undefined,
    diagnosticsSettled: async () => undefined,
    unreadSourceOf,
  });
  await project.index();
  await poll('the project index', () => project.service.index.complete && project.service.index.generation > 0);
  return { project, service: getLanguageService({ project: project.features }) };
}

describe('the language service, in-process', () => {
  describe('diagnostics', () => {
    test('the rule set’s problems with their codes, ranges and fixes', () => {
      const diagnostics = service.doValidation(check(BROKEN, { graph: GRAPH }));
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.range]),
        [
          ['node-not-found', rangeOf(BROKEN, '"TOOLS"')],
          ['invalid-tool-name', rangeOf(BROKEN, '"read clipboard"')],
          ['unknown-field', rangeOf(BROKEN, '"desc"')],
        ],
      );
      assert.equal(diagnostics[0].codeDescription?.href.endsWith('rules.md#node-not-found'), true);
      assert.equal(diagnostics[0].source, '10xgraph');
    });

    test('without a graph, node names are not judged; with one read from the source, its node diagnostics say so', () => {
      assert.deepEqual(
        service.doValidation(check(BROKEN)).map((d) => d.code),
        ['invalid-tool-name', 'unknown-field'],
      );
      const note = ' (Judged on the graph read from graph.ts; no server graph is in use.)';
      const fromSource = service.doValidation(check(BROKEN, { graph: { ...GRAPH, origin: 'loaded' }, sourceGraph: { fileName: 'graph.ts', note } }));
      assert.ok(fromSource[0].message.endsWith(note), fromSource[0].message);
      assert.ok(!fromSource[1].message.endsWith(note));
    });

    test('a text that is not JSON gets its syntax error; a file too large one diagnostic', () => {
      const text = '{ "agent": "graph:app", }';
      assert.deepEqual(
        service.doValidation(check(text)).map((d) => [d.code, d.range]),
        [['invalid-json', rangeOf(text, ',')]],
      );
      const large = check(`{"agent": "graph:app", "x": "${'a'.repeat(MAX_DOCUMENT_LENGTH)}"}`);
      assert.equal(large.analysis, undefined);
      const [diagnostic, ...rest] = service.doValidation(large);
      assert.deepEqual(rest, []);
      assert.deepEqual([diagnostic.code, diagnostic.range], [FILE_TOO_LARGE_CODE, { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }]);
    });
  });

  describe('completion', () => {
    const complete = (source: string, facts: ProjectFacts = { graph: GRAPH }, snippets = true) => {
      const { text, position } = marked(source);
      return { text, items: service.doComplete(checked(text, facts), position, { snippets }) };
    };

    test('the fields a tool lacks, as snippets or as plain text', () => {
      const { items, text } = complete('{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", | }]}');
      assert.deepEqual(
        items.map((i) => i.label),
        ['name', 'description', 'parameters'],
      );
      assert.equal(apply(text, [items[0].textEdit as TextEdit]), '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "${1:tool_name}" }]}');
      const plain = complete('{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", | }]}', { graph: GRAPH }, false);
      assert.equal(apply(plain.text, [plain.items[0].textEdit as TextEdit]), '{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "tool_name" }]}');
    });

    test('ToolNode names from the graph, none without one; root keys; agent specs first', () => {
      const nodes = complete('{"agent": "graph:app", "remote_tools": [{ "node": "|" }]}');
      assert.deepEqual(
        nodes.items.map((i) => [i.label, i.detail]),
        [['TOOL', 'ToolNode · 2 tools']],
      );
      assert.deepEqual(complete('{"agent": "graph:app", "remote_tools": [{ "node": "|" }]}', {}).items, []);
      assert.deepEqual(
        complete('{ | }').items.map((i) => i.label),
        Object.keys(FILE_FIELDS),
      );
      const agents = complete('{ "agent": "|" }', { agents: { modules: [], candidates: ['graph:app'] } });
      assert.equal(agents.items[0].label, 'graph:app');
      assert.equal(agents.items[0].preselect, true);
    });
  });

  describe('hover', () => {
    const hover = (source: string, facts: ProjectFacts = { graph: GRAPH }, status?: Parameters<typeof service.doHover>[2]) => {
      const { text, position } = marked(source);
      const result = service.doHover(checked(text, facts), position, status);
      return result ? (result.contents as MarkupContent).value : undefined;
    };

    test('a field says what it means and links its rules', () => {
      const text = hover('{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "a", "des|cription": "Read the clipboard." }]}');
      assert.match(text!, /^\*\*description\*\* — Required, non-blank string\./);
      assert.match(text!, /rules\.md#vague-description/);
    });

    test('a node and a tool name: what the graph says of them', () => {
      const status = { url: 'http://127.0.0.1:8000', state: 'connected' as const, nodeCount: 3, rulesetVersion: '0.1.0', fetchedAt: Date.now() };
      const node = hover('{"agent": "graph:app", "remote_tools": [{ "node": "TO|OL" }]}', { graph: { ...GRAPH, fetchedAt: Date.now() } }, status);
      assert.match(node!, /`TOOL` is a ToolNode in the live graph of the server at http:\/\/127\.0\.0\.1:8000/);
      assert.match(node!, /Edges: from `agent`; to `agent`/);
      assert.match(node!, /`get_time` \(server tool\)/);
      const attached = hover('{"agent": "graph:app", "remote_tools": [{ "node": "TOOL", "name": "get_user|_location" }]}', { graph: GRAPH }, status);
      assert.match(attached!, /`get_user_location` is attached to `TOOL` as a remote tool/);
      const fromSource = hover('{"agent": "graph:app", "remote_tools": [{ "node": "a|gent" }]}', {
        graph: { ...GRAPH, origin: 'loaded' },
        sourceGraph: { fileName: 'graph.ts', note: '' },
      });
      assert.match(fromSource!, /is a model node in the graph read from graph\.ts/);
    });
  });

  describe('symbols, folding, selection ranges and formatting', () => {
    const SOURCE = SYMBOLS_CONFIG;

    test('symbols: each tool under its node, hierarchical or flat', () => {
      const config = checked(SOURCE);
      const symbols = service.findDocumentSymbols(config, { hierarchicalSymbols: true }) as DocumentSymbol[];
      assert.deepEqual(symbols.map(symbolShape), SYMBOLS_TREE);
      assert.deepEqual(symbols[1].selectionRange, rangeOf(SOURCE, '"TOOL"'));
      const flat = service.findDocumentSymbols(config) as SymbolInformation[];
      assert.deepEqual(flatSymbolShape(flat), SYMBOLS_FLAT);
    });

    test('folding ranges and the selection chain at a name', () => {
      const config = checked(SOURCE);
      const folds = service.getFoldingRanges(config);
      assert.ok(folds.some((f) => f.startLine === 0 && f.endLine === 6));
      assert.ok(folds.some((f) => f.startLine === 2 && f.endLine === 5));
      const [selection] = service.getSelectionRanges(config, [inside(SOURCE, '"b"')]);
      const chain = [];
      for (let s: typeof selection | undefined = selection; s; s = s.parent) chain.push(s.range);
      assert.deepEqual(chain[0], rangeOf(SOURCE, '"b"'));
      assert.deepEqual(chain[1], rangeOf(SOURCE, '"name": "b"'));
      assert.deepEqual(chain[chain.length - 1].start, { line: 0, character: 0 });
    });

    test("formatting with the client's indentation, the whole file or a range", () => {
      const text = '{"agent":"graph:app","remote_tools":[{"node":"TOOL","name":"a"}]}';
      const config = checked(text);
      assert.equal(
        apply(text, service.format(config, { tabSize: 2, insertSpaces: true })),
        '{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      "name": "a"\n    }\n  ]\n}',
      );
      assert.equal(
        apply(text, service.format(config, { tabSize: 4, insertSpaces: false })),
        '{\n\t"agent": "graph:app",\n\t"remote_tools": [\n\t\t{\n\t\t\t"node": "TOOL",\n\t\t\t"name": "a"\n\t\t}\n\t]\n}',
      );
      const messy = '{\n"agent":   "graph:app",\n"x":1}';
      const line = { start: { line: 1, character: 0 }, end: rangeOf(messy, '"graph:app",').end };
      // Inside the range only: the line's spacing is mended, the line after it is left as it was.
      assert.equal(apply(messy, service.format(checked(messy), { tabSize: 2, insertSpaces: true }, line)), '{\n"agent": "graph:app",\n"x":1}');
    });
  });

  describe('code actions', () => {
    test('a quick fix per fix of a diagnostic, and the fix-all action', () => {
      const config = checked(BROKEN, { graph: GRAPH });
      const diagnostics = service.doValidation(config);
      const unknown = diagnostics.find((d) => d.code === 'unknown-field')!;
      const actions = service.doCodeActions(config, { diagnostics: [unknown] });
      const rename = actions.find((a) => a.kind === 'quickfix' && a.title.includes('description')) as CodeAction;
      assert.ok(rename, JSON.stringify(actions.map((a) => a.title)));
      assert.equal(apply(BROKEN, rename.edit!.changes![config.uri]), BROKEN.replace('"desc"', '"description"'));
      const fixAll = actions.find((a) => a.kind === FIX_ALL_KIND)!;
      assert.ok(fixAll, 'the fix-all action is offered when no kind is asked for');
      const fixed = apply(BROKEN, fixAll.edit!.changes![config.uri]);
      assert.equal(fixed, config.safeFixes().text);
      assert.notEqual(fixed, BROKEN);
      // Versioned edits for a client that accepts them; only the kinds asked for.
      const versioned = service.doCodeActions(config, { diagnostics: [unknown], only: ['quickfix'] }, { documentChanges: true });
      assert.ok(versioned.every((a) => a.kind === 'quickfix'));
      const change = versioned[0].edit!.documentChanges![0] as { textDocument: { version: number } };
      assert.equal(change.textDocument.version, config.version);
      assert.deepEqual(
        service.doCodeActions(config, { diagnostics: [], only: [FIX_ALL_KIND] }).map((a) => a.kind),
        [FIX_ALL_KIND],
      );
    });

    test('the refetch fix of a node the live graph lacks becomes the refresh command', () => {
      const config = checked(BROKEN, { graph: GRAPH });
      const notFound = service.doValidation(config).find((d) => d.code === 'node-not-found')!;
      const commands = service.doCodeActions(config, { diagnostics: [notFound] }).filter((a) => a.command);
      assert.deepEqual(
        commands.map((a) => [a.command!.command, a.command!.arguments]),
        [['10xgraph.refreshGraph', [config.uri]]],
      );
    });
  });

  describe('the project: navigation, rename, lenses, links and project diagnostics', () => {
    const ws = tempFolder('10xgraph-service-project-');
    const configPath = join(ws, '10xgraph.json');
    const graphTs = join(ws, 'graph.ts');
    const clientTs = join(ws, 'client.ts');
    const handlersJs = join(ws, 'web', 'handlers.js');
    let project: ServerProject;
    const open = new Map<string, TextDocument>();
    let projectService: ReturnType<typeof getLanguageService>;
    let text = '';
    let config: CheckedConfig;
    const sorted = (locations: Location[]) =>
      locations.map(({ uri, range }) => ({ uri, range })).sort((a, b) => a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line);

    before(async () => {
      ({ project, service: projectService } = await indexedProject(join(ROOT, 'test', 'fixtures', 'project'), ws, open));
      text = readFileSync(configPath, 'utf8');
      config = projectService.checkConfig({ uri: fileUri(configPath), version: 1, text }, {}) as CheckedConfig;
    });

    test('the project diagnostics of a config: the tool no source handles', () => {
      const diagnostics = projectService.doValidation(config);
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.range]),
        [['handler-missing', rangeOf(text, '"search_notes"')]],
      );
      assert.deepEqual(projectService.doProjectValidation(config), diagnostics);
      assert.deepEqual(service.doValidation(config), [], 'a service without a project has none');
    });

    test('definition and references of a node and a tool name', async () => {
      const uri = config.uri;
      assert.deepEqual(sorted(await projectService.findDefinition(uri, inside(text, '"TOOL"'), config)), [
        { uri: fileUri(graphTs), range: rangeOf(readFileSync(graphTs, 'utf8'), "'TOOL'") },
      ]);
      const handlers = sorted([
        { uri: fileUri(clientTs), range: rangeOf(readFileSync(clientTs, 'utf8'), "'get_user_location'") },
        { uri: fileUri(handlersJs), range: rangeOf(readFileSync(handlersJs, 'utf8'), '"get_user_location"') },
      ]);
      assert.deepEqual(sorted(await projectService.findDefinition(uri, inside(text, '"get_user_location"'), config)), handlers);
      assert.deepEqual(await projectService.findDefinition(uri, inside(text, '"description"'), config), []);
      assert.deepEqual(
        sorted(await projectService.findReferences(uri, inside(text, '"get_user_location"'), true, config)),
        sorted([{ uri, range: rangeOf(text, '"get_user_location"') }, ...handlers]),
      );
      assert.deepEqual(await service.findDefinition(uri, inside(text, '"TOOL"'), config), [], 'a service without a project has none');
    });

    test('prepare rename and rename of a tool: the config and every handler', async () => {
      const uri = config.uri;
      const position = inside(text, '"read_clipboard"');
      assert.deepEqual(await projectService.prepareRename(uri, position, config), { range: rangeOf(text, 'read_clipboard'), placeholder: 'read_clipboard' });
      const edit = (await projectService.doRename(uri, position, 'read_text', config)) as WorkspaceEdit;
      assert.deepEqual(edit.changes, {
        [uri]: [{ range: rangeOf(text, 'read_clipboard'), newText: 'read_text' }],
        [fileUri(clientTs)]: [{ range: rangeOf(readFileSync(clientTs, 'utf8'), 'read_clipboard'), newText: 'read_text' }],
      });
      await assert.rejects(projectService.prepareRename(uri, inside(text, '"TOOL"'), config), /Only a remote tool's "name" can be renamed/);
    });

    test('code lenses above each tool and the link of agent', async () => {
      assert.deepEqual(
        projectService.getCodeLenses(config).map((l) => [l.range.start.line, l.command?.title]),
        [
          [rangeOf(text, '{\n      "node": "TOOL",\n      "name": "get_user_location"').start.line, '2 handlers: client.ts:5, handlers.js:3 · attached to TOOL'],
          [rangeOf(text, '{\n      "node": "TOOL",\n      "name": "read_clipboard"').start.line, 'handler in client.ts:6 · attached to TOOL'],
          [rangeOf(text, '{\n      "node": "TOOL",\n      "name": "search_notes"').start.line, 'no handler · attached to TOOL'],
        ],
      );
      assert.deepEqual(
        (await projectService.findDocumentLinks(config)).map((l) => ({ target: l.target, range: l.range })),
        [{ target: fileUri(graphTs), range: rangeOf(text, 'graph:app') }],
      );
    });

    test('completion of the declared tool names in a source', async () => {
      const source = "client.registerToolHandler('";
      const uri = fileUri(join(ws, 'extra.ts'));
      open.set(uri, TextDocument.create(uri, 'typescript', 1, source));
      const items = projectService.doSourceComplete(uri, { line: 0, character: source.length });
      assert.deepEqual(items.map((i) => i.label).sort(), ['get_user_location', 'read_clipboard', 'search_notes']);
      assert.deepEqual(service.doSourceComplete(uri, { line: 0, character: source.length }), []);
    });
  });

  describe('a Python project: the graph read from graph/react.py, definition, references and the link of agent', () => {
    const ws = tempFolder('10xgraph-service-python-');
    const configPath = join(ws, '10xgraph.json');
    const reactPy = join(ws, 'graph', 'react.py');
    let project: ServerProject;
    let pythonService: ReturnType<typeof getLanguageService>;
    let unread: AgentSource | undefined;
    let text = '';
    let config: CheckedConfig;
    /** The name literal of `add_node("NAME", ...)` in graph/react.py. */
    const addNodeName = (name: string) => {
      const call = rangeOf(readFileSync(reactPy, 'utf8'), `add_node("${name}"`);
      const start = { line: call.start.line, character: call.start.character + 'add_node('.length };
      return { start, end: { line: start.line, character: start.character + name.length + 2 } };
    };

    before(async () => {
      ({ project, service: pythonService } = await indexedProject(join(ROOT, 'examples', 'python'), ws, new Map(), () => unread));
      text = readFileSync(configPath, 'utf8');
      config = pythonService.checkConfig({ uri: fileUri(configPath), version: 1, text }, {}) as CheckedConfig;
    });

    test('the graph read from graph/react.py judges node names, its messages name it', async () => {
      const source = await project.service.agentSource(config.uri, 'graph.react:app');
      assert.equal(source?.shown, 'graph/react.py');
      assert.deepEqual(source?.graph?.nodes, [
        { name: 'MAIN', kind: 'model_node' },
        { name: 'TOOL', kind: 'tool_node' },
      ]);
      const wrong = text.replace('"node": "TOOL"', '"node": "TOOLS"');
      const judged = pythonService.checkConfig(
        { uri: config.uri, version: 2, text: wrong },
        { graph: source!.graph!, sourceGraph: { fileName: source!.shown!, note: readFromSourceNote(source!.file, source!.shown) } },
      ) as CheckedConfig;
      const diagnostics = pythonService.doValidation(judged);
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.range]),
        [['node-not-found', rangeOf(wrong, '"TOOLS"')]],
      );
      assert.match(diagnostics[0].message, /\(Judged on the graph read from graph\/react\.py; no server graph is in use\.\)$/);
    });

    test('a module that cannot be read exactly: graph-not-read on agent with the reason', () => {
      unread = {
        file: reactPy,
        shown: 'graph/react.py',
        tell: true,
        reason: 'graph/react.py not read (a reason), so node names are not checked without a running server.',
        facts: { handlers: [], nodes: [] },
      };
      try {
        assert.deepEqual(
          pythonService.doProjectValidation(config).map((d) => [d.code, d.range, d.message]),
          [['graph-not-read', rangeOf(text, '"graph.react:app"'), unread.reason]],
        );
      } finally {
        unread = undefined;
      }
    });

    test('definition and references of a node reach add_node in graph/react.py; agent links to the module', async () => {
      const uri = config.uri;
      assert.deepEqual(
        (await pythonService.findDefinition(uri, inside(text, '"TOOL"'), config)).map(({ uri, range }) => ({ uri, range })),
        [{ uri: fileUri(reactPy), range: addNodeName('TOOL') }],
      );
      assert.deepEqual(
        (await pythonService.findReferences(uri, inside(text, '"TOOL"'), true, config)).map(({ uri, range }) => ({ uri, range })),
        [
          { uri: fileUri(reactPy), range: addNodeName('TOOL') },
          { uri, range: rangeOf(text, '"TOOL"') },
          { uri, range: rangeOf(text, '"TOOL"', 1) },
        ],
      );
      assert.deepEqual(
        (await pythonService.findDocumentLinks(config)).map((l) => ({ target: l.target, range: l.range })),
        [{ target: fileUri(reactPy), range: rangeOf(text, 'graph.react:app') }],
      );
      assert.deepEqual(
        pythonService.getCodeLenses(config).map((l) => l.command?.title),
        ['handler in client.ts:21 · attached to TOOL', 'handler in client.ts:21 · attached to TOOL'],
      );
    });
  });
});
