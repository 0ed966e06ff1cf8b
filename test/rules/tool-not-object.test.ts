// tool-not-object: every item of `remote_tools` is an object; the message names it by index.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { config, expectNone, expectProblems, tool } from './helpers';

const CODE = 'tool-not-object';

describe('tool-not-object', () => {
  test('each item that is not an object is an error on the item, named by its index', () => {
    const { problems } = expectProblems(config('⟦"read_clipboard"⟧', tool(), '⟦1⟧', '⟦null⟧', '⟦[]⟧', '⟦true⟧'), CODE, { only: true, messages: ['object'] });
    assert.deepEqual(
      problems.map((p) => /remote_tools\[(\d+)\]/.exec(p.message)?.[1]),
      ['0', '2', '3', '4', '5'],
    );
    assert.match(problems[0].message, /a string/);
    assert.match(problems[2].message, /null/);
    assert.match(problems[3].message, /an array/);
  });

  test('an item that is not an object is not judged by the field rules', () => {
    expectProblems(config('⟦["node", "name"]⟧'), CODE, { only: true });
  });

  test('objects, even incomplete ones, are not tool-not-object', () => {
    expectNone(config(tool(), '{}'), CODE);
    expectNone(config(), CODE);
  });

  test('items of a remote_tools that is not a list are not judged', () => {
    expectNone('{"agent": "graph:app", "remote_tools": {"a": 1}}', CODE);
  });
});
