/**
 * The packages as a user gets them: `scripts/package.mjs` packs the tarballs once, then in a
 * temporary folder outside the repository a new project (`npm init -y`) installs them (their
 * dependencies come from the registry or npm's cache) and the language server is installed
 * globally into a temporary prefix. Then, as that user: each package has its README.md, the
 * docs' client snippets compile with `tsc --strict`, `10xgraph-client` loads through `require`
 * and `import`, `npx 10xgraph audit`
 * and `npx 10xgraph types` judge the user's config, `npx 10xgraph api` serves the user's own
 * TypeScript graph, and the installed `10xgraph-language-server --stdio` answers an editor.
 * A second project installs `10xgraph` and `10xgraph-client` alone, as an agent module's project
 * does: nothing native and no compiler in its node_modules, its graph runs, and a command that needs
 * an optional peer the project lacks exits 2 saying which and how to install it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  DidOpenTextDocumentNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { poll } from '../support/poll';
import { extractClientSnippets } from './snippets';
import { findE2eTools } from '../e2e/support/tools';
import { killUserApis, must, packTarballs, QUIET_INSTALL, ROOT, run, startUserApi, stopUserApi, userEnv, VERSION, versionOf } from './helpers';

const GOOD_CONFIG = {
  agent: 'graph:app',
  remote_tools: [
    {
      node: 'tools',
      name: 'get_user_location',
      description: "Get the user's current location using the browser geolocation API.",
      parameters: { type: 'object', properties: { timeout_ms: { type: 'number', description: 'Maximum time to wait in milliseconds.' } }, required: [] },
    },
    {
      node: 'tools',
      name: 'search_local_database',
      description: "Search the user's local database for records matching a query.",
      parameters: { type: 'object', properties: { query: { type: 'string' }, max_rows: { type: 'integer' } }, required: ['query'] },
    },
    { node: 'tools', name: 'read_clipboard', description: "Read the text currently on the user's clipboard." },
  ],
};

/** A user's own graph: a scripted model that calls the location tool, and a ToolNode `tools`. */
const USER_GRAPH = `import { END, ModelNode, ScriptedModel, StateGraph, ToolNode, toolsCondition } from '10xgraph';

const model = new ScriptedModel({
  rules: [{ when: /where/i, call: 'get_user_location', args: () => ({ timeout_ms: 500 }) }],
  reply: (text: string) => 'You said: ' + text,
});

export const app = new StateGraph()
  .addNode('planner', new ModelNode(model))
  .addNode('tools', new ToolNode([]))
  .setEntryPoint('planner')
  .addConditionalEdges('planner', toolsCondition, ['tools', END])
  .addEdge('tools', 'planner')
  .compile({ name: 'user-graph' });
`;

/** Packages that compile code: none belongs in the project of an agent module. */
const COMPILERS = ['esbuild', 'typescript', 'json-schema-to-typescript', 'prettier'];

/** An agent module in JavaScript, as a project without a compiler writes it: a function node, a model node and a ToolNode. */
const AGENT_GRAPH = `import { END, ModelNode, ScriptedModel, StateGraph, ToolNode, textMessage, toolsCondition } from '10xgraph';

const model = new ScriptedModel({ rules: [{ when: /where/i, call: 'get_user_location' }] });

export const app = new StateGraph()
  .addNode('greet', () => [textMessage('Hello!', 'assistant')])
  .addNode('planner', new ModelNode(model))
  .addNode('tools', new ToolNode([]))
  .setEntryPoint('greet')
  .addEdge('greet', 'planner')
  .addConditionalEdges('planner', toolsCondition, ['tools', END])
  .addEdge('tools', 'planner')
  .compile({ name: 'agent-only' });
`;

/** Runs the agent module's graph in-process (the remote tools attached as \`10xgraph api\` would) and prints what it did. */
const AGENT_RUN = `import { textMessage, textOf } from '10xgraph';
import { app } from './graph.mjs';
app.attachRemoteTools([{ name: 'get_user_location', description: "Get the user's location." }], 'tools');
const result = await app.invoke({ messages: [textMessage('Where am I?')] });
const calls = result.pendingRemoteCalls.map((call) => call.name);
console.log(JSON.stringify({ nodes: app.describe().nodes.map((n) => n.name), status: result.status, calls, text: textOf(result.messages[0]) }));
`;

const STRICT_TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: ['node'],
    esModuleInterop: true,
    noEmit: true,
    skipLibCheck: false,
  },
};

