/**
 * `10xgraph api` as a process (the built CLI): it refuses to start on config errors, printing
 * each as `FILE:LINE:COL: error [code] message` and exiting 1 without listening; it exits 2 when
 * it cannot run; it logs the attached tools, the warnings and its address, and stops on SIGTERM.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadAgentGraph } from '../../runtime/src/api/index';
import { formatProblemLine } from '../../runtime/src/rules/problemText';
import { analyzeConfig } from '../../runtime/src/rules/index';
import { ROOT } from './serverHelpers';
import { poll } from '../support/poll';

const CLI = resolve(ROOT, 'runtime', 'dist', 'cli.js');
// The quick start's graph, copied beside the configs (an agent module must be inside the
// config's folder), with a node_modules link so that its `import '10xgraph'` resolves.
const AGENT = 'graph:app';
const folder = mkdtempSync(join(tmpdir(), '10xgraph-api-cli-'));
copyFileSync(join(ROOT, 'examples', 'quickstart', 'graph.ts'), join(folder, 'graph.ts'));
symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end. */
function run(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: folder, env: { ...process.env, TENXGRAPH_TOKEN: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

function writeConfig(name: string, config: unknown): string {
  const text = typeof config === 'string' ? config : JSON.stringify(config, null, 2);
  writeFileSync(join(folder, name), text);
  return text;
}

/** The error lines start-up must print: the rule set's, judged on the loaded graph. */
async function expectedErrorLines(name: string): Promise<string[]> {
  const text = readFileSync(join(folder, name), 'utf8');
  const graph = await loadAgentGraph(join(folder, name), AGENT);
  return analyzeConfig(text, { graph: graph.toRuleGraph() })
    .problems.filter((p) => p.severity === 'error')
    .map((p) => formatProblemLine(name, text, p));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  const { port } = server.address() as { port: number };
  await new Promise((resolvePromise) => server.close(resolvePromise));
  return port;
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(false);
    });
    socket.once('error', () => resolvePromise(true));
  });
}

