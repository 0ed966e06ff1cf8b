// agent-missing: a root object without `agent`; the problem stands on the root `{` and the
// fix adds the agent, in the object's own layout.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, codesIn, expectNone, expectProblems } from './helpers';

const CODE = 'agent-missing';

describe('agent-missing', () => {
  test('an empty root object: the problem covers its `{` and names the field and an example', () => {
    const { text, problems } = expectProblems('⟦{⟧}', CODE, { only: true, messages: ['"agent"', 'graph:app'] });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.isPreferred, true);
    assert.equal(checkFix(text, problems[0]), '{ "agent": "graph:app" }');
  });

  test('a root with other keys but no agent; the fix appends the agent after the last key', () => {
    const { text, problems } = expectProblems('⟦{⟧"remote_tools": [], "env": ".env"}', CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{"remote_tools": [], "env": ".env", "agent": "graph:app"}');
  });

  test('in a multi-line file the fix adds a line with the same indentation', () => {
    const { text, problems } = expectProblems('⟦{⟧\n  "remote_tools": []\n}\n', CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{\n  "remote_tools": [],\n  "agent": "graph:app"\n}\n');
  });

  test('in an empty multi-line object the fix indents the new line by one unit', () => {
    const { text, problems } = expectProblems('⟦{⟧\n}', CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{\n  "agent": "graph:app"\n}');
  });

  test('CRLF files get a CRLF line break', () => {
    const { text, problems } = expectProblems('⟦{⟧\r\n    "env": ".env"\r\n}\r\n', CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{\r\n    "env": ".env",\r\n    "agent": "graph:app"\r\n}\r\n');
  });

  test('agent modules found beside the file are offered, the first one preferred', () => {
    const { text, problems } = expectProblems('⟦{⟧}', CODE, { agentCandidates: ['src/graph:app', 'agent:graph'], messages: ['src/graph:app'] });
    const fixes = problems[0].fixes!;
    assert.deepEqual(
      fixes.map((f) => f.isPreferred),
      [true, false],
    );
    assert.ok(fixes[0].title.includes('src/graph:app') && fixes[1].title.includes('agent:graph'));
    assert.equal(checkFix(text, problems[0], 1, { agentCandidates: ['src/graph:app', 'agent:graph'] }), '{ "agent": "agent:graph" }');
  });

  test('an agent that is present but invalid is agent-invalid, not agent-missing', () => {
    expectNone('{"agent": 5}', CODE);
    expectNone('{"agent": ""}', CODE);
    expectNone('{"agent": null}', CODE);
  });

  test('an agent nested in another object does not count', () => {
    expectProblems('⟦{⟧"settings": {"agent": "graph:app"}}', CODE);
    // "settings" itself is a key the server does not read.
    assert.deepEqual(codesIn('{"settings": {"agent": "graph:app"}}'), ['agent-missing', 'unknown-key']);
  });

  test('an agent repeated: the last one counts, so there is no agent-missing', () => {
    expectNone('{"agent": 1, "agent": "graph:app"}', CODE);
  });

  test('a root that is not an object is root-not-object only', () => {
    expectNone('[]', CODE);
  });
});
