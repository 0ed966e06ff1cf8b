// Quick fixes: applyEdits applies one fix's edits; applySafeFixes applies every safe fix
// (what the editor's fix-all and `audit --fix` do). Every fix keeps the text valid JSON.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, applySafeFixes, auditConfig } from '../../runtime/src/rules';
import type { AuditOptions, ProblemCode } from '../../runtime/src/rules';
import { GOOD_DESCRIPTION, config, expectClean, graph, node, tool } from './helpers';

const D = JSON.stringify(GOOD_DESCRIPTION);
const G = graph(
  [
    node('agent', 'model_node'),
    node('TOOL', 'tool_node', [
      ['read_clipboard', 'remote'],
      ['search', 'local'],
    ]),
    node('tools'),
  ],
  { origin: 'live' },
);

/** Strict-JSON texts that break each rule that has a fix, and some that have none. */
const CORPUS: Array<[string, AuditOptions]> = [
  ['{}', {}],
  ['{\n  "remote_tools": []\n}\n', { agentCandidates: ['src/graph:app', 'graph:app'] }],
  [`{"agent": "graph:app", "remote_tools": ${tool()}}`, {}],
  [`{"agent": "graph:app", "remote_tools": {"read_clipboard": {"node": "TOOL", "description": ${D}}, "b": {}}}`, {}],
  [config(tool({ description: undefined, desc: D, colour: '"red"' })), {}],
  [config(tool({ parameters: undefined, params: '{"type": "object"}' })), {}],
  [config('{}', tool({ name: undefined, node: undefined })), { graph: G }],
  [config(tool(), tool(), tool({ name: '"read_clipboard_2"' }), tool()), {}],
  [config(tool({ parameters: '{}' }), tool({ name: '"b"', parameters: '{"type": "string", "properties": {}}' })), {}],
  ['{"agent": "a:b", "port": 1, "agent": "graph:app", "port": 2}', {}],
  [config(tool({ node: '"tool"' }), tool({ name: '"b"', node: '"agent"' })), { graph: G }],
  [config(tool({ node: '"tool"' })), { graph: { ...G, origin: 'loaded' } }],
  [config(tool({ name: '"search"' })), { graph: G }],
  ['[1, 2]', {}],
  [config(tool({ name: '" read_clipboard "', node: '"TOOL "' }), tool({ name: '"read_clipboard"' })), {}],
  [config(tool({ node: undefined, node_name: '"TOOL"' }), tool({ name: '"b"', node_name: '"TOOL"' })), {}],
  [`{"agent": "graph:app", "remote_tool": [], "prot": 1, "rate_limit": {"by": "IP", "backend": "Redis", "reqests": 5, "redis": {"url": "redis://h", "prefx": "p"}}}`, {}],
  ['{"agent": "graph:app", "auth": "JWT", "authorization": {"backend": "rbca", "rols": {"admin": ["*"]}, "isolaton": "none"}}', {}],
  ['{"agent": "graph:app", "observability": {"levl": "full", "level": "ful", "logfire": {"enabled": "false", "servce_name": "x"}}, "websocket": {"max_conections": 1}}', {}],
  ['{"agent": "graph:app", "test": {"coverag": true}, "evaluation": {"threshhold": 0.5}, "ag_ui": {"enable": true}, "port": 1, "port": 2}', {}],
];

/** The same texts pretty-printed, with CRLF and with tabs (duplicate keys are lost to JSON.parse, so those stay compact). */
const LAYOUTS: Array<[string, AuditOptions]> = CORPUS.flatMap(([text, options]) => {
  const pretty = JSON.stringify(JSON.parse(text), null, 2);
  return [
    [text, options],
    [pretty, options],
    [pretty.replace(/\n/g, '\r\n'), options],
    [JSON.stringify(JSON.parse(text), null, '\t'), options],
  ] as Array<[string, AuditOptions]>;
});

describe('applyEdits', () => {
  test('applies edits given in any order, against offsets of the original text', () => {
    const edits = [
      { offset: 0, length: 1, newText: '[' },
      { offset: 5, length: 1, newText: ']' },
      { offset: 3, length: 0, newText: '+' },
    ];
    assert.equal(applyEdits('{abcd}', edits), '[ab+cd]');
    assert.equal(applyEdits('{abcd}', [...edits].reverse()), '[ab+cd]');
    assert.equal(applyEdits('{abcd}', []), '{abcd}');
  });

  test('refuses overlapping edits', () => {
    assert.throws(
      () =>
        applyEdits('abcdef', [
          { offset: 1, length: 3, newText: '' },
          { offset: 2, length: 2, newText: 'x' },
        ]),
      /Overlapping/,
    );
  });
});

