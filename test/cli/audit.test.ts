import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { auditConfig, LineIndex, RULES } from '../../runtime/src/rules/index';
import { loadCorpus, CORPUS_DIR } from '../support/corpus';
import { runCli, ROOT } from '../support/run';
import { GraphHttpServer, type FakeNode, type Hostility } from '../support/graphHttp';

/** The corpus graph (test/support/corpus.ts) as a server without remote tools attached lists it. */
const CORPUS_SERVER_NODES: FakeNode[] = [
  { name: 'agent', type: 'model_node' },
  { name: 'TOOL', type: 'tool_node', tools: [{ name: 'get_time', description: 'Get the current time on the server.', source: 'local' }] },
  { name: 'format_answer', type: 'function_node' },
];

async function startGraphServer(nodes: FakeNode[], hostility: Hostility = { kind: 'none' }): Promise<GraphHttpServer> {
  const server = new GraphHttpServer({ nodes });
  server.hostility = hostility;
  return server.start();
}

const corpus = loadCorpus();
const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-'));
after(() => rmSync(temp, { recursive: true, force: true }));

describe('audit --format json on the corpus', () => {
  for (const c of corpus) {
    test(`${c.name}: problems and exit code equal the rule set's`, async () => {
      const result = await runCli(['audit', c.path, '--no-graph', '--format', 'json']);
      const report = JSON.parse(result.stdout);
      const lines = new LineIndex(c.text);
      const expected = auditConfig(c.text).map((p) => ({
        code: p.code,
        severity: p.severity,
        message: p.message,
        range: { start: lines.positionAt(p.offset), end: lines.positionAt(p.offset + p.length) },
      }));
      assert.equal(report.file, relative(ROOT, c.path));
      assert.equal(report.graph, 'skipped');
      assert.deepEqual(report.problems, expected);
      assert.equal(result.code, expected.some((p) => p.severity === 'error') ? 1 : 0);
    });
  }
});