describe('the packages, installed outside the repository', { timeout: 900_000 }, () => {
  let work: string;
  let project: string;
  let globalPrefix: string;
  const tarball = (name: string) => join(work, 'artifacts', `${name}-${VERSION}.tgz`);
  const tsc = () => join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  const servers: ChildProcess[] = [];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), '10xgraph-packages-'));
    await packTarballs(join(work, 'artifacts'));
    project = join(work, 'project');
    globalPrefix = join(work, 'global');
    mkdirSync(project);
    await must('npm', ['init', '-y'], project);
    // The project's install builds better-sqlite3; the global one is independent: both at once.
    await Promise.all([
      must(
        'npm',
        [
          'install',
          ...QUIET_INSTALL,
          tarball('10xgraph-client'),
          tarball('10xgraph'),
          // The optional peers that `10xgraph api`, `audit` of a graph.ts and `types` load.
          `esbuild@${versionOf('esbuild')}`,
          `better-sqlite3@${versionOf('better-sqlite3')}`,
          `json-schema-to-typescript@${versionOf('json-schema-to-typescript')}`,
          `typescript@${versionOf('typescript')}`,
          `@types/node@${versionOf('@types/node')}`,
          `ws@${versionOf('ws')}`,
          `@types/ws@${versionOf('@types/ws')}`,
        ],
        project,
        { timeoutMs: 600_000 },
      ),
      must('npm', ['install', '-g', '--prefix', globalPrefix, ...QUIET_INSTALL, tarball('10xgraph-language-server')], work, { timeoutMs: 300_000 }),
    ]);
    writeFileSync(join(project, '10xgraph.json'), JSON.stringify(GOOD_CONFIG, null, 2) + '\n');
    writeFileSync(join(project, 'graph.ts'), USER_GRAPH);
  });

  after(async () => {
    killUserApis(servers);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("each installed package has its README.md, the repository's text of it", () => {
    const installed: Array<[string, string]> = [
      [join(project, 'node_modules', '10xgraph', 'README.md'), join(ROOT, 'runtime', 'README.md')],
      [join(project, 'node_modules', '10xgraph-client', 'README.md'), join(ROOT, 'client-sdk', 'README.md')],
      [join(globalPrefix, 'lib', 'node_modules', '10xgraph-language-server', 'README.md'), join(ROOT, 'server', 'README.md')],
    ];
    for (const [file, source] of installed) {
      assert.ok(existsSync(file), `${file} is missing: the package ships no README.md`);
      assert.equal(readFileSync(file, 'utf8'), readFileSync(source, 'utf8'), `${file} is not ${source}`);
    }
  });

  test('10xgraph-client declares no dependencies, and loads through require and import', async () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', '10xgraph-client', 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.dependencies, undefined);
    const probe =
      "const text = Message.text(Message.text_message('hi')); const client = new TenxGraphClient({ baseUrl: 'http://127.0.0.1:1' }); console.log(typeof TenxGraphClient, text, typeof client.registerToolHandler);";
    const required = await must(process.execPath, ['-e', `const { TenxGraphClient, Message } = require('10xgraph-client'); ${probe}`], project);
    assert.equal(required.stdout.trim(), 'function hi function');
    const imported = await must(process.execPath, ['--input-type=module', '-e', `import { TenxGraphClient, Message } from '10xgraph-client'; ${probe}`], project);
    assert.equal(imported.stdout.trim(), 'function hi function');
    // The same package through the runtime's re-export, not a second copy.
    const same = await must(process.execPath, ['-e', "console.log(require('10xgraph/client').TenxGraphClient === require('10xgraph-client').TenxGraphClient)"], project);
    assert.equal(same.stdout.trim(), 'true');
  });

  /**
   * One strict type-check of everything a user would write (tsc is the slow part of this suite):
   * the docs' snippets beside the types `npx 10xgraph types` generated, and three handlers
   * written against those types: one right, one with a misspelt tool name, one with a wrong
   * argument type. Resolves to tsc's diagnostics by file.
   */
  let userCode: Promise<{ code: number | null; output: string; errorsByFile: Map<string, string[]> }> | undefined;
  const checkUserCode = () =>
    (userCode ??= (async () => {
      const folder = join(project, 'app');
      mkdirSync(folder);
      await must('npx', ['10xgraph', 'types', '--out', 'app/remote-tools.ts'], project);
      writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ ...STRICT_TSCONFIG, include: ['*.ts'] }, null, 2));
      for (const [i, snippet] of extractClientSnippets(ROOT).entries()) writeFileSync(join(folder, `snippet${i + 1}.ts`), `// ${snippet.source}\n${snippet.code}\nexport {};\n`);
      const header = "import { TenxGraphClient } from '10xgraph-client';\nimport type { RemoteTools } from './remote-tools';\nconst client = new TenxGraphClient<RemoteTools>();\n";
      writeFileSync(join(folder, 'typedGood.ts'), `${header}client.registerToolHandler('search_local_database', (args) => args.query.toUpperCase() + (args.max_rows ?? 10));\n`);
      writeFileSync(join(folder, 'typedMisspelt.ts'), `${header}client.registerToolHandler('get_user_locaton', () => ({ latitude: 0, longitude: 0 }));\n`);
      writeFileSync(join(folder, 'typedWrongArgs.ts'), `${header}client.registerToolHandler('search_local_database', (args: { query: number }) => args.query + 1);\n`);
      const ran = await run(process.execPath, [tsc(), '-p', folder, '--pretty', 'false'], project, { timeoutMs: 300_000 });
      const errorsByFile = new Map<string, string[]>();
      for (const line of ran.stdout.split('\n')) {
        const match = /^(?:app\/)?([^(/]+)\(\d+,\d+\): error /.exec(line);
        if (match) errorsByFile.set(match[1]!, [...(errorsByFile.get(match[1]!) ?? []), line]);
      }
      return { code: ran.code, output: ran.stdout + ran.stderr, errorsByFile };
    })());

  test("the docs' client snippets compile with tsc --strict against the installed 10xgraph-client", async () => {
    const snippets = extractClientSnippets(ROOT);
    assert.ok(snippets.length >= 2, `expected the README's client snippets, found ${snippets.length}`);
    const { output, errorsByFile } = await checkUserCode();
    const snippetErrors = [...errorsByFile].filter(([file]) => file.startsWith('snippet'));
    assert.deepEqual(snippetErrors, [], `tsc --strict rejected the docs' snippets (${snippets.map((s) => s.source).join(', ')}):\n${output}`);
    assert.ok(!/error TS/.test(output.replace(/^app\/typed(Misspelt|WrongArgs)\.ts.*$/gm, '')), output);

    // Node's own module resolution, as ESM and as CommonJS, finds the package's declarations too.
    const node = join(project, 'nodenext');
    mkdirSync(node);
    writeFileSync(
      join(node, 'esm.mts'),
      "import { TenxGraphClient, Message, type ToolHandler } from '10xgraph-client';\nconst handler: ToolHandler = (args) => args.query;\nnew TenxGraphClient().registerToolHandler('search', handler);\nMessage.text_message('hi');\n",
    );
    writeFileSync(join(node, 'cjs.cts'), "import client = require('10xgraph-client');\nnew client.TenxGraphClient().registerToolHandler('read_clipboard', () => 'text');\n");
    writeFileSync(
      join(node, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...STRICT_TSCONFIG.compilerOptions, module: 'NodeNext', moduleResolution: 'NodeNext', types: [] }, include: ['*.mts', '*.cts'] }),
    );
    const nodenext = await run(process.execPath, [tsc(), '-p', node, '--pretty', 'false'], project, { timeoutMs: 300_000 });
    assert.equal(nodenext.code, 0, `tsc (NodeNext) rejected the package:\n${nodenext.stdout}${nodenext.stderr}`);
  });

  test('with generated types a misspelt handler name or a wrong argument type does not compile', async () => {
    const { code, output, errorsByFile } = await checkUserCode();
    assert.notEqual(code, 0);
    assert.deepEqual([...errorsByFile.keys()].sort(), ['typedMisspelt.ts', 'typedWrongArgs.ts'], output);
    assert.match(errorsByFile.get('typedMisspelt.ts')!.join('\n'), /typedMisspelt\.ts\(4,\d+\): error TS2345: Argument of type '"get_user_locaton"' is not assignable/);
    assert.match(errorsByFile.get('typedWrongArgs.ts')!.join('\n'), /typedWrongArgs\.ts\(4,\d+\): error TS2345: .*query/);
  });

  test('npx 10xgraph types on a broken config reports its problems and writes nothing', async () => {
    const broken = JSON.stringify(
      { agent: 'graph:app', remote_tools: [{ node: 'tools', name: 'x', description: 'Find records by words.', parameters: { type: 'array' } }] },
      null,
      2,
    );
    writeFileSync(join(project, 'broken.json'), broken);
    const ran = await run('npx', ['10xgraph', 'types', 'broken.json', '--out', 'broken-types.ts'], project);
    assert.equal(ran.code, 1, ran.stderr);
    const line = broken.split('\n').findIndex((text) => text.includes('"array"')) + 1;
    assert.match(ran.stderr, new RegExp(`^broken\\.json:${line}:\\d+: error \\[parameters-type-not-object\\] `, 'm'));
    assert.match(ran.stderr, /no types written/);
    assert.equal(ran.stdout, '');
    assert.deepEqual(
      readdirSync(project).filter((name) => name.startsWith('broken-types')),
      [],
    );
  });

  test('npx 10xgraph audit passes a good config and fails a wrong node with its line', async () => {
    const good = await run('npx', ['10xgraph', 'audit'], project);
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.match(good.stdout, /^10xgraph\.json: no problems; graph loaded/m);

    const wrong = JSON.stringify({ ...GOOD_CONFIG, remote_tools: [{ ...GOOD_CONFIG.remote_tools[0], node: 'toolz' }] }, null, 2);
    writeFileSync(join(project, 'wrong.json'), wrong);
    const bad = await run('npx', ['10xgraph', 'audit', 'wrong.json'], project);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    const line = wrong.split('\n').findIndex((text) => text.includes('"toolz"')) + 1;
    assert.match(bad.stdout, new RegExp(`^wrong\\.json:${line}:\\d+: error \\[node-not-found\\] `, 'm'));
  });

  test("npx 10xgraph api serves the user's TypeScript graph, and the installed client runs the loop against it", async (t) => {
    const { server, url } = await startUserApi(['--port', '0', '--db', join(work, 'threads.sqlite')], project, servers);
    try {
      const response = await fetch(`${url}/v1/graph`);
      assert.equal(response.status, 200);
      const graph = (await response.json()) as { data: { nodes: Array<{ name: string; type?: string }> } };
      assert.deepEqual(
        graph.data.nodes.map((node) => [node.name, node.type]),
        [
          ['planner', 'model_node'],
          ['tools', 'tool_node'],
        ],
      );

      // A user's script: the installed client, `ws` passed in (Node 20), a typed handler.
      writeFileSync(
        join(project, 'client.mjs'),
        `import WebSocket from 'ws';
import { TenxGraphClient, Message, pendingRemoteCalls } from '10xgraph-client';
const client = new TenxGraphClient({ baseUrl: process.argv[2], WebSocket });
client.registerToolHandler('get_user_location', (args) => ({ latitude: 48.86, longitude: 2.29, waited: args.timeout_ms }));
const result = await client.invoke([Message.text_message('Where am I?')]);
const chunks = [];
for await (const chunk of client.stream('Where am I now?', { transport: 'ws' })) {
  const message = chunk.message;
  chunks.push(!message ? chunk.event : message.delta ? 'delta' : message.content.some((b) => b.type === 'remote_tool_call') ? 'remote_tool_call' : message.role);
}
client.close();
console.log(JSON.stringify({ pending: pendingRemoteCalls(result.messages).length, results: result.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result'), chunks }));
`,
      );
      const ran = await must(process.execPath, ['client.mjs', url], project);
      const outcome = JSON.parse(ran.stdout) as { pending: number; results: Array<{ status: string; is_error: boolean; output: unknown }>; chunks: string[] };
      assert.equal(outcome.pending, 0, 'the loop ended with no remote call unanswered');
      assert.deepEqual(
        outcome.results.map((r) => [r.status, r.is_error, r.output]),
        [['completed', false, { latitude: 48.86, longitude: 2.29, waited: 500 }]],
      );
      // The message echoed, the model's call, the ToolNode's remote call, the client's results, the answer streamed then whole.
      assert.equal(outcome.chunks[0], 'user', outcome.chunks.join(' '));
      assert.ok(outcome.chunks.includes('remote_tool_call'), outcome.chunks.join(' '));
      assert.ok(outcome.chunks.includes('tool'), outcome.chunks.join(' '));
      assert.ok(outcome.chunks.includes('delta'), outcome.chunks.join(' '));
      assert.equal(outcome.chunks.at(-1), 'assistant', outcome.chunks.join(' '));

      // Node 22+ has a WebSocket of its own: the client needs no `ws` there. Node 24 is the one
      // the e2e tools install (npm run setup:e2e; CI does); without it this part says so.
      const { tools, reason } = findE2eTools();
      await t.test("in Node 24 it streams over the platform's own WebSocket", { skip: reason ?? false }, async () => {
        writeFileSync(
          join(project, 'builtin.mjs'),
          `import { TenxGraphClient } from '10xgraph-client';
const client = new TenxGraphClient({ baseUrl: process.argv[2] }).registerToolHandler('get_user_location', () => ({ latitude: 1, longitude: 2 }));
const events = [];
for await (const chunk of client.stream('Where am I?', { transport: 'ws' })) {
  events.push(chunk.message?.content.some((b) => b.type === 'remote_tool_call') ? 'remote_tool_call' : chunk.message && !chunk.message.delta ? chunk.message.role : chunk.event);
}
client.close();
console.log(process.versions.node.split('.')[0], JSON.stringify(events));
`,
        );
        const builtin = await must(tools!.node, ['builtin.mjs', url], project);
        const [major, events] = builtin.stdout.trim().split(' ');
        assert.ok(Number(major) >= 22, builtin.stdout);
        const seen = JSON.parse(events!) as string[];
        assert.ok(seen.includes('remote_tool_call'), events);
        assert.equal(seen.at(-1), 'assistant', events);
      });
    } finally {
      await stopUserApi(server);
    }
    await assert.rejects(fetch(`${url}/ping`));
  });

  test('the globally installed 10xgraph-language-server --stdio answers initialize and publishes the diagnostics of a broken file', async () => {
    const installed = join(globalPrefix, 'lib', 'node_modules', '10xgraph-language-server');
    assert.equal(existsSync(join(installed, 'node_modules')), false, 'the language server must need no node_modules');
    const bin = join(globalPrefix, 'bin', '10xgraph-language-server');
    const folder = join(work, 'editor');
    mkdirSync(folder);
    const file = join(folder, '10xgraph.json');
    const text = '{\n  "agent": "graph:app",\n  "remote_tools": [\n    { "node": "TOOL", "name": "read_clipboard" }\n  ]\n}\n';
    writeFileSync(file, text);

    // As an editor starts it: the command on PATH, in the user's folder.
    const child = spawn(bin, ['--stdio'], { cwd: folder, env: userEnv({ PATH: `${join(globalPrefix, 'bin')}:${process.env.PATH}` }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const published: PublishDiagnosticsParams[] = [];
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => void published.push(params));
    connection.listen();
    try {
      const result = await connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: pathToFileURL(folder).href,
        workspaceFolders: [{ uri: pathToFileURL(folder).href, name: 'editor' }],
        capabilities: { textDocument: { publishDiagnostics: { codeDescriptionSupport: true, dataSupport: true } } },
        initializationOptions: { settings: { '10xgraph': { server: { enabled: false } } }, storagePath: join(work, 'ls-cache') },
      });
      assert.equal(result.serverInfo?.name, '10xgraph-language-server');
      assert.ok(result.capabilities.codeActionProvider);
      await connection.sendNotification(InitializedNotification.type, {});
      const uri = pathToFileURL(file).href;
      await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'json', version: 1, text } });
      const diagnostics = await poll(`diagnostics of ${uri} (stderr: ${stderr})`, () => published.find((p) => p.uri === uri)?.diagnostics, 30_000);
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.source, d.range.start.line]),
        [['missing-field', '10xgraph', 3]],
      );
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
      await poll('the language server to exit', () => child.exitCode !== null || child.signalCode !== null, 10_000);
      assert.equal(child.exitCode, 0);
    } finally {
      connection.dispose();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  describe("10xgraph and 10xgraph-client alone, in an agent module's project", () => {
    let agentProject: string;

    before(async () => {
      agentProject = join(work, 'agent-only');
      mkdirSync(agentProject);
      await must('npm', ['init', '-y'], agentProject);
      await must('npm', ['install', ...QUIET_INSTALL, tarball('10xgraph-client'), tarball('10xgraph')], agentProject, {
        timeoutMs: 300_000,
      });
      writeFileSync(join(agentProject, 'graph.mjs'), AGENT_GRAPH);
      writeFileSync(join(agentProject, '10xgraph.json'), JSON.stringify({ ...GOOD_CONFIG, agent: 'graph.mjs:app' }, null, 2) + '\n');
    });

    test('node_modules holds no native module and no compiler', () => {
      const found = { native: [] as string[], compilers: [] as string[] };
      const walk = (folder: string) => {
        for (const entry of readdirSync(folder, { withFileTypes: true })) {
          const path = join(folder, entry.name);
          const shown = path.slice(agentProject.length + 1);
          if (entry.isDirectory()) {
            if (COMPILERS.includes(entry.name) || (entry.name.startsWith('@esbuild') && folder.endsWith('node_modules'))) found.compilers.push(shown);
            walk(path);
          } else if (entry.name.endsWith('.node') || entry.name === 'binding.gyp') found.native.push(shown);
        }
      };
      walk(join(agentProject, 'node_modules'));
      assert.deepEqual(found, { native: [], compilers: [] });
      // The peers are declared, and optional: npm installed none of them.
      const manifest = JSON.parse(readFileSync(join(agentProject, 'node_modules', '10xgraph', 'package.json'), 'utf8')) as {
        peerDependencies: Record<string, string>;
        peerDependenciesMeta: Record<string, { optional?: boolean }>;
      };
      assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ['better-sqlite3', 'esbuild', 'ioredis', 'json-schema-to-typescript', 'pg']);
      for (const peer of Object.keys(manifest.peerDependencies)) {
        assert.equal(manifest.peerDependenciesMeta[peer]?.optional, true, `${peer} is an optional peer`);
        assert.equal(existsSync(join(agentProject, 'node_modules', peer)), false, `${peer} is not installed`);
      }
    });

    test("an agent module importing '10xgraph' builds its graph and runs it, and 10xgraph audit loads it", async () => {
      const ran = await must(process.execPath, ['--input-type=module', '-e', AGENT_RUN], agentProject);
      assert.deepEqual(JSON.parse(ran.stdout), { nodes: ['greet', 'planner', 'tools'], status: 'waiting', calls: ['get_user_location'], text: 'Hello!' });
      const audit = await run('npx', ['10xgraph', 'audit'], agentProject);
      assert.equal(audit.code, 0, audit.stdout + audit.stderr);
      assert.match(audit.stdout, /^10xgraph\.json: no problems; graph loaded from the agent module 'graph\.mjs:app'/m);
    });

    test('a command that needs an optional peer the project lacks exits 2 and says which and how to install it', async () => {
      writeFileSync(join(agentProject, 'ts.json'), JSON.stringify({ ...GOOD_CONFIG, agent: 'graph:app' }, null, 2) + '\n');
      writeFileSync(join(agentProject, 'graph.ts'), USER_GRAPH);
      const redisLimits = { requests: 10, window: 60, backend: 'redis', redis: { url: 'redis://127.0.0.1:1/0' } };
      // The project's own config (its agent a .mjs module, which needs no compiler), with limits in Redis.
      const own = JSON.parse(readFileSync(join(agentProject, '10xgraph.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(agentProject, 'redis.json'), JSON.stringify({ ...own, rate_limit: redisLimits }, null, 2) + '\n');
      const cases: Array<[string[], string]> = [
        [['api', '--port', '0', '--config', 'redis.json'], '10xgraph api: rate limits in Redis need the package ioredis: npm install ioredis'],
        [['api', '--port', '0'], '10xgraph api: threads in SQLite need the package better-sqlite3: npm install better-sqlite3'],
        [['api', '--port', '0', '--db', 'postgres://nobody@127.0.0.1:1/threads'], '10xgraph api: threads in PostgreSQL need the package pg: npm install pg'],
        [['api', '--port', '0', '--config', 'ts.json'], '10xgraph api: compiling graph.ts needs esbuild: npm install --save-dev esbuild'],
        [['audit', 'ts.json'], 'compiling graph.ts needs esbuild: npm install --save-dev esbuild'],
        [['types'], '10xgraph types needs json-schema-to-typescript and esbuild: npm install --save-dev json-schema-to-typescript esbuild'],
      ];
      for (const [args, message] of cases) {
        const ran = await run('npx', ['10xgraph', ...args], agentProject, { timeoutMs: 60_000 });
        assert.equal(ran.code, 2, `10xgraph ${args.join(' ')}: ${ran.stdout}${ran.stderr}`);
        assert.ok(ran.stderr.includes(message), `10xgraph ${args.join(' ')} says '${message}' on stderr; it said:\n${ran.stderr}`);
        assert.doesNotMatch(ran.stdout, /Listening on/);
      }
      // Nothing was made for the store that could not open.
      assert.equal(existsSync(join(agentProject, '.10xgraph')), false, 'no .10xgraph folder without better-sqlite3');
    });
  });
});