describe('every fix keeps the text strict JSON', () => {
  test('each fix of each problem, in compact, pretty, CRLF and tab layouts', () => {
    let fixes = 0;
    for (const [text, options] of LAYOUTS) {
      for (const problem of auditConfig(text, options)) {
        for (const fix of problem.fixes ?? []) {
          if (fix.command) {
            assert.deepEqual(fix.edits, [], 'a command fix edits nothing');
            continue;
          }
          const fixed = applyEdits(text, fix.edits);
          assert.doesNotThrow(() => JSON.parse(fixed), `${problem.code} / ${fix.title} broke ${JSON.stringify(text)} into ${JSON.stringify(fixed)}`);
          assert.ok(!auditConfig(fixed).some((p) => p.code === 'invalid-json'));
          const before = auditConfig(text, options).filter((p) => p.code === problem.code).length;
          const after = auditConfig(fixed, options).filter((p) => p.code === problem.code).length;
          assert.ok(after < before, `${fix.title} did not remove its ${problem.code} from ${JSON.stringify(text)}`);
          fixes++;
        }
      }
    }
    assert.ok(fixes > 100, `only ${fixes} fixes were exercised`);
  });

  test("a line break the fix adds is the file's own: CRLF stays CRLF", () => {
    const text = config(tool({ description: undefined }))
      .replace(/\{"node"/, '{\r\n  "node"')
      .replace(/\}\]/, '\r\n}]');
    const [problem] = auditConfig(text).filter((p) => p.code === 'missing-field');
    const fixed = applyEdits(text, problem.fixes![0].edits);
    assert.ok(!/[^\r]\n/.test(fixed), JSON.stringify(fixed));
  });

  test("a line break the fix adds is the file's own: a file broken by lone CRs gets a CR", () => {
    const text = '{\r  "remote_tools": []\r}\r';
    const [problem] = auditConfig(text).filter((p) => p.code === 'agent-missing');
    const fixed = applyEdits(text, problem.fixes![0].edits);
    assert.ok(!fixed.includes('\n'), `a LF was added to a CR file: ${JSON.stringify(fixed)}`);
    assert.equal(fixed, '{\r  "remote_tools": [],\r  "agent": "graph:app"\r}\r');
  });

  test('a tab-indented file gets tabs', () => {
    const text = `{\n\t"remote_tools": []\n}`;
    const [problem] = auditConfig(text);
    assert.equal(applyEdits(text, problem.fixes![0].edits), '{\n\t"remote_tools": [],\n\t"agent": "graph:app"\n}');
  });
});

