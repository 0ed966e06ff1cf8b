// invalid-import-path: an import path the server loads at start-up (injectq, store,
// thread_name_generator, auth.path, an authorization backend) is not `module.path:attribute`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codesIn, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'invalid-import-path';

describe('invalid-import-path', () => {
  test('a file path instead of a dotted module is an error on the value, naming the field and the form', () => {
    const { problems } = expectProblems(configWith('"injectq": ⟦"graph/deps:container"⟧'), CODE, {
      only: true,
      messages: ['"injectq"', 'module.path:attribute', '"graph/deps:container"', 'does not start'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  for (const [what, value, why] of [
    ['no ":"', '"graph.deps"', 'no ":"'],
    ['two ":"', '"a:b:c"', 'more than one ":"'],
    ['white space around it', '" graph.deps:container"', 'white space'],
    ['only white space', '" "', 'no ":"'],
    ['an empty attribute', '"graph.deps:"', 'must start with a letter'],
    ['a part that starts with a digit', '"1graph:container"', 'must start with a letter'],
  ] as const) {
    test(`an import path with ${what} says why`, () => {
      expectProblems(configWith(`"store": ⟦${value}⟧`), CODE, { messages: ['"store"', why] });
    });
  }

  test('dotted modules and attributes, with underscores and digits, are accepted; empty means unset', () => {
    expectNone(configWith('"injectq": "graph.dependencies:container", "store": "_mem.store2:STORE", "thread_name_generator": "names:Gen.instance"'), CODE);
    expectNone(configWith('"injectq": "", "store": null, "thread_name_generator": false'), CODE);
  });

  test('auth.path and an authorization backend path are judged the same way', () => {
    expectProblems(configWith('"auth": {"method": "custom", "path": ⟦"auth/custom:MyAuth"⟧}'), CODE, { only: true, messages: ['"auth.path"'] });
    expectProblems(configWith('"authorization": ⟦"auth/authz:Backend"⟧'), CODE, { only: true, messages: ['"authorization"'] });
    expectNone(configWith('"authorization": "auth.authz:Backend"'), CODE);
  });

  test('the checkpointer, never read by the server, is a warning only', () => {
    const codes = codesIn(configWith('"checkpointer": "graph/cp:saver"'));
    assert.ok(!codes.includes(CODE));
    assert.deepEqual(codes, ['setting-not-applied']);
  });

  test('a value that is not a string is setting-wrong-type only', () => {
    assert.deepEqual(codesIn(configWith('"injectq": 5')), ['setting-wrong-type']);
  });
});