describe('10xgraph api (the built CLI)', () => {
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('a node-not-found: prints the problem line and exits 1 without listening', async () => {
    writeConfig('not-found.json', {
      agent: AGENT,
      remote_tools: [{ node: 'TOOLS', name: 'read_clipboard', description: "Read the text on the user's clipboard." }],
    });
    const port = await freePort();
    const outcome = await run(['api', '--config', 'not-found.json', '--port', String(port), '--db', ':memory:']);
    assert.equal(outcome.code, 1, outcome.stderr);
    const expected = await expectedErrorLines('not-found.json');
    assert.equal(expected.length, 1);
    assert.match(expected[0]!, /^not-found\.json:5:15: error \[node-not-found\] /);
    assert.deepEqual(
      outcome.stderr.split('\n').filter((line) => line.startsWith('not-found.json:')),
      expected,
    );
    assert.doesNotMatch(outcome.stdout, /Listening/);
    assert.equal(await refusesConnections(port), true);
  });

  test('a module:attribute whose Python module binds no such name (module-attribute-missing): exits 1 without listening, as the Python server stops', async () => {
    writeFileSync(join(folder, 'deps.py'), 'from injectq import InjectQ\n\ncontainer = InjectQ.get_instance()\n');
    writeConfig('import-missing.json', { agent: AGENT, injectq: 'deps:containr' });
    const port = await freePort();
    const outcome = await run(['api', '--config', 'import-missing.json', '--port', String(port), '--db', ':memory:']);
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.deepEqual(
      outcome.stderr.split('\n').filter((line) => line.startsWith('import-missing.json:')),
      [
        `import-missing.json:3:14: error [module-attribute-missing] "injectq" names deps:containr, but deps.py binds no top-level 'containr': the server stops at start-up (module 'deps' has no attribute 'containr'). Did you mean 'container'?`,
      ],
    );
    assert.equal(await refusesConnections(port), true);
    rmSync(join(folder, 'deps.py'));
  });

  test('every error is printed, graph rules and others alike', async () => {
    writeConfig('many.json', {
      agent: AGENT,
      remote_tools: [
        { node: 'agent', name: 'read_clipboard', description: "Read the text on the user's clipboard." },
        { node: 'TOOL', name: 'get_time', description: 'Shadows the server tool of the same name.' },
        { node: 'TOOL', name: 42, description: 'A name that is not a string.' },
        { node: 'TOOL', description: 'A tool without a name at all.' },
      ],
    });
    const outcome = await run(['api', '--config', 'many.json', '--db', ':memory:']);
    assert.equal(outcome.code, 1);
    const expected = await expectedErrorLines('many.json');
    assert.deepEqual(expected.map((line) => /\[([a-z-]+)\]/.exec(line)![1]).sort(), ['missing-field', 'name-conflicts-with-server-tool', 'node-not-tool-node', 'not-a-string']);
    assert.deepEqual(
      outcome.stderr.split('\n').filter((line) => line.startsWith('many.json:')),
      expected,
    );
  });

  test('starts, logs attached tools, warnings (not information) and its address, and stops on SIGTERM', async () => {
    writeConfig('ok.json', {
      agent: AGENT,
      remote_tools: [
        { node: 'TOOL', name: 'read clipboard', description: 'clipboard' },
        { node: 'TOOL', name: 'get_user_location', description: "Get the user's current location." },
      ],
    });
    const child = spawn(process.execPath, [CLI, 'api', '--config', 'ok.json', '--port', '0', '--db', ':memory:'], { cwd: folder, env: { ...process.env, TENXGRAPH_TOKEN: '' } });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolvePromise) => child.on('close', resolvePromise));
    const url = await new Promise<string>((resolvePromise, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const match = /Listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout);
        if (match) resolvePromise(match[1]!);
      });
      child.once('close', () => reject(new Error(`exited before listening: ${stderr}`)));
    });
    try {
      assert.match(stdout, /^Attached 2 configured remote tools \(to TOOL\)$/m);
      // The warnings go to stderr before "Listening on" goes to stdout, but two pipes may deliver
      // in either order: wait for them.
      await poll('the warning on stderr', () => /^ok\.json:6:15: warning \[invalid-tool-name\] /m.test(stderr), 10_000);
      assert.doesNotMatch(stderr, /vague-description|information/);
      const ping = await fetch(`${url}/ping`);
      assert.equal(ping.status, 200);
      const tools = (await (await fetch(`${url}/v1/graph/tools`)).json()) as any;
      assert.deepEqual(
        tools.data.nodes[0].tools.map((t: any) => `${t.name}:${t.source}`),
        ['get_time:local', 'read clipboard:remote', 'get_user_location:remote'],
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  test('exit 2 when it cannot run: no config, a missing agent module, bad arguments, a port in use', async () => {
    const missing = await run(['api', '--config', 'absent.json']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^10xgraph api: Cannot read the config absent\.json: no such file/m);

    writeConfig('no-module.json', { agent: 'nowhere:app' });
    const noModule = await run(['api', '--config', 'no-module.json', '--db', ':memory:']);
    assert.equal(noModule.code, 2);
    assert.match(
      noModule.stderr,
      /Cannot find the module of agent 'nowhere:app': no nowhere\.ts, nowhere\.mts, nowhere\.js, nowhere\.mjs, nowhere\/__init__\.py or nowhere\.py in /,
    );

    const badPort = await run(['api', '--port', 'eighty']);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /--port takes a port number/);
    assert.equal((await run(['api', '--verbose'])).code, 2);

    writeConfig('busy.json', { agent: AGENT });
    const blocker = createServer();
    await new Promise<void>((resolvePromise) => blocker.listen(0, '127.0.0.1', resolvePromise));
    const { port } = blocker.address() as { port: number };
    try {
      const inUse = await run(['api', '--config', 'busy.json', '--port', String(port), '--db', ':memory:']);
      assert.equal(inUse.code, 2);
      assert.match(inUse.stderr, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
    } finally {
      await new Promise((resolvePromise) => blocker.close(resolvePromise));
    }
  });

  test('invalid JSON is refused with its problem lines (exit 1)', async () => {
    writeConfig('broken.json', '{\n  "agent": "graph:app",\n}\n');
    const outcome = await run(['api', '--config', 'broken.json', '--db', ':memory:']);
    assert.equal(outcome.code, 1);
    assert.match(outcome.stderr, /^broken\.json:2:23: error \[invalid-json\] /m);
  });
});