describe('applySafeFixes', () => {
  test('fixes comments, trailing commas, a tool object and an untrimmed name in one call; a missing type is left to the server', () => {
    const text = [
      '{',
      '  // the graph',
      '  "agent": "graph:app",',
      '  /* one tool, not a list */',
      `  "remote_tools": {"node": "TOOL", "name": " read_clipboard ", "description": ${D}, "parameters": {"properties": {},},},`,
      '}',
    ].join('\n');
    const result = applySafeFixes(text);
    assert.doesNotThrow(() => JSON.parse(result.text));
    assert.deepEqual(result.problems, auditConfig(result.text));
    assert.deepEqual(result.problems, []);
    assert.ok(result.applied >= 6, `applied ${result.applied}`);
    assert.equal(JSON.parse(result.text).remote_tools[0].name, 'read_clipboard');
    assert.deepEqual(JSON.parse(result.text).remote_tools[0].parameters, { properties: {} });
  });

  test('fixes the settings a person clearly mistyped, and leaves the rest to a person', () => {
    const text = `{"agent": "graph:app", "remote_tool": [${tool()}], "auth": "JWT", "rate_limit": {"by": "IP", "backend": "Redis", "reqests": 5, "redis": "redis://localhost:6379/0"}, "observability": {"level": "ful", "logfire": {"enabled": "false"}}, "port": 8000}`;
    const files = { environment: new Set(['JWT_SECRET_KEY', 'JWT_ALGORITHM']) };
    const result = applySafeFixes(text, { files });
    assert.deepEqual(result.problems, auditConfig(result.text, { files }));
    const fixed = JSON.parse(result.text);
    assert.deepEqual(fixed.remote_tools, JSON.parse(config(tool())).remote_tools);
    assert.equal(fixed.auth, 'jwt');
    assert.deepEqual(fixed.rate_limit, { by: 'ip', backend: 'redis', requests: 5, redis: 'redis://localhost:6379/0' });
    assert.deepEqual(fixed.observability, { level: 'full', logfire: { enabled: false } });
    // Removing a key is never safe; the fixed logfire switch now traces nothing, as the file meant.
    assert.deepEqual(result.problems.map((p) => p.code).sort(), ['nothing-traced', 'unknown-key']);
    assert.equal(fixed.port, 8000);
  });

  test('the remaining problems are the audit of the fixed text, with the graph given', () => {
    const text = config(tool({ node: '"tool"', name: '"read_clipboard "' }), tool({ name: '"b"', node: '"tool"' }));
    const result = applySafeFixes(text, { graph: G });
    assert.deepEqual(result.problems, auditConfig(result.text, { graph: G }));
    assert.deepEqual(
      result.problems.map((p) => p.code),
      ['node-not-found', 'node-not-found'],
    );
    assert.equal(result.applied, 1);
  });

  test('a clean file is left alone', () => {
    const text = config(tool());
    assert.deepEqual(applySafeFixes(text), { text, applied: 0, problems: [] });
  });

  test('fixes that need a person are never applied', () => {
    const unsafe: Array<[string, ProblemCode, AuditOptions]> = [
      ['{}', 'agent-missing', {}],
      [config('{}'), 'missing-field', {}],
      ['{"agent": "x:y", "agent": "graph:app"}', 'duplicate-key', {}],
      [config(tool({ colour: '"red"' })), 'unknown-field', {}],
      [config(tool({ parameters: '{"type": "string"}' })), 'parameters-type-not-object', {}],
      [config(tool({ node: '"tool"' })), 'node-not-found', { graph: G }],
      [config(tool({ node: '"agent"' })), 'node-not-tool-node', { graph: G }],
    ];
    for (const [text, code, options] of unsafe) {
      const result = applySafeFixes(text, options);
      assert.equal(result.text, text, code);
      assert.equal(result.applied, 0, code);
      assert.ok(
        result.problems.some((p) => p.code === code),
        code,
      );
    }
  });

  test('it is idempotent, and leaves no safe fix behind, over the whole corpus', () => {
    for (const [text, options] of LAYOUTS) {
      const once = applySafeFixes(text, options);
      assert.doesNotThrow(() => JSON.parse(once.text));
      assert.ok(!once.problems.some((p) => p.fixes?.some((f) => f.safe && f.edits.length > 0)), JSON.stringify(once.text));
      const twice = applySafeFixes(once.text, options);
      assert.equal(twice.text, once.text);
      assert.equal(twice.applied, 0);
    }
  });

  test('a file with several syntax errors comes out strict JSON when every error has a fix', () => {
    const text = '/* head */ {"agent": "graph:app", // x\n "remote_tools": [1, 2,],} // tail';
    const result = applySafeFixes(text);
    assert.doesNotThrow(() => JSON.parse(result.text));
    assert.ok(!result.problems.some((p) => p.code === 'invalid-json'));
  });

  test('two unknown fields that can only mean "description": the safe fixes rename one, never both into a duplicate key', () => {
    const text = config(tool({ description: undefined, desc: D, descr: '"Another description of it."' }));
    const result = applySafeFixes(text);
    const codes = result.problems.map((p) => p.code);
    assert.ok(!codes.includes('duplicate-key'), `the safe fixes made a duplicate key: ${result.text}`);
    assert.equal((result.text.match(/"description"/g) ?? []).length, 1, result.text);
  });
});

describe('fix-all reaches a clean file on a typical first draft', () => {
  test('object-shaped remote_tools, desc/params aliases, a trailing comma', () => {
    const text = `{\n  "agent": "graph:app",\n  "remote_tools": {\n    "read_clipboard": {"node": "TOOL", "desc": ${D}, "params": {"properties": {}}},\n  }\n}\n`;
    const result = applySafeFixes(text);
    expectClean(result.text);
    assert.deepEqual(JSON.parse(result.text).remote_tools, [{ name: 'read_clipboard', node: 'TOOL', description: GOOD_DESCRIPTION, parameters: { properties: {} } }]);
  });
});