describe('audit loads the agent module by default, as api does', () => {
  for (const c of corpus) {
    test(`${c.name}: the problems judged on the loaded corpus graph are the expected ones`, async () => {
      const result = await runCli(['audit', c.path, '--format', 'json']);
      const report = JSON.parse(result.stdout);
      const structural = ['invalid-json', 'root-not-object', 'agent-missing', 'agent-invalid'];
      const expectLoaded = !c.expected.some((line) => structural.includes(line.split(' ')[2]));
      assert.equal(report.graph, expectLoaded ? 'loaded' : 'skipped');
      const actual = report.problems.map(
        (p: { code: string; severity: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } }) =>
          `${p.range.start.line + 1}:${p.range.start.character + 1}-${p.range.end.line + 1}:${p.range.end.character + 1} ${p.severity} ${p.code}`,
      );
      assert.deepEqual(actual, c.expected);
      assert.equal(result.code, c.expected.some((line) => line.includes(' error ')) ? 1 : 0);
    });
  }

  test('an agent whose module file is missing is agent-not-found on the value (exit 1), naming the files looked for', async () => {
    const dir = join(temp, 'noload');
    mkdirSync(dir);
    writeFileSync(join(dir, '10xgraph.json'), '{\n  "agent": "missing:app"\n}\n');
    const result = await runCli(['audit'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr, '');
    const [line, summary] = result.stdout.trimEnd().split('\n');
    assert.match(
      line,
      /^10xgraph\.json:2:12: error \[agent-not-found\] Cannot find the module of agent 'missing:app': no missing\.ts, missing\.mts, missing\.js, missing\.mjs, missing\/__init__\.py or missing\.py in /,
    );
    assert.equal(summary, '10xgraph.json: 1 error; graph skipped (the agent does not resolve, see agent-not-found): node names not checked');
  });

  test('an agent whose export is missing is agent-not-found on the value in text, json and sarif, naming the exports', async () => {
    const dir = join(temp, 'noexport');
    mkdirSync(dir);
    writeFileSync(join(dir, '10xgraph.json'), '{"agent": "graph:ap"}');
    writeFileSync(join(dir, 'graph.mjs'), 'export const app = 1;\n');
    const text = await runCli(['audit'], { cwd: dir });
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /^10xgraph\.json:1:11: error \[agent-not-found\] Agent module .*graph\.mjs has no export 'ap' \(it exports 'app'\)/);
    const json = await runCli(['audit', '--format', 'json'], { cwd: dir });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout);
    assert.equal(report.graph, 'skipped');
    assert.deepEqual(
      report.problems.map((p: { code: string; range: unknown }) => [p.code, p.range]),
      [['agent-not-found', { start: { line: 0, character: 10 }, end: { line: 0, character: 20 } }]],
    );
    assert.match(report.problems[0].message, /has no export 'ap' \(it exports 'app'\)/);
    const sarif = await runCli(['audit', '--format', 'sarif'], { cwd: dir });
    assert.equal(sarif.code, 1);
    const result = JSON.parse(sarif.stdout).runs[0].results[0];
    assert.equal(result.ruleId, 'agent-not-found');
    assert.deepEqual(result.locations[0].physicalLocation.region, { startLine: 1, startColumn: 11, endLine: 1, endColumn: 21, charOffset: 10, charLength: 10 });
  });

  test('an agent module that throws when run cannot be judged (exit 2), with its error', async () => {
    const dir = join(temp, 'throws');
    mkdirSync(dir);
    writeFileSync(join(dir, '10xgraph.json'), '{"agent": "graph:app"}');
    writeFileSync(join(dir, 'graph.mjs'), "throw new Error('boom at load');\n");
    const result = await runCli(['audit'], { cwd: dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /could not load the agent module: Agent module .*graph\.mjs failed to load: boom at load/);
    assert.match(result.stderr, /Pass --no-graph/);
  });

  test('an agent that does not resolve is reported beside the errors of the file, graph rules skipped', async () => {
    const dir = join(temp, 'noload-errors');
    mkdirSync(dir);
    writeFileSync(join(dir, '10xgraph.json'), '{"agent": "missing:app", "remote_tools": [{"node": "X"}]}');
    const result = await runCli(['audit'], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /error \[agent-not-found\]/);
    assert.match(result.stdout, /error \[missing-field\]/);
    assert.match(result.stdout, /graph skipped \(the agent does not resolve, see agent-not-found\)/);
  });

  test('a file that is not JSON: the summary says agent was not read, and why', async () => {
    const dir = join(temp, 'not-json');
    mkdirSync(dir);
    writeFileSync(join(dir, '10xgraph.json'), '{"agent": "graph:app",}');
    const result = await runCli(['audit'], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /error \[invalid-json\]/);
    assert.match(result.stdout, /\n10xgraph\.json: 1 error; graph skipped \(the file is not valid JSON, so `agent` was not read\): node names not checked\n$/);
  });

  test('a file without agent, or with one that is not module:export: the summary says so', async () => {
    for (const [name, text, why] of [
      ['no-agent', '{"remote_tools": []}', 'the file has no `agent`'],
      ['bad-agent', '{"agent": "graph"}', '`agent` is not a `module:export` string'],
    ]) {
      const dir = join(temp, name);
      mkdirSync(dir);
      writeFileSync(join(dir, '10xgraph.json'), text);
      const result = await runCli(['audit'], { cwd: dir });
      assert.equal(result.code, 1);
      assert.ok(result.stdout.endsWith(`; graph skipped (${why}): node names not checked\n`), result.stdout);
    }
  });
});

describe('audit text output', () => {
  test('one compiler-style line a problem, one-based, then a summary', async () => {
    const file = join(CORPUS_DIR, 'mixed-crlf-unicode.json');
    const result = await runCli(['audit', relative(ROOT, file), '--no-graph']);
    const out = result.stdout.trimEnd().split('\n');
    const shown = relative(ROOT, file);
    assert.equal(result.code, 1);
    assert.match(out[0], new RegExp(`^${shown.replace(/[.]/g, '\\.')}:4:31: warning \\[invalid-tool-name\\] The name 'envoyer_émoji_😀' has characters other than letters`));
    assert.match(out[1], new RegExp(`^${shown.replace(/[.]/g, '\\.')}:5:125: error \\[parameters-type-not-object\\] "parameters.type" of tool 'lire' must be "object"`));
    assert.equal(out.length, 3);
    assert.match(out[2], /1 error, 1 warning; graph skipped \(--no-graph\): node names not checked$/);
  });

  test('a clean file exits 0 and says so', async () => {
    const result = await runCli(['audit', join(CORPUS_DIR, 'valid-quickstart.json'), '--no-graph']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /valid-quickstart\.json: no problems; graph skipped/);
  });

  test('FILE defaults to ./10xgraph.json', async () => {
    const dir = join(temp, 'default');
    mkdirSync(dir);
    copyFileSync(join(CORPUS_DIR, 'agent-missing.json'), join(dir, '10xgraph.json'));
    const result = await runCli(['audit', '--no-graph'], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^10xgraph\.json:1:1: error \[agent-missing\]/);
  });
});

