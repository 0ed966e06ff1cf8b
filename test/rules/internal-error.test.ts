// internal-error: a rule that throws is reported as an error of its own, and every other
// rule still runs. Rules are injected into the rule list for the length of one test.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RULES, analyzeConfig, auditConfig } from '../../runtime/src/rules';
import type { Graph } from '../../runtime/src/rules';
import { ALL_RULES } from '../../runtime/src/rules/rules/index';
import { config, graph, node, tool, unmark } from './helpers';

type Rule = (typeof ALL_RULES)[number];
const CODE = 'internal-error';

/** Runs `body` with `rule` appended to the rule list, and removes it afterwards. */
function withRule<T>(rule: Rule, body: () => T): T {
  const rules = ALL_RULES as Rule[];
  rules.push(rule);
  try {
    return body();
  } finally {
    rules.splice(rules.indexOf(rule), 1);
  }
}

const throwing = (thrown: unknown): Rule => ({
  code: 'vague-description',
  check() {
    throw thrown;
  },
});

// A name that is invalid-tool-name and a one-word description: two problems from two other rules.
const { text: TEXT } = unmark(config(tool({ name: '"read clipboard"', description: '"clipboard"' })));

describe('internal-error', () => {
  test('a rule that throws is an internal-error naming the rule and the error; the other rules still report', () => {
    const problems = withRule(throwing(new Error('kaboom')), () => auditConfig(TEXT));
    const internal = problems.filter((p) => p.code === CODE);
    assert.equal(internal.length, 1);
    assert.equal(internal[0].severity, RULES[CODE].severity);
    assert.equal(internal[0].severity, 'error');
    assert.match(internal[0].message, /'vague-description'/);
    assert.match(internal[0].message, /kaboom/);
    assert.ok(internal[0].offset >= 0 && internal[0].offset + internal[0].length <= TEXT.length);
    assert.deepEqual(
      problems.filter((p) => p.code !== CODE).map((p) => p.code),
      ['invalid-tool-name', 'vague-description'],
    );
  });

  test('a thrown value that is not an Error is reported too', () => {
    const problems = withRule(throwing('plain string'), () => auditConfig(TEXT));
    assert.match(problems.find((p) => p.code === CODE)!.message, /plain string/);
  });

  test('an internal error is an error: the config is not extracted', () => {
    const analysis = withRule(throwing(new Error('kaboom')), () => analyzeConfig(TEXT));
    assert.ok(analysis.problems.some((p) => p.code === CODE));
    assert.equal(analysis.config, undefined);
  });

  test('the rule list is restored after each injection', () => {
    assert.ok(!auditConfig(TEXT).some((p) => p.code === CODE));
  });

  test('a text with a syntax error runs no rule, so no rule can fail on it', () => {
    const problems = withRule(throwing(new Error('kaboom')), () => auditConfig('{"agent": "graph:app",}'));
    assert.deepEqual(
      problems.map((p) => p.code),
      ['invalid-json'],
    );
  });

  test('a graph node whose tools cannot be read fails the rules that read them, not the others', () => {
    const broken = {
      name: 'TOOL',
      kind: 'tool_node',
      get tools(): never {
        throw new Error('tools unreadable');
      },
    };
    const g = { origin: 'live', toolsKnown: true, nodes: [broken, node('agent', 'model_node')] } as unknown as Graph;
    const { text } = unmark(config(tool({ name: '"read clipboard"' }), tool({ name: '"other"', node: '"nowhere"' })));
    const problems = auditConfig(text, { graph: g });
    const internal = problems.filter((p) => p.code === CODE);
    assert.ok(internal.length >= 1);
    assert.ok(internal.every((p) => /tools unreadable/.test(p.message)));
    const others = problems.filter((p) => p.code !== CODE).map((p) => p.code);
    assert.ok(others.includes('invalid-tool-name'), 'text rules still report');
    assert.ok(others.includes('node-not-found'), 'graph rules that do not read tools still report');
  });

  test('a graph whose node list cannot be read is an internal-error, never a throw, and the text rules still report', () => {
    const g = {
      origin: 'live',
      toolsKnown: true,
      get nodes(): never {
        throw new Error('nodes unreadable');
      },
    } as unknown as Graph;
    let problems: ReturnType<typeof auditConfig> = [];
    assert.doesNotThrow(() => {
      problems = auditConfig(TEXT, { graph: g });
    });
    assert.ok(problems.some((p) => p.code === CODE && /nodes unreadable/.test(p.message)));
    assert.ok(problems.some((p) => p.code === 'invalid-tool-name'));
  });

  test('a well-formed graph gives no internal-error', () => {
    const problems = auditConfig(TEXT, { graph: graph([node('TOOL', 'tool_node', [['x', 'local']])]) });
    assert.ok(!problems.some((p) => p.code === CODE));
  });
});
