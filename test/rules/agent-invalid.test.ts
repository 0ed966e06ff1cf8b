// agent-invalid: `agent` is a string `module:export` with both parts non-blank.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectNone, expectProblems } from './helpers';

const CODE = 'agent-invalid';

describe('agent-invalid', () => {
  for (const [what, value] of [
    ['a number', '5'],
    ['null', 'null'],
    ['a boolean', 'false'],
    ['an array', '["graph:app"]'],
    ['an object', '{"module": "graph"}'],
  ] as const) {
    test(`an agent that is ${what} is an error on the value that says it must be a string`, () => {
      expectProblems(`{"agent": ⟦${value}⟧}`, CODE, { only: true, messages: ['"agent"', 'module:export', what] });
    });
  }

  for (const [what, value] of [
    ['no colon', '"graph"'],
    ['an empty module', '":app"'],
    ['an empty export', '"graph:"'],
    ['blank parts', '" : "'],
    ['an empty string', '""'],
  ] as const) {
    test(`an agent with ${what} is an error on the value that quotes it`, () => {
      const { problems } = expectProblems(`{\n  "agent": ⟦${value}⟧\n}`, CODE, { only: true, messages: ['"agent"', 'module:export', value] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('valid agents: a module path with folders and extension, and a named export', () => {
    expectNone('{"agent": "graph:app"}', CODE);
    expectNone('{"agent": "./src/graph.ts:compiled"}', CODE);
    expectNone('{"agent": "agents/main:default"}', CODE);
  });

  for (const [what, value, word] of [
    ['an absolute POSIX path', '"/srv/agents/graph:app"', 'absolute path'],
    ['a drive letter', '"C:/agents/graph:app"', 'absolute path'],
    ['a drive-relative path', '"C:graph:app"', 'absolute path'],
    ['a UNC path', '"\\\\\\\\host\\\\share\\\\graph:app"', 'absolute path'],
    ['a parent folder', '"../other/graph:app"', 'without ".."'],
    ['a parent folder written with backslashes', '"..\\\\other\\\\graph:app"', 'without ".."'],
    ['a parent folder after white space', '" ../graph:app"', 'without ".."'],
    ['a ".." inside that comes back', '"src/../graph:app"', 'without ".."'],
    ['a module that is ".."', '"..:app"', 'without ".."'],
  ] as const) {
    test(`an agent module given by ${what} is refused: a config runs only code beside it`, () => {
      const { problems } = expectProblems(`{"agent": ⟦${value}⟧}`, CODE, { only: true, messages: ['"agent"', 'folder of 10xgraph.json', word, 'code shipped beside it'] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('names with dots that are not ".." segments stay valid', () => {
    expectNone('{"agent": "..graph:app"}', CODE);
    expectNone('{"agent": "graph..v2:app"}', CODE);
    expectNone('{"agent": "./graph:app"}', CODE);
    expectNone('{"agent": "C:app"}', CODE);
    expectNone('{"agent": "lib:v2/graph:app"}', CODE);
  });

  test('a repeated agent is judged by the last value', () => {
    expectProblems('{"agent": "graph:app", "agent": ⟦"graph"⟧}', CODE);
    expectNone('{"agent": "graph", "agent": "graph:app"}', CODE);
  });

  test('a missing agent is agent-missing, not agent-invalid', () => {
    expectNone('{}', CODE);
  });
});
