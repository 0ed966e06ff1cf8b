// root-not-object: the file holds one JSON object; any other root is an error on the root value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { expectNone, expectProblems } from './helpers';

const CODE = 'root-not-object';

describe('root-not-object', () => {
  for (const [kind, marked] of [
    ['an array', '⟦[{"agent": "graph:app"}]⟧'],
    ['a string', '⟦"graph:app"⟧'],
    ['a number', '⟦42⟧'],
    ['a boolean', '⟦true⟧'],
    ['null', '⟦null⟧'],
  ] as const) {
    test(`a root that is ${kind} is an error covering the root value, and nothing else is judged`, () => {
      const { problems } = expectProblems(marked, CODE, { only: true, messages: [kind, 'object'] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('white space around the root is not part of the range', () => {
    expectProblems('\n  ⟦[1, 2]⟧  \r\n', CODE, { only: true });
  });

  test('an array of tools at the root is not looked into (no agent-missing, no tool rules)', () => {
    expectProblems('⟦[{"node": "", "name": "a b"}, 5]⟧', CODE, { only: true });
  });

  test('an object root is never root-not-object, even an empty one', () => {
    expectNone('{"agent": "graph:app"}', CODE);
    expectNone('{}', CODE);
    expectNone('  {"agent": "graph:app", "port": 8000}\n', CODE);
  });

  test('analyzeConfig keeps the tree but gives no config', () => {
    const analysis = analyzeConfig('[1]');
    assert.equal(analysis.tree?.type, 'array');
    assert.equal(analysis.config, undefined);
  });
});
