// duplicate-key: a warning on each earlier occurrence of a key repeated in one object (a
// strict parser keeps the last silently), pointing at the one that counts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, configWith, expectClean, expectNone, expectProblems, textAt, tool } from './helpers';

const CODE = 'duplicate-key';

describe('duplicate-key', () => {
  test('a repeated root key: a warning on the earlier key, related to the last, with a fix that removes the earlier', () => {
    const { text, problems } = expectProblems('{⟦"agent"⟧: "old:app", "agent": "graph:app"}', CODE, { only: true, messages: ['"agent"'] });
    const [p] = problems;
    assert.equal(p.related?.length, 1);
    assert.equal(p.related![0].offset, text.lastIndexOf('"agent"'));
    assert.equal(textAt(text, p.related![0]), '"agent"');
    const fixed = checkFix(text, p);
    assert.equal(fixed, '{"agent": "graph:app"}');
    expectClean(fixed);
  });

  test('a key three times: each earlier occurrence is reported, each pointing at the last', () => {
    const { text, problems } = expectProblems('{"agent": "graph:app", ⟦"env"⟧: "1.env", ⟦"env"⟧: "2.env", "env": "3.env"}', CODE, { only: true });
    const last = text.lastIndexOf('"env"');
    assert.deepEqual(
      problems.map((p) => p.related![0].offset),
      [last, last],
    );
    for (const p of problems) expectClean(checkFix(text, p).replace(/"env": "\d\.env", /, ''));
  });

  test('repeated keys inside a tool and inside parameters are reported where they are', () => {
    expectProblems(
      config(
        `{⟦"name"⟧: "a", "node": "TOOL", "name": "read_clipboard", "description": "Read text from the user's clipboard.", "parameters": {⟦"type"⟧: "string", "type": "object"}}`,
      ),
      CODE,
      { only: true },
    );
  });

  test('a repeated key in a settings object: the warning only, the earlier value the server ignores is not judged', () => {
    expectProblems(configWith('"rate_limit": {"enabled": false, ⟦"by"⟧: "IP", "by": "ip"}'), CODE, { only: true });
  });

  test('the rules judge the last value: a wrong earlier value gives only the warning', () => {
    expectProblems(config(tool({ name: '5, "name": "read_clipboard"' }).replace('"name"', '⟦"name"⟧')), CODE, { only: true });
  });

  test('the earlier occurrence is removed cleanly when it is the first or a middle member, across lines', () => {
    const marked = '{\n  ⟦"agent"⟧: "a:b",\n  ⟦"env"⟧: "1.env",\n  ⟦"env"⟧: "2.env",\n  "agent": "graph:app",\n  "env": "3.env"\n}\n';
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{\n  "env": "1.env",\n  "env": "2.env",\n  "agent": "graph:app",\n  "env": "3.env"\n}\n');
    assert.equal(checkFix(text, problems[1]), '{\n  "agent": "a:b",\n  "env": "2.env",\n  "agent": "graph:app",\n  "env": "3.env"\n}\n');
    assert.equal(checkFix(text, problems[2]), '{\n  "agent": "a:b",\n  "env": "1.env",\n  "agent": "graph:app",\n  "env": "3.env"\n}\n');
  });

  test('keys written differently but equal as strings are the same key', () => {
    expectProblems('{⟦"agent"⟧: "x:y", "\\u0061gent": "graph:app"}', CODE);
  });

  test('the same key in sibling or nested objects is not repeated', () => {
    expectNone(config(tool(), tool({ name: '"other"' })), CODE);
    expectNone('{"agent": "graph:app", "settings": {"agent": 1, "x": {"agent": 2}}, "more": {"agent": 3}}', CODE);
  });

  test('keys differing in case are different keys', () => {
    expectNone('{"agent": "graph:app", "Agent": 1}', CODE);
  });
});