describe('audit --format sarif', () => {
  test('is SARIF 2.1.0 with rules, levels and regions', async () => {
    const file = join(CORPUS_DIR, 'mixed-errors-and-warnings.json');
    const result = await runCli(['audit', file, '--no-graph', '--format', 'sarif']);
    const sarif = JSON.parse(result.stdout);
    assert.equal(sarif.version, '2.1.0');
    const run = sarif.runs[0];
    assert.equal(run.tool.driver.name, '10xgraph');
    assert.deepEqual(
      run.tool.driver.rules.map((r: { id: string }) => r.id),
      Object.keys(RULES),
    );
    const text = readFileSync(file, 'utf8');
    const problems = auditConfig(text);
    assert.equal(run.results.length, problems.length);
    const unknown = run.results.find((r: { ruleId: string }) => r.ruleId === 'unknown-field');
    assert.equal(unknown.level, 'error');
    assert.deepEqual(unknown.locations[0].physicalLocation.region, {
      startLine: 4,
      startColumn: 103,
      endLine: 4,
      endColumn: 111,
      charOffset: problems.find((p) => p.code === 'unknown-field')!.offset,
      charLength: 8,
    });
    assert.equal(run.results.find((r: { ruleId: string }) => r.ruleId === 'vague-description').level, 'note');
    assert.equal(run.results.find((r: { ruleId: string }) => r.ruleId === 'invalid-tool-name').level, 'warning');
    assert.equal(run.tool.driver.rules[unknown.ruleIndex].id, 'unknown-field');
    assert.equal(result.code, 1);
  });
});

describe('audit --fix', () => {
  test('applies every safe fix, writes the file and reports what is left', async () => {
    const file = join(temp, 'fix.json');
    writeFileSync(
      file,
      '{\n  // old\n  "agent": "graph:app",\n  "remote_tools": {"node": "TOOL", "name": "a", "name": " a ", "desc": "Read the clipboard text.", "parameters": {}},\n}\n',
    );
    const result = await runCli(['audit', file, '--no-graph', '--fix']);
    const fixed = readFileSync(file, 'utf8');
    assert.doesNotThrow(() => JSON.parse(fixed));
    const after = JSON.parse(fixed);
    assert.ok(Array.isArray(after.remote_tools));
    assert.equal(after.remote_tools[0].description, 'Read the clipboard text.');
    assert.equal(after.remote_tools[0].name, 'a');
    assert.match(result.stdout, /fixed \d+ problems; 1 warning/);
    assert.match(result.stdout, /warning \[duplicate-key\]/);
    assert.equal(result.code, 0);
  });

  test('leaves a file with nothing safe to fix untouched', async () => {
    const file = join(temp, 'nofix.json');
    const text = '{"remote_tools": []}';
    writeFileSync(file, text);
    const result = await runCli(['audit', file, '--no-graph', '--fix']);
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /fixed 0 problems; 1 error/);
  });
});

describe('audit cannot run: exit 2 with a clear reason', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['a missing file', () => ['audit', join(temp, 'nope.json')], /nope\.json: no such file\./],
    ['a directory', () => ['audit', temp], /is a directory: give the path of a 10xgraph\.json file\./],
    [
      'a binary file',
      () => {
        const f = join(temp, 'bin.json');
        writeFileSync(f, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xfe]));
        return ['audit', f];
      },
      /is a binary file, not JSON text\./,
    ],
    [
      'invalid UTF-8',
      () => {
        const f = join(temp, 'latin1.json');
        writeFileSync(f, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]));
        return ['audit', f];
      },
      /is not UTF-8 text\./,
    ],
    ['an unknown option', () => ['audit', '--frobnicate'], /unknown option '--frobnicate'/],
    ['a bad format', () => ['audit', '--format', 'xml'], /--format must be text, json or sarif, not 'xml'/],
    ['both graph options', () => ['audit', '--no-graph', '--graph-url', 'http://127.0.0.1:9'], /cannot be used together/],
    [
      'a file over the size limit',
      () => {
        const f = join(temp, 'big.json');
        writeFileSync(f, Buffer.alloc(65 * 1024 * 1024, 0x20));
        return ['audit', f];
      },
      /is 65\.0 MB, over the 64 MB limit/,
    ],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const result = await runCli(args());
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(result.stderr.trim().split('\n').length <= 2, true);
    });
  }
});

