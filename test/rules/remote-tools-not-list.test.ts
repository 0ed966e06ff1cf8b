// remote-tools-not-list: `remote_tools`, when present, is an array; an object is turned into
// one by the fix (one tool wrapped, or tools keyed by name listed with their `name`).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GOOD_DESCRIPTION, checkFix, expectClean, expectNone, expectProblems, tool } from './helpers';

const CODE = 'remote-tools-not-list';
const D = JSON.stringify(GOOD_DESCRIPTION);

describe('remote-tools-not-list', () => {
  for (const [what, value] of [
    ['a string', '"read_clipboard"'],
    ['a number', '1'],
    ['null', 'null'],
    ['a boolean', 'true'],
    ['an object', '{}'],
  ] as const) {
    test(`remote_tools that is ${what} is an error on the value`, () => {
      const { problems } = expectProblems(`{"agent": "graph:app", "remote_tools": ⟦${value}⟧}`, CODE, { only: true, messages: ['"remote_tools"', 'list', what] });
      if (what !== 'an object') assert.equal(problems[0].fixes, undefined);
    });
  }

  test('one tool written as an object: the safe fix wraps it in a list', () => {
    const { text, problems } = expectProblems(`{"agent": "graph:app", "remote_tools": ⟦${tool()}⟧}`, CODE, { only: true });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, `{"agent": "graph:app", "remote_tools": [${tool()}]}`);
    expectClean(fixed);
  });

  test('tools keyed by name: the safe fix lists them, each with its key as `name`', () => {
    const marked = `{"agent": "graph:app", "remote_tools": ⟦{"read_clipboard": {"node": "TOOL", "description": ${D}}, "get_location": {"node": "TOOL", "description": ${D}}}⟧}`;
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    assert.equal(problems[0].fixes![0].safe, true);
    const fixed = checkFix(text, problems[0]);
    assert.deepEqual(JSON.parse(fixed).remote_tools, [
      { name: 'read_clipboard', node: 'TOOL', description: GOOD_DESCRIPTION },
      { name: 'get_location', node: 'TOOL', description: GOOD_DESCRIPTION },
    ]);
    expectClean(fixed);
  });

  test('tools keyed by name keep a `name` of their own, and an empty entry gets only the name', () => {
    const marked = `{"agent": "graph:app", "remote_tools": ⟦{"a": {"name": "kept", "node": "TOOL", "description": ${D}}, "b": {}}⟧}`;
    const { text, problems } = expectProblems(marked, CODE);
    const fixed = checkFix(text, problems[0]);
    assert.deepEqual(JSON.parse(fixed).remote_tools, [{ name: 'kept', node: 'TOOL', description: GOOD_DESCRIPTION }, { name: 'b' }]);
  });

  test('a multi-line object keyed by name is listed and stays valid JSON', () => {
    const marked = `{\n  "agent": "graph:app",\n  "remote_tools": ⟦{\n    "read_clipboard": {\n      "node": "TOOL",\n      "description": ${D}\n    }\n  }⟧\n}\n`;
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    expectClean(checkFix(text, problems[0]));
  });

  test('the tools inside an object are not judged (one problem per fault)', () => {
    expectProblems(`{"agent": "graph:app", "remote_tools": ⟦{"node": "", "name": "a b", "desc": 5}⟧}`, CODE, { only: true });
  });

  test('a list, an empty list, or no remote_tools at all is fine', () => {
    expectNone(`{"agent": "graph:app", "remote_tools": [${tool()}]}`, CODE);
    expectNone('{"agent": "graph:app", "remote_tools": []}', CODE);
    expectNone('{"agent": "graph:app"}', CODE);
  });

  test('a repeated remote_tools is judged by the last value', () => {
    expectNone('{"agent": "graph:app", "remote_tools": 5, "remote_tools": []}', CODE);
    expectProblems('{"agent": "graph:app", "remote_tools": [], "remote_tools": ⟦5⟧}', CODE);
  });
});
