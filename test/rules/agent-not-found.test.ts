// agent-not-found: a valid `agent` whose module file or export the loader did not find (the front end passes
// the loader's sentence as `agentUnresolved`). An error on the value, with that sentence as its message.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectNone, expectProblems } from './helpers';

const CODE = 'agent-not-found';
const MISSING_MODULE = "Cannot find the module of agent 'graf:app': no graf.ts, graf.mts, graf.js, graf.mjs, graf/__init__.py or graf.py in /p.";
const MISSING_EXPORT = "Agent module /p/graph.ts has no export 'ap' (it exports 'app'); export the compiled graph as 'ap' or fix \"agent\" in /p/10xgraph.json.";

describe('agent-not-found', () => {
  test('a missing module is an error on the value, with what was looked for', () => {
    const { problems } = expectProblems(`{\n  "agent": ⟦"graf:app"⟧,\n  "remote_tools": []\n}`, CODE, {
      only: true,
      agentUnresolved: MISSING_MODULE,
      messages: ['graf.ts', 'graf/__init__.py'],
    });
    assert.equal(problems[0].severity, 'error');
    assert.equal(problems[0].message, MISSING_MODULE);
    assert.equal(problems[0].fixes, undefined);
  });

  test('a missing export is an error on the value, naming what the module exports', () => {
    expectProblems(`{"agent": ⟦"graph:ap"⟧}`, CODE, { only: true, agentUnresolved: MISSING_EXPORT, messages: ["no export 'ap'", "it exports 'app'"] });
  });

  test('without the loader saying so, nothing is reported: the rule set loads no module', () => {
    expectNone('{"agent": "graf:app"}', CODE);
  });

  test('an agent that is invalid, missing or not a string is judged by agent-invalid and agent-missing only', () => {
    for (const text of ['{"agent": "graph"}', '{"agent": ":app"}', '{"agent": 5}', '{}']) expectNone(text, CODE, { agentUnresolved: MISSING_MODULE });
  });
});
