// agent-not-importable: an agent 10xgraph api (TypeScript) loads but the Python server cannot
// import: it takes a dotted module path `module.path:attribute`. Information, on the value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectNone, expectProblems } from './helpers';

const CODE = 'agent-not-importable';

describe('agent-not-importable', () => {
  for (const agent of ['src/agents/graph:app', './graph:app', 'graph-x:app']) {
    test(`"${agent}" is information on the value, naming the form the Python server takes`, () => {
      const { problems } = expectProblems(`{"agent": ⟦"${agent}"⟧}`, CODE, { only: true, messages: [`"${agent}"`, 'module.path:attribute', 'graph.react:app'] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('a dotted module path is importable', () => {
    for (const agent of ['graph:app', 'graph.react:app', 'src.agents.graph:app', '_g:App']) expectNone(`{"agent": "${agent}"}`, CODE);
  });

  test('an agent that is invalid, missing or not a string is judged by agent-invalid and agent-missing only', () => {
    for (const text of ['{"agent": "graph"}', '{"agent": ":app"}', '{"agent": 5}', '{}']) expectNone(text, CODE);
  });
});