describe('audit on hostile files', () => {
  test('a NUL in otherwise UTF-8 text is invalid JSON, as the editor says', async () => {
    const f = join(temp, 'nul.json');
    writeFileSync(f, '\u0000{"agent": "graph:app"}');
    const result = await runCli(['audit', f, '--no-graph', '--format', 'json']);
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(
      JSON.parse(result.stdout).problems.map((p: { code: string }) => p.code),
      ['invalid-json'],
    );
  });

  test('50 MB of JSON is audited, not refused, and not hung', async () => {
    const f = join(temp, 'fifty.json');
    writeFileSync(f, `{"agent": "graph:app", "observability": {"logfire": {"enabled": true, "service_name": "${'x'.repeat(50 * 1024 * 1024)}"}}}`);
    const result = await runCli(['audit', f, '--no-graph'], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /no problems/);
  });

  test('nesting 100,000 levels deep is one clear invalid-json problem', async () => {
    const f = join(temp, 'deep.json');
    writeFileSync(f, `{"agent": "graph:app", "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const result = await runCli(['audit', f, '--no-graph', '--format', 'json']);
    assert.equal(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.problems.length, 1);
    assert.equal(report.problems[0].code, 'invalid-json');
    assert.match(report.problems[0].message, /nests deeper than 1000 levels/);
  });
});

describe('audit --graph-url against a real loopback server', () => {
  let server: GraphHttpServer;
  before(async () => {
    server = await startGraphServer(CORPUS_SERVER_NODES);
  });
  after(() => server.stop());

  test('checks node names against the live graph', async () => {
    const result = await runCli(['audit', join(CORPUS_DIR, 'node-not-found.json'), '--graph-url', server.url, '--format', 'json']);
    const report = JSON.parse(result.stdout);
    assert.equal(report.graph, 'url');
    assert.deepEqual(
      report.problems.map((p: { code: string }) => p.code),
      ['node-not-found'],
    );
    assert.deepEqual(report.problems[0].range, { start: { line: 3, character: 14 }, end: { line: 3, character: 21 } });
    assert.equal(result.code, 1);
  });

  test('reports tools the live server has not attached, without failing', async () => {
    const result = await runCli(['audit', join(CORPUS_DIR, 'valid-quickstart.json'), '--graph-url', server.url]);
    assert.equal(result.code, 0);
    assert.equal((result.stdout.match(/information \[tool-not-attached\]/g) ?? []).length, 3);
  });

  test('sends TENXGRAPH_TOKEN as a bearer token', async () => {
    const before = server.requests.length;
    await runCli(['audit', join(CORPUS_DIR, 'valid-minimal.json'), '--graph-url', server.url], { env: { TENXGRAPH_TOKEN: 's3cret' } });
    const sent = server.requests.slice(before);
    assert.equal(sent.length, 2);
    for (const req of sent) assert.equal(req.authorization, 'Bearer s3cret');
  });

  const hostile: Array<[string, Hostility, RegExp]> = [
    ['a 500', { kind: 'status', status: 500 }, /answered 500/],
    ['a 401', { kind: 'status', status: 401 }, /answered 401: the server needs a token/],
    ['malformed JSON', { kind: 'malformed' }, /did not answer JSON/],
    ['a huge body', { kind: 'huge', bytes: 8 * 1024 * 1024 }, /is larger than 5242880 bytes/],
    ['no answer', { kind: 'slow', ms: 60_000 }, /no answer from http:\/\/127\.0\.0\.1:\d+ within 300 ms/],
    ['a redirect to another origin', { kind: 'redirect', to: 'http://127.0.0.2:9' }, /redirects to another origin \(http:\/\/127\.0\.0\.2:9\); not followed/],
  ];
  for (const [what, behaviour, message] of hostile) {
    test(`${what}: exit 2 and a one-line reason`, async () => {
      const bad = await startGraphServer(CORPUS_SERVER_NODES, behaviour);
      try {
        // A short time-out only where it is what the case is about: an answer that is merely slow
        // to come on a loaded machine must not turn a 500 or a huge body into "no answer".
        const timeoutMs = behaviour.kind === 'slow' ? '300' : '10000';
        const result = await runCli(['audit', join(CORPUS_DIR, 'valid-minimal.json'), '--graph-url', bad.url, '--timeout-ms', timeoutMs]);
        assert.equal(result.code, 2);
        assert.match(result.stderr, message);
        assert.equal(result.stderr.trim().split('\n').length, 1);
        assert.equal(result.stdout, '');
      } finally {
        await bad.stop();
      }
    });
  }

  test('an unreachable server: exit 2', async () => {
    const gone = await startGraphServer([]);
    const url = gone.url;
    await gone.stop();
    const result = await runCli(['audit', join(CORPUS_DIR, 'valid-minimal.json'), '--graph-url', url]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /nothing is listening at http:\/\/127\.0\.0\.1:\d+/);
  });
});
