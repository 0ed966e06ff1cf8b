// invalid-tool-name: a warning when `name` does not match ^[A-Za-z0-9_-]{1,64}$.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { config, expectNone, expectProblems, tool, unmark } from './helpers';

const CODE = 'invalid-tool-name';

describe('invalid-tool-name', () => {
  for (const [what, name, suggestion] of [
    ['a space', 'read clipboard', 'read_clipboard'],
    ['a dot', 'clipboard.read', 'clipboard_read'],
    ['a node prefix', 'TOOL:read_clipboard', 'TOOL_read_clipboard'],
    ['accented letters', 'café', 'caf'],
    ['an emoji', 'copy📋', 'copy'],
  ] as const) {
    test(`a name with ${what} is a warning on the value, quoting it and suggesting a valid one`, () => {
      const { problems } = expectProblems(config(tool({ name: `⟦${JSON.stringify(name)}⟧` })), CODE, { only: true, messages: [`'${name}'`, 'A-Za-z0-9_-', `'${suggestion}'`] });
      assert.equal(problems[0].fixes, undefined);
    });
  }

  test('a name longer than 64 characters is a warning that says so', () => {
    expectProblems(config(tool({ name: `⟦"${'a'.repeat(65)}"⟧` })), CODE, { only: true, messages: ['longer than 64'] });
  });

  test('a name of 1 or 64 allowed characters is fine', () => {
    expectNone(config(tool({ name: '"a"' })), CODE);
    expectNone(config(tool({ name: `"${'A-z_9'.repeat(12)}abcd"` })), CODE);
    expectNone(config(tool({ name: '"get_user-location2"' })), CODE);
  });

  test('a blank name or a name that is not a string is judged by its own rule only', () => {
    expectNone(config(tool({ name: '" "' })), CODE);
    expectNone(config(tool({ name: '5' })), CODE);
  });

  test('it is a warning: the config is still extracted', () => {
    const { text } = unmark(config(tool({ name: '"read clipboard"' })));
    const analysis = analyzeConfig(text);
    assert.deepEqual(
      analysis.problems.map((p) => p.code),
      [CODE],
    );
    assert.equal(analysis.config?.remoteTools[0].name, 'read clipboard');
  });

  test('a repeated name key is judged by its last value', () => {
    expectNone(config(tool({ name: '"a b", "name": "a_b"' })), CODE);
    expectProblems(config(tool({ name: '"a_b", "name": ⟦"a b"⟧' })), CODE);
  });
});

test('a name with a long run of underscores is judged in linear time, with the suggestion trimmed', () => {
  const name = `a${'_'.repeat(200_000)}b!`;
  const problems = analyzeConfig(JSON.stringify({ agent: 'graph:app', remote_tools: [{ node: 'TOOL', name, description: 'Read the text of the clipboard.' }] })).problems.filter(
    (p) => p.code === 'invalid-tool-name',
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0].message, new RegExp(`Use e\\.g\\. 'a_{63}'`));
});
